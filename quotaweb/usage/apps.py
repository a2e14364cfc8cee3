from django.apps import AppConfig


class UsageConfig(AppConfig):
    name = "quotaweb.usage"
    label = "usage"
