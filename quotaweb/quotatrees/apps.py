from django.apps import AppConfig


class QuotaTreesConfig(AppConfig):
    name = "quotaweb.quotatrees"
    label = "quotatrees"
