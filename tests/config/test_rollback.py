"""A rollback is a new version with exactly the old content: YAML, rows and engine limits."""

import pytest

from quotaweb.config.models import ConfigVersion
from quotaweb.config.selectors import ERR_NO_VERSION
from quotaweb.config.services import (
    VersionNotFound,
    config_apply,
    config_rollback,
    limit_update,
)
from tests.config_rows import config_from_rows
from tests.configs import SMALL_YAML
from trackers import parse_config

pytestmark = pytest.mark.django_db


def _alice_at_eng(gateway):
    with gateway.engine("default") as engine:
        return engine.user_usage("alice")["queues"]["children"][0]


def test_rollback_restores_yaml_rows_and_engine_limits(active_small, admin):
    before = _alice_at_eng(active_small)
    limit_update(
        partition="default", queue_path="root.eng", index=0,
        values={"max_resources": {"memory": "10Gi"}, "max_applications": 1},
        author=admin, base_version=1,
    )
    assert _alice_at_eng(active_small) != before

    version = config_rollback(version=1, author=admin, base_version=2)

    assert version.number == 3
    assert version.comment == "rollback to version 1"
    assert version.yaml == SMALL_YAML
    assert version.checksum == ConfigVersion.objects.get(number=1).checksum
    assert config_from_rows() == parse_config(SMALL_YAML)
    assert _alice_at_eng(active_small) == before
    assert active_small.version("default") == 3


def test_rollback_to_the_active_content_changes_nothing(active_small):
    assert config_rollback(version=1, author=None, base_version=1).number == 1


def test_rollback_to_an_unknown_version(active_small):
    with pytest.raises(VersionNotFound, match=ERR_NO_VERSION.format(number=9)):
        config_rollback(version=9, author=None, base_version=1)


def test_rollback_keeps_usage(active_small, admin):
    with active_small.engine("default") as engine:
        engine.increase("root.eng", "app-1", "alice", [], {"memory": 2**30})
    config_apply(yaml_text=SMALL_YAML.replace("40Gi", "30Gi"), author=admin, base_version=1)

    config_rollback(version=1, author=admin, base_version=2)

    assert _alice_at_eng(active_small)["resourceUsage"] == {"memory": 2**30}
