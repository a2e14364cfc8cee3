"""One peer's share of the partitions on PostgreSQL: its leases kept, taken and handed on
(docs/design.md, "The engines and their owners").

A ``PeerLeases`` runs in ``manage.py serve`` on PostgreSQL, one round every tenth of the lease
(``QUOTAWEB_LEASE_MS``): it renews what it holds (and gives up at once any unit the table no
longer says is its own), looks at the table, and takes or hands on units as the balance rule
says (``leases.balance``). A unit taken is rebuilt from the ledger before it answers; a unit
lost or handed on is dropped from the gateway at once. The first round runs before the server
starts, so a lone peer owns everything before it answers anything.

Liveness, not safety: if no renewal succeeded within a lease measured from when it was sent
(on this process's monotonic clock), every slot stops answering by itself (``fresh_until``,
503 ``database_unavailable``), even if this thread is stuck, and answers again once a renewal
gets through and no other peer has taken the unit meanwhile. What keeps two owners from both
storing is the fence in the database (``quotaweb_fence``), whatever this thread believes.

The follower installs a configuration version applied through another peer within a round (at
once when a write was refused for an older one) and confirms it in the peer's row; a peer that
applies one waits for the owners' confirmations before it answers (``applied``). What keeps a
peer from storing an admission judged by the old version is again the database
(``quotaweb_version_fence``; docs/design.md, "Applies are global").
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

import psycopg
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.utils import Error as DatabaseError

from quotaweb import metrics
from quotaweb.allocations.services import ledger_restore
from quotaweb.config.selectors import active_version_number, version_get
from quotaweb.elastic.services import elastic_restore
from quotaweb.engine.gateway import Gateway, engines_get
from quotaweb.engine.owners import UNIT_TREES
from quotaweb.engine.quotatrees import trees_reset
from quotaweb.leases.balance import balance_plan
from quotaweb.leases.store import LeaseStore, NameTaken
from quotaweb.postgresql.waits import deadline
from quotaweb.quotatrees.services import trees_restore
from trackers import parse_config

logger = logging.getLogger(__name__)

# A round every tenth of the lease: a dead peer's units move within one round of its death,
# a stalled one's within a lease and a round.
ROUNDS_PER_LEASE = 10
MSG_TOOK = "took {unit} at epoch {epoch} ({seconds:.2f} s to rebuild)"
MSG_GAVE = "handed {unit} on"
MSG_LOST = "lost {unit}: its lease is no longer this peer's"
MSG_UNCONFIRMED = (
    "version {version} applied, but peer(s) {peers} did not confirm it within {seconds:.1f} s: "
    "their writes under the version before are refused until they switch"
)
# How often an apply looks whether the other owners run its version.
CONFIRM_POLL_SECONDS = 0.01
MSG_STALE = "could not renew the leases for {seconds:.1f} s: serving nothing until it can"

_current: PeerLeases | None = None


def peer_current() -> PeerLeases | None:
    """The running peer of this process, if it holds leases (PostgreSQL ``serve``)."""
    return _current


class PeerLeases:
    def __init__(self, *, store: LeaseStore, write: Callable[[str], None] = logger.info) -> None:
        self.store = store
        self.name = store.name
        self.ttl = store.ttl_ms / 1000
        self.write = write
        self.gateway: Gateway = engines_get()
        self.gateway.peer_name = self.name
        self.trees_epoch: int | None = None
        self._renewed_at = time.monotonic()
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        # Held across a renewal and its comparison with what is owned, and across a take and
        # the making of its slot (never across a rebuild): a unit taken while a renewal was
        # under way is not mistaken for one lost.
        self._owning = threading.Lock()
        # The follower of the active configuration version (``follow``): woken at once when a
        # ledger write is refused for an older version; one follow at a time.
        self._follow_now = threading.Event()
        self._following = threading.Lock()
        self._confirmed: int | None = None

    def owned(self) -> dict[str, int]:
        """{unit: epoch} of everything this peer holds now."""
        owned = self.gateway.owned()
        if self.trees_epoch is not None:
            owned[UNIT_TREES] = self.trees_epoch
        return owned

    def start(self) -> None:
        """The first round now (a lone peer owns everything before it serves), the rest in
        three threads until ``stop``: renewals in one, so that rebuilding a large partition in
        another never delays them past the lease, and the follower of the active configuration
        version in the third, so that neither delays a switch."""
        global _current
        self.round()
        self.follow()
        _current = self
        self.gateway.on_behind = self._follow_now.set
        self.gateway.on_applied = self.applied
        # The follower also wakes when told to (``on_behind``); the others every round.
        for target, wake, name in ((self.renew, self._stop, "quotaweb-lease-renewal"),
                                   (self.share, self._stop, "quotaweb-lease-sharing"),
                                   (self.follow, self._follow_now, "quotaweb-config-follow")):
            thread = threading.Thread(
                target=self._run, args=(target, wake), name=name, daemon=True
            )
            self._threads.append(thread)
            thread.start()

    def stop(self) -> None:
        """Hand every unit on (a graceful stop: the others take them at their next round) and
        leave."""
        global _current
        self._stop.set()
        self._follow_now.set()
        self.gateway.on_behind = self.gateway.on_applied = None
        for thread in self._threads:
            thread.join(timeout=self.ttl * 2)
        try:
            for unit in sorted(self.owned()):
                self._give(unit)
        except (psycopg.Error, DatabaseError):
            logger.warning("could not hand every unit on; they move when their lease expires",
                           exc_info=True)
        finally:
            self.store.close()
            if _current is self:
                _current = None

    def _run(self, step: Callable[[], None], wake: threading.Event) -> None:
        interval = self.ttl / ROUNDS_PER_LEASE
        while True:
            wake.wait(interval)
            if self._stop.is_set():
                return
            if wake is not self._stop:
                wake.clear()
            try:
                step()
            except NameTaken:
                logger.error("another process took this peer's name; serving nothing")
                self._drop_all()
            except (psycopg.Error, DatabaseError):
                logger.warning("lease round failed", exc_info=True)
            except Exception:
                logger.exception("lease round failed")
            finally:
                connections[DEFAULT_DB_ALIAS].close()

    def round(self) -> None:
        """Renew, then look, take and hand on (module docstring)."""
        self.renew()
        self.share()

    def renew(self) -> None:
        """Renew every lease held; drop at once a unit the table no longer gives this peer."""
        with self._owning:
            sent = time.monotonic()
            try:
                with deadline(at_most=self.ttl / 2):
                    renewed = self.store.renew()
            except psycopg.Error:
                # The slots stop answering by themselves once their lease is not confirmed
                # (``fresh_until``), and take up again at the next renewal if no other peer
                # took their units meanwhile: nothing to rebuild after a short outage.
                if time.monotonic() - self._renewed_at > self.ttl and self.owned():
                    logger.warning(MSG_STALE.format(seconds=time.monotonic() - self._renewed_at))
                raise
            self._renewed_at = sent
            for unit, epoch in self.owned().items():
                if renewed.get(unit) != epoch:
                    self._lose(unit)
            self.gateway.leases_fresh(renewed, until=sent + self.ttl)

    def share(self) -> None:
        """Follow the active version, look at the table, hand on and take units. No deadline:
        each statement has its own bound, and rebuilding a large partition from the ledger may
        take longer than one."""
        self._version_follow()
        units = [*self.gateway.configured(), UNIT_TREES]
        survey = self.store.survey(units)
        owned = self.owned()
        owners: dict[str, str | None] = {}
        elsewhere: dict[str, tuple[str, str]] = {}
        for unit in units:
            held = survey.held.get(unit)
            # A unit the table still gives this peer but that it dropped (a renewal came too
            # late) is taken afresh, at a new epoch, and rebuilt.
            if held is None or (held[0] == self.name and unit not in owned):
                owners[unit] = None
                continue
            owners[unit] = held[0]
            if held[0] != self.name:
                elsewhere[unit] = (held[0], survey.live.get(held[0], ""))
        self.gateway.owners_note(elsewhere)
        plan = balance_plan(me=self.name, units=units, owners=owners, live=survey.live)
        for unit in plan.give:
            self._give(unit)
        for unit in plan.take:
            with self._owning:
                taking = time.monotonic()
                epoch = self.store.take(unit, epoch=survey.epochs[unit])
                if epoch is None:
                    continue
                if unit == UNIT_TREES:
                    self.trees_epoch = epoch
                else:
                    self.gateway.slot_arrive(unit, epoch=epoch, fresh_until=taking + self.ttl)
            self._gain(unit, epoch)

    def _version_follow(self) -> None:
        """Install the active configuration version when another peer applied it."""
        with self._following:
            number = active_version_number()
            if number is None or number == self.gateway.config_version:
                return
            config = parse_config(version_get(number=number).yaml)
            self.gateway.switch_config(config, commit=lambda: number)

    def follow(self) -> None:
        """Every round, and at once when a write was refused for an older version: install
        the active version and confirm it in the peer's row, which an apply waits for
        (``applied``). Apart from the sharing round, which may spend long rebuilding."""
        self._version_follow()
        version = self.gateway.config_version
        if version is not None and version != self._confirmed:
            self.store.confirm(version)
            self._confirmed = version

    def applied(self, version: int) -> None:
        """This process has just applied ``version`` (``Gateway.version_everywhere``): confirm
        it, then wait until every other peer that owns a unit has, for at most a lease. A peer
        that has not by then cannot store an admission judged by the old limits anyway (the
        configuration's fence refuses it), so the apply is answered all the same."""
        ends = time.monotonic() + self.ttl
        try:
            with deadline(at_most=self.ttl):
                if version != self._confirmed:
                    self.store.confirm(version)
                    self._confirmed = version
                while behind := self.store.behind(version):
                    if time.monotonic() >= ends:
                        logger.warning(MSG_UNCONFIRMED.format(
                            version=version, peers=", ".join(behind), seconds=self.ttl))
                        return
                    time.sleep(CONFIRM_POLL_SECONDS)
        except (psycopg.Error, DatabaseError):
            logger.warning("could not see whether the peers run version %s", version,
                           exc_info=True)

    def _gain(self, unit: str, epoch: int) -> None:
        """Rebuild a unit just taken at ``epoch`` (its slot made, empty) and serve it."""
        started = time.perf_counter()
        try:
            if unit == UNIT_TREES:
                trees_restore(epoch=epoch)
                if self.trees_epoch != epoch:
                    # Lost again while it was being rebuilt.
                    trees_reset()
                    return
            else:
                ledger_restore(partitions=[unit])
                elastic_restore(partitions=[unit])
                self.gateway.slot_ready(unit)
        except Exception:
            # Not rebuilt: not served, and free for any peer (this one included) to try again.
            self._drop(unit)
            self.store.release(unit, epoch=epoch)
            raise
        metrics.inc("quotaweb_ownership_changes_total", change="took")
        self.write(MSG_TOOK.format(unit=unit, epoch=epoch,
                                   seconds=time.perf_counter() - started))

    def _drop(self, unit: str) -> int | None:
        """Stop serving ``unit`` at once; the epoch it was held at."""
        if unit == UNIT_TREES:
            epoch, self.trees_epoch = self.trees_epoch, None
            trees_reset()
            return epoch
        slot = self.gateway.slot_drop(unit)
        return None if slot is None else slot.epoch

    def _lose(self, unit: str) -> None:
        self._drop(unit)
        metrics.inc("quotaweb_ownership_changes_total", change="lost")
        self.write(MSG_LOST.format(unit=unit))

    def _drop_all(self) -> None:
        for unit in self.owned():
            self._drop(unit)

    def _give(self, unit: str) -> None:
        """Hand ``unit`` on: stop admitting, let the writes of its slot in flight end (within
        a statement's bound; a write later than that is refused by the fence anyway), then
        free the lease."""
        slot = self.gateway.slot_drop(unit) if unit != UNIT_TREES else None
        epoch = slot.epoch if slot is not None else self._drop(unit)
        if epoch is None:
            return
        if slot is not None:
            ends = time.monotonic() + self.ttl
            while not slot.commits.idle() and time.monotonic() < ends:
                # An open group not yet led is led by one of its own callers in a moment.
                if slot.commits.wait(timeout=max(0.0, ends - time.monotonic())):
                    time.sleep(0.002)
            if slot.lock.acquire(timeout=max(0.0, ends - time.monotonic())):
                slot.lock.release()
        self.store.release(unit, epoch=epoch)
        metrics.inc("quotaweb_ownership_changes_total", change="gave")
        self.write(MSG_GAVE.format(unit=unit))
