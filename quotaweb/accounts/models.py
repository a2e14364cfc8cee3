"""Credentials besides accounts: team-dashboard links. A link is a token that shows one group's
(or one user's) live usage, read-only, to whoever holds it, without an account; the live socket
accepts it like a login. Admins create, list and revoke them (``quotaweb.teams``)."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class TeamLink(models.Model):
    KIND_USER = "user"
    KIND_GROUP = "group"
    KINDS = [(KIND_GROUP, "group"), (KIND_USER, "user")]

    token = models.CharField(max_length=64, unique=True)
    partition = models.CharField(max_length=64)
    kind = models.CharField(max_length=8, choices=KINDS)
    name = models.CharField(max_length=255)
    label = models.CharField(max_length=200, blank=True, help_text="who the link is for")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
        related_name="+",
    )
    created = models.DateTimeField(auto_now_add=True)
    revoked = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created"]
        # The table keeps the name it had when links lived in the teams app.
        db_table = "teams_teamlink"

    def __str__(self) -> str:
        return f"{self.kind} {self.name} in {self.partition}"

    @property
    def scope_text(self) -> str:
        """The one live scope this link may read."""
        return f"{self.kind}:{self.name}"
