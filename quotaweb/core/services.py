"""Start-up work: read the configuration file and create this process's engines."""

from __future__ import annotations

from pathlib import Path

from django.conf import settings

from quotaweb.engine.gateway import Gateway, engines_load


def engines_start(*, config_path: Path | str | None = None) -> Gateway:
    """Load the YAML at ``config_path`` (default ``settings.QUOTAWEB_CONFIG``) into new engines.

    Raises ``trackers.ConfigError`` when the file does not validate and ``OSError`` when it cannot
    be read; nothing is replaced in either case.
    """
    path = Path(config_path) if config_path is not None else Path(settings.QUOTAWEB_CONFIG)
    yaml_text = path.read_text(encoding="utf-8")
    return engines_load(yaml_text=yaml_text)
