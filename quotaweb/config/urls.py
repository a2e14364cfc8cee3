from django.urls import path

from quotaweb.config import format_views, views

app_name = "config"

urlpatterns = [
    path("", views.tree, name="tree"),
    path("queues/<str:partition>/<path:queue_path>/", views.queue, name="queue"),
    path("tree/<str:partition>/<path:queue_path>/", views.tree_fragment, name="tree-fragment"),
    path("draft/", views.draft, name="draft"),
    path("yaml/", views.yaml_page, name="yaml"),
    path("import/elasticquota/", format_views.elasticquota_import, name="import-elasticquota"),
    path(
        "export/elasticquota/<str:partition>/", format_views.elasticquota_download,
        name="export-elasticquota",
    ),
    path("versions/", views.versions, name="versions"),
    path("versions/<int:number>/", views.version, name="version"),
    path("versions/<int:number>/diff/", views.version_diff, name="diff"),
    path("versions/<int:number>/rollback/", views.rollback, name="rollback"),
]
