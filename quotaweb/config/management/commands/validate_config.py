"""``python manage.py validate_config FILE``: print every problem, or "valid"; changes nothing."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from quotaweb.config.management.commands.import_config import error_lines, read_text
from quotaweb.config.services import ConfigRejected, config_validate

VALID = "valid"


class Command(BaseCommand):
    help = "Check a queues.yaml with the same rules as an import, without storing anything."

    def add_arguments(self, parser):
        parser.add_argument("file")

    def handle(self, *args, file, **options):
        try:
            config_validate(yaml_text=read_text(file))
        except ConfigRejected as exc:
            for line in error_lines(exc.errors):
                self.stdout.write(line)
            raise CommandError(f"{file}: {len(exc.errors)} error(s)", returncode=1) from exc
        self.stdout.write(VALID)
