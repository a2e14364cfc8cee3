from django.apps import AppConfig


class ConfigConfig(AppConfig):
    name = "quotaweb.config"
    label = "config"
    verbose_name = "Quota configuration"
