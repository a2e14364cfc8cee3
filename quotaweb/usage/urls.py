"""The live usage pages under ``/usage/``. User names and queue paths may hold ``/`` (and
``@ # :``, percent-encoded in links), hence the ``path`` converter for them."""

from django.urls import path

from quotaweb.usage import views

app_name = "usage"

urlpatterns = [
    path("", views.index, name="index"),
    path("<str:partition>/", views.overview, name="overview"),
    path("<str:partition>/users/", views.users, name="users"),
    path("<str:partition>/users/<path:name>/", views.user, name="user"),
    path("<str:partition>/groups/", views.groups, name="groups"),
    path("<str:partition>/groups/<path:name>/", views.group, name="group"),
    path("<str:partition>/queues/<path:queue_path>/", views.queue, name="queue"),
    path("<str:partition>/tree/<path:queue_path>/", views.tree_fragment, name="tree-fragment"),
    path("<str:partition>/activity/", views.activity, name="activity"),
    path("<str:partition>/over-limit/", views.over_limit, name="over_limit"),
    path("<str:partition>/accounting/", views.accounting, name="accounting"),
    path("<str:partition>/trends/<str:kind>/<path:name>/", views.trends, name="trends"),
]
