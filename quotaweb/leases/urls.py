from django.urls import path

from quotaweb.leases import views

app_name = "leases"

urlpatterns = [
    path("", views.owners, name="owners"),
]
