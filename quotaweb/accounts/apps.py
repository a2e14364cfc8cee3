from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "quotaweb.accounts"
    label = "accounts"
    verbose_name = "quotaweb accounts"

    def ready(self) -> None:
        from quotaweb.accounts import signals
        from quotaweb.accounts.ldap_backend import ldap_refresher_register

        signals.sign_in_audit_connect()
        ldap_refresher_register()
