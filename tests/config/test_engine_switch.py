"""The gateway switches a whole document: every partition or none, each version once."""

import pytest

from quotaweb.config.services import config_apply
from tests.configs import SMALL_YAML
from trackers import Engine, parse_config

pytestmark = pytest.mark.django_db


def test_partitions_come_and_go_with_the_document(active_sample, sample_yaml):
    with active_sample.engine("default") as engine:
        engine.increase("root.research.nlp", "app-1", "alice", [], {"memory": 2**30})

    config_apply(yaml_text=SMALL_YAML, author=None, base_version=1)
    assert active_sample.partitions() == ["default"]

    config_apply(yaml_text=sample_yaml, author=None, base_version=2)
    assert active_sample.partitions() == ["default", "gpu"]
    assert active_sample.version("gpu") == 3
    # The default engine was switched, never replaced: its usage is still there.
    with active_sample.engine("default") as engine:
        assert engine.user_usage("alice")["queues"]["resourceUsage"] == {"memory": 2**30}


def test_an_engine_already_on_the_version_is_left_alone(active_small, monkeypatch):
    version = config_apply(
        yaml_text=SMALL_YAML.replace("maxapplications: 6", "maxapplications: 5"),
        author=None, base_version=1,
    )
    calls = []
    monkeypatch.setattr(Engine, "install_config", lambda *args, **kwargs: calls.append(args))

    active_small.switch_config(parse_config(version.yaml), commit=lambda: version.number)

    assert calls == []
