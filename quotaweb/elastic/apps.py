from django.apps import AppConfig


class ElasticConfig(AppConfig):
    name = "quotaweb.elastic"
    label = "elastic"
