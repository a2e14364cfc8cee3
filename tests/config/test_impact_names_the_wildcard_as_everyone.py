"""The impact preview names the wildcard group as "everyone (*)", never as a group called "*":
applications that no named group limit covers are tracked against the group wildcard, and a
tighter wildcard entry puts that wildcard above its new limit."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from quotaweb.config.services import config_apply
from quotaweb.engine.gateway import engines_load

pytestmark = pytest.mark.django_db

GI = 2**30


def test_the_group_wildcard_above_a_new_limit_reads_as_everyone(quota_admin_client, yunikorn_yaml):
    version = config_apply(yaml_text=yunikorn_yaml, author=None, base_version=None)
    gateway = engines_load(yaml_text=version.yaml, version=version.number)
    with gateway.engine("default") as engine:
        assert engine.increase("root.batch", "app-1", "frank", ["web"], {"memory": 40 * GI}).allowed
    tighter = yunikorn_yaml.replace(
        "groups: [\"*\"]\n                maxresources: {memory: 100Gi}",
        "groups: [\"*\"]\n                maxresources: {memory: 30Gi}",
    )

    page = quota_admin_client.post(reverse("config:yaml"), {
        "action": "preview", "text": tighter, "base_version": str(version.number),
    }).content.decode()

    row = re.search(r'<tr data-impact="group:\*"[^>]*>(.*?)</tr>', page, re.S)
    assert row is not None
    who = re.sub(r"<[^>]+>", "", row.group(1).split("</td>", 1)[0])
    assert who.strip() == "everyone (*) (group wildcard)"
