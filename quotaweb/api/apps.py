from django.apps import AppConfig


class ApiConfig(AppConfig):
    name = "quotaweb.api"
    label = "api"
