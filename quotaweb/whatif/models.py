from __future__ import annotations

from django.conf import settings
from django.db import models


class Replay(models.Model):
    """One what-if replay: a period of one partition's history asked again of a candidate
    configuration (an admin's draft, or a document sent to the API), run in the background.

    ``digest`` is the candidate document's SHA-256: the draft page shows the replay of its
    current draft, and says when the draft has changed since. ``beat`` is renewed while the
    replay runs; a running replay whose beat is old was left by a process that stopped."""

    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"
    CANCELLED = "cancelled"
    STATES = (QUEUED, RUNNING, DONE, FAILED, CANCELLED)

    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="replays"
    )
    source = models.CharField(max_length=8, help_text="draft or document")
    digest = models.CharField(max_length=64)
    partition = models.CharField(max_length=64)
    since = models.DateTimeField()
    until = models.DateTimeField()
    state = models.CharField(max_length=16, default=QUEUED)
    # Events in the period (counted when it starts) and done so far.
    total = models.BigIntegerField(default=0)
    done = models.BigIntegerField(default=0)
    cancel_asked = models.BooleanField(default=False)
    result = models.JSONField(null=True, blank=True)
    error = models.TextField(blank=True, default="")
    created = models.DateTimeField(auto_now_add=True)
    beat = models.DateTimeField(null=True, blank=True)
    finished = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["author", "-created"], name="replay_author_recent")]

    def __str__(self) -> str:
        return f"replay {self.pk} of {self.partition} ({self.state})"
