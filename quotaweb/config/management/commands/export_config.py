"""``python manage.py export_config [--version N] [--format configmap]``: print a version's YAML
(default: active), bare or in YuniKorn's ConfigMap."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from quotaweb.config.configmap import configmap_render
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
        parser.add_argument(
            "--format", choices=["yaml", "configmap"], default="yaml", dest="shape",
            help="configmap: inside YuniKorn's yunikorn-configs ConfigMap, comments kept",
        )

    def handle(self, *args, number, shape, **options):
        if number is None:
            version = active_version()
            if version is None:
                raise CommandError(ERR_NO_CONFIG)
        else:
            try:
                version = version_get(number=number)
            except ConfigVersion.DoesNotExist:
                raise CommandError(ERR_NO_VERSION.format(number=number)) from None
        text = configmap_render(yaml_text=version.yaml) if shape == "configmap" else version.yaml
        self.stdout.write(text, ending="" if text.endswith("\n") else "\n")
