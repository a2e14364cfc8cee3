"""A YuniKorn queues.yaml with several partitions, wildcards and partition-level limits imports,
exports and re-imports to the same model."""

import io

import pytest
import yaml
from django.core.management import call_command

from quotaweb.config.models import ConfigVersion, LimitEntry, Partition, Queue
from quotaweb.config.services import config_apply
from tests.config_rows import config_document_from_rows, config_from_rows
from trackers import dump_config, parse_config

pytestmark = pytest.mark.django_db


def _export(*args) -> str:
    out = io.StringIO()
    call_command("export_config", *args, stdout=out)
    return out.getvalue()


def test_import_export_reimport_gives_the_same_model(yunikorn_yaml, tmp_path):
    original = parse_config(yunikorn_yaml)
    source = tmp_path / "queues.yaml"
    source.write_text(yunikorn_yaml)
    call_command("import_config", str(source), stdout=io.StringIO())

    exported = _export()
    rebuilt = dump_config(config_from_rows())

    assert parse_config(exported) == original
    assert parse_config(rebuilt) == original
    # Equal as data; the order of keys in a map may differ (PostgreSQL's jsonb sorts them).
    assert yaml.safe_load(rebuilt) == yaml.safe_load(dump_config(original))
    # Re-importing what the rows say is the same configuration: no new version.
    again = config_apply(yaml_text=rebuilt, author=None, base_version=1)
    assert again.number == 1
    assert ConfigVersion.objects.count() == 1


def test_the_rows_hold_partitions_queues_and_limits(yunikorn_yaml):
    config_apply(yaml_text=yunikorn_yaml, author=None, base_version=None)

    default, gpu = Partition.objects.all()
    assert (default.name, gpu.name) == ("default", "gpu")
    assert set(default.settings) == {"placementrules", "preemption", "nodesortpolicy"}
    assert default.limits[0]["users"] == ["*"]
    # The loader copies partition limits to the root; the root's rows are what applies.
    root_limits = LimitEntry.objects.filter(queue__partition=default, queue__path="root")
    assert [entry.description for entry in root_limits] == ["everyone at the partition"]
    # The gpu partition had no root written: it was inserted above its two queues.
    assert list(Queue.objects.filter(partition=gpu).values_list("path", flat=True)) == [
        "root", "root.inference", "root.training"
    ]
    users = Queue.objects.get(partition=default, path="root.users")
    assert users.is_parent is True
    assert users.child_template == {
        "maxapplications": 5, "resources": {"max": {"memory": "64Gi", "vcore": "16"}}
    }
    batch = Queue.objects.get(partition=default, path="root.batch")
    assert batch.admin_acl == "ops ops-admins"
    assert batch.guaranteed == {"memory": "100Gi", "vcore": "20"}
    assert [entry.groups for entry in batch.limit_entries.all()] == [[], [], ["etl"], ["*"]]


def test_partition_limits_are_written_once(yunikorn_yaml):
    config_apply(yaml_text=yunikorn_yaml, author=None, base_version=None)

    document = config_document_from_rows()

    default = document["partitions"][0]
    assert default["limits"][0]["limit"] == "everyone at the partition"
    assert "limits" not in default["queues"][0]


def test_export_of_an_older_version(yunikorn_yaml):
    config_apply(yaml_text=yunikorn_yaml, author=None, base_version=None)
    config_apply(
        yaml_text=yunikorn_yaml.replace("maxapplications: 40", "maxapplications: 45"),
        author=None, base_version=1,
    )

    assert _export("--version", "1") == yunikorn_yaml
    assert "maxapplications: 45" in _export()
