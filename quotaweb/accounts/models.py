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


class DirectoryIdentity(models.Model):
    """A user who signs in through the site's directory (LDAP or OpenID Connect): the groups the
    directory gave them when last asked. Their role is computed from these groups on every
    request (``quotaweb.accounts.roles``), never stored, so a change in the directory counts as
    soon as the groups are read again."""

    SOURCE_LDAP = "ldap"
    SOURCE_OIDC = "oidc"
    SOURCES = [(SOURCE_LDAP, "LDAP"), (SOURCE_OIDC, "OpenID Connect")]

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="directory_identity",
    )
    source = models.CharField(max_length=8, choices=SOURCES)
    groups = models.JSONField(default=list)
    synced_at = models.DateTimeField()
    # False once the directory no longer has the person (their entry was deleted).
    present = models.BooleanField(default=True)

    def __str__(self) -> str:
        return f"{self.user} ({self.source})"


class AuthEvent(models.Model):
    """The sign-in audit: who signed in through what, refused sign-ins, role changes seen."""

    KIND_SIGN_IN = "sign-in"
    KIND_DENIED = "denied"
    KIND_ROLE_CHANGE = "role-change"
    KINDS = [
        (KIND_SIGN_IN, "signed in"), (KIND_DENIED, "sign-in refused"),
        (KIND_ROLE_CHANGE, "role changed"),
    ]

    at = models.DateTimeField(auto_now_add=True, db_index=True)
    kind = models.CharField(max_length=16, choices=KINDS)
    username = models.CharField(max_length=255)
    # "local", "ldap", "oidc", "token"
    source = models.CharField(max_length=8)
    detail = models.CharField(max_length=300, blank=True)
    address = models.GenericIPAddressField(null=True, blank=True)

    class Meta:
        ordering = ["-at", "-id"]

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M:%S} {self.kind} {self.username} ({self.source})"
