"""A failure anywhere in an apply leaves the database and the engines on the old version."""

import pytest

from quotaweb.config import rows, services
from quotaweb.config.models import ActiveConfig, ConfigVersion, LimitEntry
from quotaweb.engine import gateway as gateway_module
from tests.config_rows import config_from_rows
from trackers import Engine, compile_config, parse_config

# Both partitions change, so a failure at the second one must undo the first.
TIGHTER = {
    "default": ("maxapplications: 200", "maxapplications: 190"),
    "gpu": (
        "max: {memory: 512Gi, vcore: 128, nvidia.com/gpu: 32}",
        "max: {memory: 512Gi, vcore: 96, nvidia.com/gpu: 32}",
    ),
}


def _tighter(sample_yaml: str) -> str:
    text = sample_yaml
    for old, new in TIGHTER.values():
        assert text.count(old) == 1
        text = text.replace(old, new)
    return text


def _limits(gateway) -> dict:
    return {
        name: (gateway.version(name), gateway.users_usage(name), gateway.queues_usage(name))
        for name in gateway.partitions()
    }


def _assert_still_version_one(gateway, before, sample_yaml):
    assert ConfigVersion.objects.count() == 1
    assert ActiveConfig.objects.get().version_id == 1
    assert config_from_rows() == parse_config(sample_yaml)
    assert _limits(gateway) == before


@pytest.mark.django_db
def test_an_engine_that_refuses_the_config_rolls_everything_back(
    active_sample, sample_yaml, monkeypatch
):
    before = _limits(active_sample)

    def refuse_gpu(partition, *, previous=None):
        if partition.name == "gpu":
            raise RuntimeError("engine failure")
        return compile_config(partition, previous=previous)

    monkeypatch.setattr(gateway_module, "compile_config", refuse_gpu)

    with pytest.raises(RuntimeError, match="engine failure"):
        services.config_apply(yaml_text=_tighter(sample_yaml), author=None, base_version=1)

    _assert_still_version_one(active_sample, before, sample_yaml)


@pytest.mark.django_db
def test_a_failure_while_writing_rows_changes_nothing(active_sample, sample_yaml, monkeypatch):
    before = _limits(active_sample)
    original = rows._partition_row_update

    # The gpu partition is written after default's rows were already changed.
    def fail_on_gpu(*, row, old, new, order):
        if new.name == "gpu":
            raise RuntimeError("disk full")
        original(row=row, old=old, new=new, order=order)

    monkeypatch.setattr(rows, "_partition_row_update", fail_on_gpu)

    with pytest.raises(RuntimeError, match="disk full"):
        services.config_apply(yaml_text=_tighter(sample_yaml), author=None, base_version=1)

    _assert_still_version_one(active_sample, before, sample_yaml)


@pytest.mark.django_db(transaction=True)
def test_a_failed_commit_never_reaches_the_engines(active_sample, sample_yaml, monkeypatch):
    # A real commit is needed here: a dangling foreign key is only checked when it commits.
    from django.db import IntegrityError

    before = _limits(active_sample)
    original = services.rows_write

    def write_a_dangling_row(*, candidate, current):
        original(candidate=candidate, current=current)
        LimitEntry.objects.bulk_create([LimitEntry(queue_id=10**9, order=0)])

    monkeypatch.setattr(services, "rows_write", write_a_dangling_row)
    installed = []
    monkeypatch.setattr(Engine, "install_config", lambda *args, **kwargs: installed.append(args))

    with pytest.raises(IntegrityError):
        services.config_apply(yaml_text=_tighter(sample_yaml), author=None, base_version=1)

    assert installed == []  # the engines install only what has committed
    _assert_still_version_one(active_sample, before, sample_yaml)


@pytest.mark.django_db
def test_a_draft_whose_apply_fails_is_kept_and_nothing_moves(
    active_sample, sample_yaml, monkeypatch, admin
):
    from quotaweb.config import edits
    from quotaweb.config.models import Draft

    before = _limits(active_sample)
    services.draft_stage(author=admin, record=edits.edit_record(
        "queue_update", partition="default", queue_path="root.research",
        values={"properties": {"owner": "lab"}},
    ))

    def refuse(partition, *, previous=None):
        raise RuntimeError("engine failure")

    monkeypatch.setattr(gateway_module, "compile_config", refuse)
    with pytest.raises(RuntimeError, match="engine failure"):
        services.draft_apply(author=admin, comment="tighter")

    _assert_still_version_one(active_sample, before, sample_yaml)
    assert len(Draft.objects.get(author=admin).edits) == 1
