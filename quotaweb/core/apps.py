from django.apps import AppConfig


class CoreConfig(AppConfig):
    name = "quotaweb.core"
    label = "core"
    verbose_name = "quotaweb core"
