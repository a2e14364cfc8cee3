"""The impact preview lists exactly the users and groups above a tightened limit."""

import pytest

from quotaweb.config.selectors import config_impact
from quotaweb.config.services import config_apply, config_validate
from quotaweb.engine.gateway import engines_load
from tests.configs import SMALL_YAML

pytestmark = pytest.mark.django_db

GI = 2**30


@pytest.fixture
def loaded(active_small):
    with active_small.engine("default") as engine:
        for app, user, groups, memory in [
            ("app-a1", "alice", ["ml"], 30 * GI),
            ("app-b1", "bob", [], 15 * GI),
            ("app-b2", "bob", [], 1 * GI),
            ("app-c1", "carol", [], 5 * GI),
        ]:
            assert engine.increase("root.eng", app, user, groups, {"memory": memory}).allowed
    return active_small


def _candidate(*replacements):
    text = SMALL_YAML
    for old, new in replacements:
        assert text.count(old) == 1
        text = text.replace(old, new)
    return config_validate(yaml_text=text)


def test_the_active_limits_have_no_impact(loaded):
    assert config_impact(candidate=_candidate()) == []


def test_tightened_limits_list_exactly_the_names_above_them(loaded):
    candidate = _candidate(
        ("{memory: 40Gi, vcore: \"20\"}", "{memory: 25Gi, vcore: \"20\"}"),  # alice: named limit
        (
            "{memory: 20Gi, vcore: \"10\"}\n                maxapplications: 2",
            "{memory: 12Gi, vcore: \"10\"}\n                maxapplications: 1",
        ),  # everyone else: bob is above on memory and applications, carol is not
        ("{memory: 60Gi}", "{memory: 20Gi}"),  # the ml group
    )

    impact = config_impact(candidate=candidate)

    assert impact == [
        {
            "partition": "default", "kind": "user", "name": "alice", "queuePath": "root.eng",
            "usage": {"memory": 30 * GI}, "limit": {"memory": 25 * GI, "vcore": 20_000},
            "runningApplications": 1, "maxApplications": 4,
        },
        {
            "partition": "default", "kind": "user", "name": "bob", "queuePath": "root.eng",
            "usage": {"memory": 16 * GI}, "limit": {"memory": 12 * GI, "vcore": 10_000},
            "runningApplications": 2, "maxApplications": 1,
        },
        {
            "partition": "default", "kind": "group", "name": "ml", "queuePath": "root.eng",
            "usage": {"memory": 30 * GI}, "limit": {"memory": 20 * GI},
            "runningApplications": 1, "maxApplications": 6,
        },
    ]


def test_a_named_limit_replaces_the_wildcard_for_that_user(loaded):
    # carol gets a named limit above her usage; bob stays on the (tightened) wildcard.
    candidate = _candidate(
        (
            "{memory: 20Gi, vcore: \"10\"}\n                maxapplications: 2",
            "{memory: 4Gi, vcore: \"10\"}\n                maxapplications: 2",
        ),
        (
            "              - limit: everyone else\n",
            "              - limit: carol\n                users: [carol]\n"
            "                maxresources: {memory: 8Gi}\n                maxapplications: 2\n"
            "              - limit: everyone else\n",
        ),
    )

    names = [(entry["kind"], entry["name"]) for entry in config_impact(candidate=candidate)]

    assert names == [("user", "bob")]


def test_no_engines_no_impact(db):
    assert config_impact(candidate=config_validate(yaml_text=SMALL_YAML)) == []


def test_applications_tracked_against_the_group_wildcard(yunikorn_yaml):
    version = config_apply(yaml_text=yunikorn_yaml, author=None, base_version=None)
    gateway = engines_load(yaml_text=version.yaml, version=version.number)
    with gateway.engine("default") as engine:
        decision = engine.increase("root.batch", "app-1", "frank", ["web"], {"memory": 40 * GI})
    assert decision.allowed
    tighter = yunikorn_yaml.replace(
        "groups: [\"*\"]\n                maxresources: {memory: 100Gi}",
        "groups: [\"*\"]\n                maxresources: {memory: 30Gi}",
    )
    assert tighter != yunikorn_yaml

    impact = config_impact(candidate=config_validate(yaml_text=tighter))

    assert [(e["kind"], e["name"], e["queuePath"], e["limit"]) for e in impact] == [
        ("group", "*", "root.batch", {"memory": 30 * GI})
    ]
