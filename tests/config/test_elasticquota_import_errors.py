"""An ElasticQuota import that cannot be taken is refused whole: every problem at once, each
naming the object (namespace/name) and the field at fault, and nothing is staged or applied."""

from __future__ import annotations

import pytest
import yaml
from django.urls import reverse

from quotaweb.config import kube
from quotaweb.config.elasticquota import (
    ANNOTATION_WEIGHT,
    ERR_API_VERSION,
    ERR_CYCLE,
    ERR_DUPLICATE,
    ERR_MIN_ABOVE_MAX,
    ERR_NO_PARENT,
    ERR_NOT_OBJECT,
    ERR_PARENT_NOT_PARENT,
    ERR_QUEUE_NAME,
    LABEL_PARENT,
    elasticquota_read,
)
from quotaweb.config.models import ConfigVersion, Draft
from quotaweb.config.services import ConfigRejected
from tests.config.elasticquota_support import listing, quota

pytestmark = pytest.mark.django_db

PARENT_FIELD = f"metadata.labels[{LABEL_PARENT}]"


def _problems(text: str) -> list[dict[str, str]]:
    with pytest.raises(ConfigRejected) as refused:
        elasticquota_read(partition="default", text=text)
    return refused.value.errors


def _one(text: str) -> dict[str, str]:
    (problem,) = _problems(text)
    return problem


def _names(problem: dict[str, str], ref: str, field: str) -> None:
    """The problem says which object and which field, in its words and in its keys."""
    assert problem["object"] == ref
    assert problem["field"].endswith(field)
    assert ref in problem["message"]
    assert field in problem["message"]


def test_a_parent_that_does_not_exist():
    problem = _one(listing(quota("a", parent="ghost")))
    _names(problem, "team/a", PARENT_FIELD)
    assert ERR_NO_PARENT.format(parent="ghost") in problem["message"]


def test_a_parent_not_marked_is_parent():
    problem = _one(listing(quota("p"), quota("c", parent="p")))
    _names(problem, "team/c", PARENT_FIELD)
    assert ERR_PARENT_NOT_PARENT.format(parent="p") in problem["message"]


def test_a_cycle_of_parents():
    problem = _one(listing(
        quota("x", parent="z", is_parent=True), quota("y", parent="x", is_parent=True),
        quota("z", parent="y", is_parent=True),
    ))
    _names(problem, "team/x", PARENT_FIELD)
    assert ERR_CYCLE.format(cycle="x -> z -> y -> x") in problem["message"]


def test_min_above_max():
    problem = _one(listing(quota("a", spec={"min": {"memory": "2Gi"}, "max": {"memory": "1Gi"}})))
    _names(problem, "team/a", "spec.min.memory")
    assert ERR_MIN_ABOVE_MAX.format(kind="memory", min="2Gi", max="1Gi") in problem["message"]


def test_a_resource_name_quotaweb_cannot_hold():
    problem = _one(listing(quota("a", spec={"max": {"gpu cards": "1"}})))
    _names(problem, "team/a", "spec.max.gpu cards")
    assert kube.ERR_RESOURCE_NAME.format(name="gpu cards") in problem["message"]


@pytest.mark.parametrize(("value", "message"), [
    ("lots", kube.ERR_QUANTITY_FORM.format(value="lots")),
    ("-1", kube.ERR_QUANTITY_NEGATIVE.format(value="-1")),
    ("1.5", kube.ERR_QUANTITY_FRACTION.format(value="1.5", unit="bytes", kind="memory")),
    ("1e30", kube.ERR_QUANTITY_TOO_LARGE.format(
        value="1e30", limit=2**63 - 1, unit="bytes")),
])
def test_a_bad_quantity(value, message):
    problem = _one(listing(quota("a", spec={"max": {"memory": value}})))
    _names(problem, "team/a", "spec.max.memory")
    assert message in problem["message"]


def test_a_bad_shared_weight():
    problem = _one(listing(quota("a", annotations={ANNOTATION_WEIGHT: '{"cpu": "x"}'})))
    _names(problem, "team/a", f"metadata.annotations[{ANNOTATION_WEIGHT}].cpu")


def test_a_name_that_cannot_be_a_queue_name():
    problem = _one(listing(quota("team.a")))
    _names(problem, "team/team.a", "metadata.name")
    assert ERR_QUEUE_NAME.format(value="team.a") in problem["message"]


def test_two_objects_of_one_name():
    problem = _one(listing(quota("a", namespace="one"), quota("a", namespace="two")))
    _names(problem, "two/a", "metadata.name")
    assert ERR_DUPLICATE.format(name="a", other="one/a") in problem["message"]


def test_something_else_than_an_elasticquota():
    text = yaml.safe_dump({"apiVersion": "v1", "kind": "List",
                           "items": [{"apiVersion": "v1", "kind": "Pod"}]})
    (problem,) = _problems(text)
    assert problem["field"] == "items[0]"
    assert ERR_NOT_OBJECT.format(kind="Pod") in problem["message"]


def test_another_api_version():
    bad = quota("a")
    bad["apiVersion"] = "scheduling.x-k8s.io/v1"
    problem = _one(listing(bad))
    _names(problem, "team/a", "apiVersion")
    assert ERR_API_VERSION.format(
        value="scheduling.x-k8s.io/v1", expected="scheduling.sigs.k8s.io/v1alpha1"
    ) in problem["message"]


def test_every_problem_is_reported_at_once():
    problems = _problems(listing(
        quota("a", parent="ghost"),
        quota("b", spec={"min": {"cpu": "2"}, "max": {"cpu": "1", "memory": "1.5"}}),
    ))
    assert [(problem["object"], problem["field"].rpartition(".")[2]) for problem in problems] == [
        ("team/b", "memory"), ("team/b", "cpu"), ("team/a", PARENT_FIELD.rpartition(".")[2]),
    ]


def test_the_page_shows_the_problems_and_stages_nothing(quota_admin_client, active_small):
    text = listing(quota("a", parent="ghost"), quota("b", spec={"max": {"cpu": "1m5"}}))

    response = quota_admin_client.post(
        reverse("config:import-elasticquota"), {"eq-partition": "default", "eq-text": text}
    )

    assert response.status_code == 400
    html = response.content.decode()
    assert "ElasticQuota import: 2 problems, nothing was staged" in html
    assert "(object team/a)" in html
    assert "(object team/b)" in html
    assert not Draft.objects.exists()
    assert ConfigVersion.objects.count() == 1


def test_a_rule_of_the_whole_configuration_names_the_object(quota_admin_client, active_small):
    # Valid objects, but a child's max above its parent's breaks a rule of the hierarchy.
    text = listing(
        quota("p", is_parent=True, spec={"max": {"cpu": "2"}}),
        quota("c", parent="p", spec={"max": {"cpu": "4"}}),
    )

    response = quota_admin_client.post(
        reverse("config:import-elasticquota"), {"eq-partition": "default", "eq-text": text}
    )

    assert response.status_code == 400
    assert "(object team/c)" in response.content.decode()
    assert not Draft.objects.exists()
