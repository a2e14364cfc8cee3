from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "quotaweb.accounts"
    label = "accounts"
    verbose_name = "quotaweb accounts"
