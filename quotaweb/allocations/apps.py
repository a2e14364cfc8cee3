from django.apps import AppConfig


class AllocationsConfig(AppConfig):
    name = "quotaweb.allocations"
    label = "allocations"
