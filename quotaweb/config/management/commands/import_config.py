"""``python manage.py import_config FILE``: validate a YAML document and make it the active version.

On any error, every problem is printed as ``code path field: message`` and nothing changes. The
import is deliberate, so it starts from whatever version is active right now. A YuniKorn
ConfigMap (``kubectl get configmap yunikorn-configs -o yaml``) gives its ``queues.yaml``; the
keys it ignores are printed as warnings on stderr.
"""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from quotaweb.config.configmap import configmap_unwrap
from quotaweb.config.selectors import active_version_number
from quotaweb.config.services import ConfigRejected, config_apply


def error_lines(errors: list[dict[str, str]]) -> list[str]:
    return [f"{e['code']} {e['path']} {e['field']}: {e['message']}" for e in errors]


def read_text(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CommandError(f"Cannot read {path}: {exc}") from exc


class Command(BaseCommand):
    help = "Validate a queues.yaml and apply it as a new configuration version."

    def add_arguments(self, parser):
        parser.add_argument(
            "file", help="YuniKorn-style queues.yaml, or the ConfigMap that holds it"
        )
        parser.add_argument("--comment", default="", help="why this version (shown in history)")

    def handle(self, *args, file, comment, **options):
        base = active_version_number()
        try:
            unwrapped = configmap_unwrap(text=read_text(file))
            for warning in unwrapped.warnings:
                self.stderr.write(f"warning: {warning}")
            version = config_apply(
                yaml_text=unwrapped.yaml_text, author=None, comment=comment, base_version=base
            )
        except ConfigRejected as exc:
            for line in error_lines(exc.errors):
                self.stderr.write(line)
            raise CommandError(f"{file} is not valid: nothing was changed") from exc
        if version.number == base:
            self.stdout.write(f"unchanged: version {version.number} already has this content")
        else:
            self.stdout.write(str(version.number))
