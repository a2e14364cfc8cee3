from django.urls import path

from quotaweb.core import views

app_name = "core"

urlpatterns = [
    path("", views.home, name="home"),
    path("owners/", views.owners, name="owners"),
    path("healthz", views.healthz, name="healthz"),
    path("metrics", views.metrics, name="metrics"),
]
