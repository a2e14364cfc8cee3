from django.urls import path

from quotaweb.whatif import views

app_name = "whatif"

urlpatterns = [
    path("", views.draft_replay, name="draft"),
    path("<int:pk>/cancel/", views.replay_cancel, name="cancel"),
]
