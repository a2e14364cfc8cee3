"""``python manage.py export_config [--version N]``: print a version's YAML (default: active)."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from quotaweb.config.models import ConfigVersion
from quotaweb.config.selectors import (
    ERR_NO_CONFIG,
    ERR_NO_VERSION,
    active_version,
    version_get,
)


class Command(BaseCommand):
    help = "Print the YAML of the active configuration version, or of --version N."

    def create_parser(self, prog_name, subcommand, **kwargs):
        # Our --version is a configuration version number; it replaces Django's program version.
        return super().create_parser(prog_name, subcommand, conflict_handler="resolve", **kwargs)

    def add_arguments(self, parser):
        parser.add_argument("--version", type=int, default=None, dest="number")

    def handle(self, *args, number, **options):
        if number is None:
            version = active_version()
            if version is None:
                raise CommandError(ERR_NO_CONFIG)
        else:
            try:
                version = version_get(number=number)
            except ConfigVersion.DoesNotExist:
                raise CommandError(ERR_NO_VERSION.format(number=number)) from None
        self.stdout.write(version.yaml, ending="" if version.yaml.endswith("\n") else "\n")
