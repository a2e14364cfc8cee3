"""An edit made where it lands (``quotaweb.config.localised``) equals the same edit made the
whole way (``services.model_edited``: the whole document edited, written, judged and compiled
from scratch): the same verdict, the same errors, the same stored text, the same model and the
same compiled engine state, for random edits on random valid configurations."""

from __future__ import annotations

import dataclasses

from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

from quotaweb.config import edits
from quotaweb.config.changes import config_changes
from quotaweb.config.documents import config_document
from quotaweb.config.localised import edit_localised, put_localised
from quotaweb.config.services import model_edited
from trackers.config import parse_config, read_config, write_yaml
from trackers.config.localised import (
    locally_valid,
    partition_changes,
    read_config_beside,
    shared_with,
)
from trackers.config.model import Config, Queue
from trackers.ugm import compile_config
from trackers.ugm.limits import LimitTable

USERS = [f"user{n}" for n in range(8)]
GROUPS = [f"team{n}" for n in range(6)]


def _limits(draw, depth: int) -> list[dict]:
    """Entries whose caps shrink with depth (so the hierarchical rules hold), named users and
    groups distinct within the queue, wildcards after the names (L4, L7, L8)."""
    users = draw(st.lists(st.sampled_from(USERS), unique=True, max_size=3))
    groups = draw(st.lists(st.sampled_from(GROUPS), unique=True, max_size=2))
    memory = 400 - 80 * depth
    apps = 500 - 100 * depth
    out = [
        {"users": [user], "maxresources": {"memory": f"{memory - n}Gi"},
         "maxapplications": apps - n}
        for n, user in enumerate(users)
    ]
    if draw(st.booleans()):
        out.append({"users": ["*"], "maxresources": {"memory": f"{memory}Gi"},
                    "maxapplications": apps})
    if groups:
        out.append({"groups": groups, "maxapplications": apps})
        if draw(st.booleans()):
            out.append({"groups": ["*"], "maxapplications": apps})
    return out


@st.composite
def configs(draw) -> str:
    """A valid document of up to four levels below the root, written as ``write_yaml`` writes
    the model (the layout every version after the first edit has)."""
    counter = iter(range(10**6))

    def queue(name: str, depth: int, capped: bool = False) -> dict:
        node: dict = {"name": name}
        # Below a queue with an applications cap every queue needs one (A2).
        capped = capped or bool(depth and draw(st.booleans()))
        if capped:
            node["maxapplications"] = 1000 - 100 * depth
        if depth and draw(st.booleans()):
            node["resources"] = {"max": {"memory": f"{500 - 80 * depth}Gi", "vcore": "100"}}
        limits = _limits(draw, depth)
        if limits:
            node["limits"] = limits
        if depth < 4:
            width = draw(st.integers(0 if depth else 1, 3 if depth else 4))
            if width:
                node["queues"] = [
                    queue(f"q{next(counter)}", depth + 1, capped) for _ in range(width)
                ]
        return node

    document = {"partitions": [{"name": "default", "queues": [queue("root", 0)]}]}
    model, errors = read_config(write_yaml(document))
    assume(model is not None and not errors)
    return write_yaml(config_document(model))


def _queues(model: Config) -> list[Queue]:
    return [queue for queue in model.partitions[0].queues() if queue.path != "root"]


QUANTITIES = st.sampled_from(["1Gi", "50Gi", "90Gi", "200Gi", "900Gi", "abc", "-1Gi", "0"])


@st.composite
def records(draw, model: Config) -> edits.Record:
    queue = draw(st.sampled_from(_queues(model)))
    where = {"partition": "default", "queue_path": queue.path}
    kinds = ["queue_update", "limit_create", "queue_create"]
    if queue.limits:
        kinds += ["limit_update", "limit_delete", "limit_move"]
    if not queue.children:
        kinds.append("queue_delete")
    kind = draw(st.sampled_from(kinds))
    if kind == "queue_update":
        field = draw(st.sampled_from(["max", "guaranteed", "max_applications"]))
        if field == "max_applications":
            value = draw(st.sampled_from([0, 1, 50, 300, 5000]))
        else:
            value = draw(st.dictionaries(st.sampled_from(["memory", "vcore"]), QUANTITIES,
                                         max_size=2))
        return edits.edit_record(kind, **where, values={field: value})
    if kind == "queue_create":
        values = {"name": draw(st.sampled_from(["new", "Other", "q1", "bad name"]))}
        return edits.edit_record(
            kind, partition="default", parent_path=queue.path, values=values
        )
    if kind == "queue_delete":
        return edits.edit_record(kind, **where)
    values = draw(st.fixed_dictionaries({}, optional={
        "users": st.lists(st.sampled_from([*USERS, "*", "Bad User"]), max_size=2),
        "groups": st.lists(st.sampled_from([*GROUPS, "*"]), max_size=2),
        "max_resources": st.dictionaries(st.just("memory"), QUANTITIES, max_size=1),
        "max_applications": st.sampled_from([0, 1, 99, 450, 100000]),
    }))
    if kind == "limit_create":
        return edits.edit_record(kind, **where, values=values)
    index = draw(st.integers(0, len(queue.limits) - 1))
    if kind == "limit_update":
        return edits.edit_record(kind, **where, index=index, values=values)
    if kind == "limit_delete":
        return edits.edit_record(kind, **where, index=index)
    to_index = draw(st.integers(0, len(queue.limits) - 1))
    return edits.edit_record(kind, **where, index=index, to_index=to_index)


def table_dump(table: LimitTable) -> dict:
    """Everything a compiled table holds, in its order."""
    return {
        "queues": list(table.queues.items()),
        "levels": [(path, dataclasses.asdict(level)) for path, level in table.levels.items()],
        "users": list(table.named_user_paths.items()),
        "groups": list(table.named_group_paths.items()),
    }


def _compiled_alike(old: Config, new: Config) -> None:
    previous = compile_config(old.partitions[0])
    fresh = compile_config(new.partitions[0])
    derived = compile_config(new.partitions[0], previous=previous)
    assert table_dump(derived.table) == table_dump(fresh.table)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                   HealthCheck.filter_too_much])
@given(data=st.data())
def test_an_edit_made_where_it_lands_equals_the_whole_path(data):
    text = data.draw(configs())
    model = parse_config(text)
    record = data.draw(records(model))

    whole_model, whole_text, whole_errors = model_edited(
        model=model, edits=[edits.edit_from_record(record)], elastic=()
    )
    local = edit_localised(text=text, model=model, record=record, elastic=())
    event("made where it lands" if local is not None else "made the whole way")

    if local is not None:
        assert whole_errors == []
        assert local[1] == whole_text
        assert local[0] == whole_model
        _compiled_alike(model, local[0])
    if whole_model is None:
        return
    # The review lists the changes by identity where the models share subtrees (as an edit made
    # where it lands leaves them), the same as between models that share nothing.
    if not whole_errors:
        shared_root = shared_with(model.partitions[0].root, whole_model.partitions[0].root)
        shared = dataclasses.replace(
            whole_model,
            partitions=(dataclasses.replace(whole_model.partitions[0], root=shared_root),),
        )
        assert config_changes(old=model, new=shared) == config_changes(
            old=parse_config(text), new=parse_config(whole_text)
        )
    # A document put whole (a PUT, a rollback) is read where it differs, or judged beside the
    # active one: the same verdict, errors and model as from scratch.
    from_scratch = read_config(whole_text)
    assert read_config_beside(whole_text, active=model) == from_scratch
    put = put_localised(old_text=text, new_text=whole_text, model=model)
    event("put read where it differs" if put is not None else "put read whole")
    if put is not None:
        assert from_scratch == (put, [])
    changes = partition_changes(model.partitions[0], whole_model.partitions[0])
    assert changes is not None
    if "root" not in changes.own:
        assert locally_valid(
            model.partitions[0], whole_model.partitions[0], changes
        ) == (whole_errors == [])
    if not whole_errors:
        _compiled_alike(model, whole_model)


def test_one_value_edits_of_a_leaf_are_made_where_they_land():
    """Not a vacuous property: the edits the API makes most go the localised way."""
    text = write_yaml(config_document(parse_config(
        "partitions:\n- name: default\n  queues:\n  - name: root\n    queues:\n"
        "    - name: a\n      resources:\n        max:\n          memory: 100Gi\n"
        "      limits:\n      - users: [alice]\n        maxapplications: 5\n"
        "      queues:\n      - name: b\n        limits:\n        - users: [bob]\n"
        "          maxapplications: 3\n"
        "    - name: c\n"
    )))
    model = parse_config(text)
    for record in (
        edits.edit_record("queue_update", partition="default", queue_path="root.a",
                          values={"max": {"memory": "90Gi"}}),
        edits.edit_record("limit_update", partition="default", queue_path="root.a", index=0,
                          values={"max_applications": 4}),
        edits.edit_record("limit_create", partition="default", queue_path="root.c",
                          values={"groups": ["devs"], "max_applications": 3}),
    ):
        local = edit_localised(text=text, model=model, record=record, elastic=())
        assert local is not None, record
        whole_model, whole_text, errors = model_edited(
            model=model, edits=[edits.edit_from_record(record)], elastic=()
        )
        assert (errors, local[1], local[0]) == ([], whole_text, whole_model)
        # Every queue but the edited one and its ancestors is the very object it was.
        untouched = 1 if record["args"]["queue_path"] == "root.a" else 0
        assert (
            local[0].partitions[0].root.children[untouched]
            is model.partitions[0].root.children[untouched]
        )


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                   HealthCheck.filter_too_much])
@given(data=st.data())
def test_a_draft_of_edits_made_where_they_land_equals_the_whole_path(data):
    """A staged draft: each edit made where it lands on the one before's model and text."""
    text = data.draw(configs())
    model = parse_config(text)
    first = data.draw(records(model))
    local = edit_localised(text=text, model=model, record=first, elastic=())
    assume(local is not None)
    second = data.draw(records(local[0]))
    both = edit_localised(text=local[1], model=local[0], record=second, elastic=())
    event("made where it lands" if both is not None else "made the whole way")
    if both is None:
        return
    whole_model, whole_text, whole_errors = model_edited(
        model=model, edits=[edits.edit_from_record(first), edits.edit_from_record(second)],
        elastic=(),
    )
    assert (whole_errors, both[1], both[0]) == ([], whole_text, whole_model)
    _compiled_alike(model, both[0])
    put = put_localised(old_text=text, new_text=whole_text, model=model)
    assert put is None or put == whole_model
