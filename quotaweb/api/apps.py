from django.apps import AppConfig


class ApiConfig(AppConfig):
    name = "quotaweb.api"
    label = "api"

    def ready(self) -> None:
        # Registers the schema's serializer extension (drf-spectacular finds extensions by
        # import).
        from quotaweb.api import schema_hooks  # noqa: F401
