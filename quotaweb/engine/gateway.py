"""One ``trackers.Engine`` per partition, owned by this process, behind one lock per partition.

Engines are created explicitly by the process that serves requests (``engines_load``), never at
import time or in ``AppConfig.ready()``: an import-time singleton would be copied into forked
processes and shared between tests. Exactly one process may own a partition's engine.

The engine is thread-safe on its own; the per-partition lock keeps multi-step gateway work (for
example "apply this config version, then read the summary") in one piece and is the seam where a
remote owner (a Channels worker) can later replace the in-process call.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from trackers import Engine, parse_config


class EngineNotLoaded(RuntimeError):
    """No engine has been created in this process yet (the server is still starting)."""


class UnknownPartition(LookupError):
    """The partition is not part of the loaded configuration."""

    def __init__(self, name: str) -> None:
        super().__init__(f"partition {name!r} is not configured")
        self.name = name


@dataclass
class PartitionSlot:
    engine: Engine
    lock: threading.RLock = field(default_factory=threading.RLock)


class Gateway:
    """The engines of every configured partition, in configuration order."""

    def __init__(self, slots: dict[str, PartitionSlot]) -> None:
        self._slots = slots
        # One whole-document switch at a time; per-partition work still runs under slot locks.
        self._switch_lock = threading.Lock()

    @classmethod
    def from_config(cls, config, *, version: int | None = None) -> Gateway:
        slots = {
            partition.name: PartitionSlot(engine=Engine(partition, version=version))
            for partition in config.partitions
        }
        return cls(slots)

    def partitions(self) -> list[str]:
        return list(self._slots)

    def _slot(self, partition: str) -> PartitionSlot:
        try:
            return self._slots[partition]
        except KeyError:
            raise UnknownPartition(partition) from None

    @contextmanager
    def engine(self, partition: str) -> Iterator[Engine]:
        """Hold the partition's lock and hand out its engine for the length of the block."""
        slot = self._slot(partition)
        with slot.lock:
            yield slot.engine

    def version(self, partition: str) -> int | None:
        return self._slot(partition).engine.version

    def apply_config(self, partition, *, version: int | None = None) -> None:
        """Give an existing partition's engine new limits; usage and running apps stay."""
        slot = self._slot(partition.name)
        with slot.lock:
            slot.engine.apply_config(partition, version=version)

    def switch_config(self, config, *, version: int) -> Callable[[], None]:
        """Apply a whole document to every partition, or to none; answer a function that undoes it.

        Existing partitions get the new limits (usage and running apps stay), new partitions get
        a fresh engine, partitions no longer in the document are dropped. An engine already on
        ``version`` is left alone, so repeating an apply is harmless. If one partition fails, the
        ones already switched go back to their previous limits and the error propagates. The undo
        function is for a caller whose own commit fails after the engines switched.
        """
        with self._switch_lock:
            previous_slots = self._slots
            previous = {
                name: (slot.engine.config, slot.engine.version)
                for name, slot in previous_slots.items()
            }
            switched: list[PartitionSlot] = []

            def restore() -> None:
                for slot in switched:
                    config_before, version_before = previous[slot.engine.partition]
                    with slot.lock:
                        slot.engine.apply_config(config_before, version=version_before)

            slots: dict[str, PartitionSlot] = {}
            try:
                for partition in config.partitions:
                    slot = previous_slots.get(partition.name)
                    if slot is None:
                        slot = PartitionSlot(engine=Engine(partition, version=version))
                    elif slot.engine.version != version:
                        with slot.lock:
                            slot.engine.apply_config(partition, version=version)
                        switched.append(slot)
                    slots[partition.name] = slot
            except BaseException:
                restore()
                raise
            self._slots = slots

        def undo() -> None:
            with self._switch_lock:
                restore()
                self._slots = previous_slots

        return undo

    def summary(self, partition: str) -> dict:
        """``{version, users, groups, queues, seq}`` for health checks and overviews."""
        with self.engine(partition) as engine:
            return engine.summary()

    def queues_usage(self, partition: str) -> dict:
        with self.engine(partition) as engine:
            return engine.queues_usage()

    def users_usage(self, partition: str) -> list[dict]:
        with self.engine(partition) as engine:
            return engine.users_usage()

    def groups_usage(self, partition: str) -> list[dict]:
        with self.engine(partition) as engine:
            return engine.groups_usage()

    def user_usage(self, partition: str, name: str) -> dict | None:
        """One user object (None when the user has no tracker)."""
        with self.engine(partition) as engine:
            return engine.user_usage(name)

    def group_usage(self, partition: str, name: str) -> dict | None:
        with self.engine(partition) as engine:
            return engine.group_usage(name)


# The process's gateway. Set only by engines_load(); tests reset it around every test.
_gateway: Gateway | None = None
_swap_lock = threading.Lock()


def engines_load(*, yaml_text: str, version: int | None = None) -> Gateway:
    """Parse and validate the config (``trackers.ConfigError`` if invalid) and create the engines.

    Replaces any gateway loaded before: call it once at start-up, in the serving process.
    """
    config = parse_config(yaml_text)
    gateway = Gateway.from_config(config, version=version)
    global _gateway
    with _swap_lock:
        _gateway = gateway
    return gateway


def engines_get() -> Gateway:
    """The loaded gateway; ``EngineNotLoaded`` before start-up has created it."""
    gateway = _gateway
    if gateway is None:
        raise EngineNotLoaded("the quota engines have not been created in this process yet")
    return gateway


def engines_loaded() -> bool:
    return _gateway is not None


def engines_reset() -> None:
    """Forget the engines (tests, or a process shutting down)."""
    global _gateway
    with _swap_lock:
        _gateway = None
