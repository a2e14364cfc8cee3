from django.apps import AppConfig


class TeamsConfig(AppConfig):
    name = "quotaweb.teams"
    label = "teams"
