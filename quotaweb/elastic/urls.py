"""The elastic quota pages under ``/elastic/``."""

from django.urls import path

from quotaweb.elastic import views

app_name = "elastic"

urlpatterns = [
    path("", views.index, name="index"),
    path("<str:partition>/", views.page, name="page"),
    path("<str:partition>/explain/", views.explain, name="explain"),
    path("<str:partition>/switch/", views.switch, name="switch"),
    path("<str:partition>/total/", views.total, name="total"),
]
