from django.urls import path

from quotaweb.teams import views

app_name = "teams"

urlpatterns = [
    path("", views.links, name="links"),
    path("<int:link_id>/revoke/", views.revoke, name="revoke"),
]
