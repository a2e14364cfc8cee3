"""Who owns what among the peers that share one PostgreSQL database (docs/design.md, "The
engines and their owners"). Every time here is PostgreSQL's clock, never a peer's: peers on
different machines compare nothing but what the database wrote."""

from __future__ import annotations

from django.db import models


class Peer(models.Model):
    """A serving process: seen alive while its ``last_seen`` is within the lease TTL and its
    lease session holds the peer's advisory lock (``quotaweb.leases.store``)."""

    name = models.CharField(max_length=255, primary_key=True)
    address = models.CharField(max_length=255, help_text="host:port its HTTP server listens on")
    hostname = models.CharField(max_length=255)
    pid = models.IntegerField()
    started = models.DateTimeField()
    last_seen = models.DateTimeField()
    # The configuration version its engines run, written once it has switched: an apply waits
    # (within a bound) until every peer that owns a unit has confirmed the version it stored.
    config_version = models.BigIntegerField(default=0, db_default=0)

    def __str__(self) -> str:
        return self.name


class Lease(models.Model):
    """One unit of ownership (a partition, or ``"quota-trees"``) and its owner. ``epoch`` grows
    by one at each change of owner: it is the fencing token every ledger write carries, and the
    database refuses a write whose epoch is not the unit's current one (``quotaweb_fence``)."""

    unit = models.CharField(max_length=64, primary_key=True)
    # "" while nobody owns it (handed on, or never taken).
    owner = models.CharField(max_length=255, blank=True, default="")
    epoch = models.BigIntegerField(default=0)
    since = models.DateTimeField()
    expires = models.DateTimeField()

    def __str__(self) -> str:
        return f"{self.unit}@{self.epoch}"
