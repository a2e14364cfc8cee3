from django.urls import path

from quotaweb.config import views

app_name = "config"

urlpatterns = [
    path("", views.tree, name="tree"),
    path("queues/<str:partition>/<path:queue_path>/", views.queue, name="queue"),
    path("draft/", views.draft, name="draft"),
    path("yaml/", views.yaml_page, name="yaml"),
    path("versions/", views.versions, name="versions"),
    path("versions/<int:number>/", views.version, name="version"),
    path("versions/<int:number>/diff/", views.version_diff, name="diff"),
    path("versions/<int:number>/rollback/", views.rollback, name="rollback"),
]
