from django.apps import AppConfig


class EngineConfig(AppConfig):
    name = "quotaweb.engine"
    label = "engine"
    verbose_name = "Engine gateway"
    # No ready() hook on purpose: engines are created explicitly at start-up, never on import.
