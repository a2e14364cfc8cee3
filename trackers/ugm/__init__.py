"""User and group quota tracking and enforcement, one engine per partition."""

from trackers.ugm.changes import Changes
from trackers.ugm.decision import REASONS, Decision
from trackers.ugm.engine import CompiledConfig, Engine, compile_config
from trackers.ugm.impact import over_limits
from trackers.ugm.snapshot import QueueRow, UsageRows

__all__ = [
    "REASONS", "Changes", "CompiledConfig", "Decision", "Engine", "QueueRow", "UsageRows",
    "compile_config", "over_limits",
]
