"""The quota tree pages under ``/trees/``. A tree named ``new``, ``forests`` or ``consumers``
would have no page of its own here (the editor refuses those names)."""

from django.urls import path

from quotaweb.quotatrees import views

app_name = "quotatrees"

urlpatterns = [
    path("", views.index, name="index"),
    path("new/", views.new, name="new"),
    path("forests/", views.forest_new, name="forest-new"),
    path("forests/<str:forest>/", views.forest_page, name="forest"),
    path("forests/<str:forest>/edit/", views.forest_edit, name="forest-edit"),
    path("forests/<str:forest>/mode/", views.forest_mode, name="forest-mode"),
    path("forests/<str:forest>/delete/", views.forest_delete, name="forest-delete"),
    path("consumers/<path:consumer>/", views.consumer, name="consumer"),
    path("<str:tree>/", views.tree_page, name="tree"),
    path("<str:tree>/edit/", views.edit, name="edit"),
    path("<str:tree>/document/", views.document, name="document"),
    path("<str:tree>/mode/", views.mode, name="mode"),
    path("<str:tree>/consumers/add/", views.consumer_add, name="consumer-add"),
    path("<str:tree>/consumers/release/", views.consumer_release, name="consumer-release"),
    path("<str:tree>/delete/", views.delete, name="delete"),
]
