"""quotaweb's quota library: the configuration document and the engines that enforce it.

Pure Python, no Django: scripts, the web app and other tools all use the same rules.
"""

from trackers.config import dump_config, parse_config, parse_document, validate_config
from trackers.errors import ConfigError, InvalidRequest, NotTracked, QuantityError, TrackersError
from trackers.ugm import (
    REASONS,
    Changes,
    CompiledConfig,
    Decision,
    Engine,
    QueueRow,
    UsageRows,
    compile_config,
    over_limits,
)

__all__ = [
    "REASONS",
    "Changes",
    "CompiledConfig",
    "ConfigError",
    "Decision",
    "Engine",
    "InvalidRequest",
    "NotTracked",
    "QuantityError",
    "QueueRow",
    "TrackersError",
    "UsageRows",
    "compile_config",
    "dump_config",
    "over_limits",
    "parse_config",
    "parse_document",
    "validate_config",
]
