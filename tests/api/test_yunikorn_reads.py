"""The YuniKorn-compatible reads: partitions, the queue tree, user and group usage and the active
configuration, with YuniKorn's field names, omission rules and sort order (ugm.md section 3)."""

from __future__ import annotations

import pytest
import yaml

from quotaweb.config.services import config_apply
from quotaweb.engine.gateway import engines_load
from tests.api.allocation_support import GiB, allocate
from tests.api.yunikorn_support import LEAF_POLICIES, PARENT_POLICIES
from tests.configs import SMALL_YAML, TREE_YAML

pytestmark = pytest.mark.django_db

ODD_USER = "test_a-b_c@#d@do:mai/n.com"
ODD_USER_ESCAPED = "test_a-b_c%40%23d%40do%3Amai%2Fn.com"


@pytest.fixture
def busy(active_tree):
    """Three users on two queues: alice's app counts against group ml, bob's against none."""
    allocate(active_tree, queue="root.eng", app="app-2", user="alice", groups=["ml"],
             memory=30 * GiB, vcore=2000)
    allocate(active_tree, queue="root.eng", app="app-1", user="alice", groups=["ml"],
             memory=1 * GiB)
    allocate(active_tree, queue="root.eng", app="app-3", user="bob", memory=1 * GiB)
    allocate(active_tree, queue="root.web.dyn", app="app-4", user=ODD_USER, memory=5)
    return active_tree


def test_partitions_lists_every_configured_partition_in_order(viewer_token, busy):
    response = viewer_token.get("/ws/v1/partitions")

    assert response.status_code == 200
    assert response["Content-Type"] == "application/json; charset=utf-8"
    # Compact JSON, as YuniKorn writes it.
    assert response.content.startswith(b'[{"name":"default","state":"Active",')
    assert [p["name"] for p in response.json()] == ["default", "gpu"]
    default = response.json()[0]
    assert default["configVersion"] == 1
    assert default["totalUsers"] == 3
    assert default["totalGroups"] == 1


def test_queue_tree_has_configured_values_in_base_units_and_usage_over_all_users(
    viewer_token, busy
):
    tree = viewer_token.get("/ws/v1/partition/default/queues").json()

    # The fields of YuniKorn's PartitionQueueDAOInfo quotaweb fills (see
    # test_yunikorn_queue_fields.py for the ones added for YuniKorn's web UI).
    assert tree == {
        "queuename": "root", "status": "Active", "partition": "default",
        "allocatedResource": {"memory": 32 * GiB + 5, "vcore": 2000},
        "isLeaf": False, "isManaged": True,
        "childNames": ["root.eng", "root.web"],
        "runningApps": 4, **PARENT_POLICIES,
        "children": [
            {
                "queuename": "root.eng", "status": "Active", "partition": "default",
                # Explicit zero kept; vcore in millicores; memory in bytes.
                "maxResource": {"memory": 100 * GiB, "vcore": 100_000, "nvidia.com/gpu": 0},
                "guaranteedResource": {"memory": 10 * GiB, "vcore": 500},
                "allocatedResource": {"memory": 32 * GiB, "vcore": 2000},
                "headroom": {"memory": 68 * GiB, "vcore": 98_000, "nvidia.com/gpu": 0},
                "isLeaf": True, "isManaged": True, "parent": "root",
                "absUsedCapacity": {"memory": 32, "vcore": 2},
                "maxRunningApps": 10,
                "runningApps": 3, **LEAF_POLICIES,
                "properties": {"application.sort.policy": "fifo"},
            },
            {
                "queuename": "root.web", "status": "Active", "partition": "default",
                "allocatedResource": {"memory": 5},
                "isLeaf": False, "isManaged": True, "parent": "root",
                "childNames": ["root.web.dyn"],
                "runningApps": 1, **PARENT_POLICIES,
                "children": [
                    # A dynamic queue (not configured) is shown while it has usage.
                    {"queuename": "root.web.dyn", "status": "Active", "partition": "default",
                     "allocatedResource": {"memory": 5},
                     "isLeaf": True, "isManaged": False, "parent": "root.web",
                     "runningApps": 1, **LEAF_POLICIES},
                ],
            },
        ],
    }


def test_an_idle_queue_omits_empty_fields_but_keeps_running_apps(viewer_token, active_tree):
    tree = viewer_token.get("/ws/v1/partition/gpu/queues").json()

    assert tree == {
        "queuename": "root", "status": "Active", "partition": "gpu",
        "isLeaf": False, "isManaged": True, "childNames": ["root.training"], "runningApps": 0,
        **PARENT_POLICIES,
        "children": [{
            "queuename": "root.training", "status": "Active", "partition": "gpu",
            "isLeaf": True, "isManaged": True, "parent": "root", "runningApps": 0,
            **LEAF_POLICIES,
        }],
    }


def test_queue_tree_takes_limits_from_the_active_version_even_if_an_engine_lags(
    db, viewer_token
):
    # The database moves to a version while no engine is loaded (a management command), then
    # the engines come up from an older text: the tree still shows what the version says.
    config_apply(yaml_text=TREE_YAML, author=None, base_version=None)
    gateway = engines_load(yaml_text=SMALL_YAML)
    allocate(gateway, queue="root.eng", app="app-1", user="carol", memory=GiB)

    eng = viewer_token.get("/ws/v1/partition/default/queues").json()["children"][0]

    assert eng["maxResource"] == {"memory": 100 * GiB, "vcore": 100_000, "nvidia.com/gpu": 0}
    assert eng["guaranteedResource"] == {"memory": 10 * GiB, "vcore": 500}
    assert eng["maxRunningApps"] == 10
    assert eng["allocatedResource"] == {"memory": GiB}


def test_without_a_stored_version_the_tree_shows_the_engines_own_limits(viewer_token, db):
    gateway = engines_load(yaml_text=TREE_YAML)
    allocate(gateway, queue="root.eng", app="app-1", user="carol", memory=GiB)

    eng = viewer_token.get("/ws/v1/partition/default/queues").json()["children"][0]

    assert eng["maxResource"] == {"memory": 100 * GiB, "vcore": 100_000, "nvidia.com/gpu": 0}
    assert eng["maxRunningApps"] == 10
    assert eng["allocatedResource"] == {"memory": GiB}


def test_users_are_sorted_with_yunikorn_field_names_and_omissions(viewer_token, busy):
    users = viewer_token.get("/ws/v1/partition/default/usage/users").json()

    assert [user["userName"] for user in users] == ["alice", "bob", ODD_USER]
    alice, bob, _ = users
    assert alice == {
        "userName": "alice",
        "groups": {"app-1": "ml", "app-2": "ml"},
        "queues": {
            "queuePath": "root",
            "resourceUsage": {"memory": 31 * GiB, "vcore": 2000},
            "runningApplications": ["app-1", "app-2"],
            "children": [{
                "queuePath": "root.eng",
                "resourceUsage": {"memory": 31 * GiB, "vcore": 2000},
                "runningApplications": ["app-1", "app-2"],
                "maxResources": {"memory": 40 * GiB, "vcore": 20_000},
                "maxApplications": 4,
            }],
        },
    }
    # bob's app counts against no group: "groups" is left out, not empty.
    assert "groups" not in bob
    assert bob["queues"]["children"][0]["maxResources"] == {"memory": 20 * GiB, "vcore": 10_000}


def test_groups_are_sorted_and_omit_what_is_empty(viewer_token, busy):
    groups = viewer_token.get("/ws/v1/partition/default/usage/groups").json()

    assert groups == [{
        "groupName": "ml",
        "applications": ["app-1", "app-2"],
        "queues": {
            "queuePath": "root",
            "resourceUsage": {"memory": 31 * GiB, "vcore": 2000},
            "runningApplications": ["app-1", "app-2"],
            "children": [{
                "queuePath": "root.eng",
                "resourceUsage": {"memory": 31 * GiB, "vcore": 2000},
                "runningApplications": ["app-1", "app-2"],
                "maxResources": {"memory": 60 * GiB},
                "maxApplications": 6,
            }],
        },
    }]


def test_no_usage_gives_empty_arrays_never_null(viewer_token, active_tree):
    assert viewer_token.get("/ws/v1/partition/gpu/usage/users").json() == []
    assert viewer_token.get("/ws/v1/partition/gpu/usage/groups").json() == []


def test_a_named_limit_is_listed_without_usage(viewer_token, active_tree):
    # alice and group ml have limits of their own, so their trackers exist before any usage.
    alice = viewer_token.get("/ws/v1/partition/default/usage/user/alice").json()
    assert alice == {
        "userName": "alice",
        "queues": {"queuePath": "root", "children": [{
            "queuePath": "root.eng", "maxResources": {"memory": 40 * GiB, "vcore": 20_000},
            "maxApplications": 4,
        }]},
    }
    ml = viewer_token.get("/ws/v1/partition/default/usage/group/ml").json()
    assert ml["groupName"] == "ml"
    assert "applications" not in ml


def test_one_user_equals_its_entry_in_the_list(viewer_token, busy):
    users = viewer_token.get("/ws/v1/partition/default/usage/users").json()
    bob = viewer_token.get("/ws/v1/partition/default/usage/user/bob")

    assert bob.status_code == 200
    assert bob.json() == users[1]


def test_a_user_name_with_slash_at_hash_and_colon_is_reachable_percent_encoded(viewer_token, busy):
    response = viewer_token.get(f"/ws/v1/partition/default/usage/user/{ODD_USER_ESCAPED}")

    assert response.status_code == 200
    assert response.json()["userName"] == ODD_USER
    assert response.json()["queues"]["children"][0]["children"][0]["queuePath"] == "root.web.dyn"


def test_an_unknown_but_valid_odd_user_name_is_not_found(viewer_token, active_tree):
    response = viewer_token.get(f"/ws/v1/partition/default/usage/user/{ODD_USER_ESCAPED}")

    assert response.status_code == 404
    assert response.json()["message"] == "User not found"


def test_the_default_partition_name_is_case_insensitive(viewer_token, busy):
    response = viewer_token.get("/ws/v1/partition/DEFAULT/usage/user/bob")

    assert response.status_code == 200
    assert response.json()["userName"] == "bob"


def test_config_is_the_active_yaml_as_written(viewer_token, active_tree):
    response = viewer_token.get("/ws/v1/config")

    assert response.status_code == 200
    assert response["Content-Type"] == "text/yaml; charset=utf-8"
    assert response.content.decode() == TREE_YAML


@pytest.mark.parametrize("accept", ["application/yaml", "application/x-yaml"])
def test_config_in_the_other_yaml_types_on_request(viewer_token, active_tree, accept):
    response = viewer_token.get("/ws/v1/config", HTTP_ACCEPT=accept)

    assert response.status_code == 200
    assert response["Content-Type"].startswith(accept)
    assert response.content.decode() == TREE_YAML


def test_config_as_json_is_the_parsed_document(viewer_token, active_tree):
    response = viewer_token.get("/ws/v1/config", HTTP_ACCEPT="application/json")

    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/json")
    document = response.json()
    assert [p["name"] for p in document["partitions"]] == ["default", "gpu"]
    root = document["partitions"][0]["queues"][0]
    assert root["name"] == "root"
    eng = root["queues"][0]
    assert eng["maxapplications"] == 10
    assert eng["resources"] == yaml.safe_load(TREE_YAML)["partitions"][0]["queues"][0][
        "queues"][0]["resources"]
    assert [limit["limit"] for limit in eng["limits"]] == ["alice", "everyone else", "ml group"]


def test_config_follows_the_active_version(viewer_token, active_tree):
    config_apply(yaml_text=SMALL_YAML, author=None, base_version=1)

    assert viewer_token.get("/ws/v1/config").content.decode() == SMALL_YAML


def test_reads_answer_head_too(viewer_token, busy):
    response = viewer_token.head("/ws/v1/partition/default/usage/users")

    assert response.status_code == 200
    assert response.content == b""
