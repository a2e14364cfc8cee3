"""For any queue tree (names Kubernetes would refuse, one name in several places, quantities of
any size, elastic settings or none), importing the ElasticQuota export gives back the same
queues: export and import are inverses on what a partition holds (hypothesis)."""

from __future__ import annotations

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quotaweb.config.edits import queues_replace
from quotaweb.config.elasticquota import elasticquota_export, elasticquota_read
from quotaweb.config.selectors import active_version_number
from quotaweb.config.services import config_apply, config_edit
from tests.config.elasticquota_support import active_queues

NAMES = st.text("abAB_-@:9", min_size=1, max_size=8)
KINDS = ("vcore", "memory", "nvidia.com/gpu")


@st.composite
def queue(draw, *, depth: int, cap: dict[str, int] | None) -> dict:
    """A queue document under a parent whose max is ``cap`` (children never above it)."""
    out: dict = {}
    maximum = {}
    for kind in draw(st.sets(st.sampled_from(KINDS), max_size=3)):
        high = (cap or {}).get(kind, 10**15)
        maximum[kind] = draw(st.integers(0, high))
    children = []
    if depth > 0:
        names = draw(st.lists(NAMES, max_size=3, unique_by=str.lower))
        below = {**(cap or {}), **maximum}
        children = [{"name": name, **draw(queue(depth=depth - 1, cap=below))} for name in names]
    resources: dict = {}
    if maximum:
        resources["max"] = {kind: str(value) for kind, value in maximum.items()}
    if not children:
        guaranteed = {kind: draw(st.integers(0, value)) for kind, value in maximum.items()
                      if draw(st.booleans())}
        if guaranteed:
            resources["guaranteed"] = {kind: str(value) for kind, value in guaranteed.items()}
    if resources:
        out["resources"] = resources
    properties = {}
    if draw(st.booleans()):
        properties["elastic.allow-lent"] = "false"
    if maximum and draw(st.booleans()):
        properties["elastic.shared-weight"] = ",".join(
            f"{kind}={draw(st.integers(1, 1000))}" for kind in maximum
        )
    if draw(st.booleans()):
        properties["team"] = draw(st.text("xyz ,", max_size=5))
    if properties:
        out["properties"] = properties
    if children:
        out["queues"] = children
    elif draw(st.booleans()):
        out["parent"] = True
    return out


@pytest.mark.django_db
@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(queue(depth=3, cap=None))
def test_import_of_the_export_gives_the_same_queues(root):
    # The root takes no resources and is a parent anyway; its children were drawn below the
    # max it would have had.
    root = {key: value for key, value in root.items() if key not in ("resources", "parent")}
    document = {"partitions": [{"name": "default", "queues": [{"name": "root", **root}]}]}
    config_apply(yaml_text=yaml.safe_dump(document), author=None,
                 base_version=active_version_number())
    before = active_queues()

    exported = elasticquota_export(partition="default")
    imported = elasticquota_read(partition="default", text=exported)
    # Replace the tree with nothing first, so the import has to build every queue again.
    config_edit(edits=[queues_replace(partition="default", queues=[])], author=None,
                base_version=active_version_number())
    config_edit(edits=[imported.edit()], author=None, base_version=active_version_number())

    assert active_queues() == before
