from django.apps import AppConfig


class LeasesConfig(AppConfig):
    name = "quotaweb.leases"
    label = "leases"
    verbose_name = "Ownership leases"
    # No ready() hook: leases are taken by the serving process at start-up, never on import.
