"""A refusal's ``detail`` names only the resources that go above, not every resource of the
limit: "memory 64 GiB, nvidia.com/gpu 2, 32 vcore" hid that only vcore had to change."""

from tests.trackers.config_docs import errors, limit, queue, root
from tests.trackers.test_resource_rules import res


def _details(text: str) -> dict[str, str]:
    return {error["code"]: error.get("detail", "") for error in errors(text)}


def test_a_child_max_names_only_the_resource_above_its_parent():
    text = root(queue(
        "p",
        queue("c", resources=res(maximum={"memory": "1G", "vcore": "80", "nvidia.com/gpu": "2"})),
        resources=res(maximum={"memory": "2G", "vcore": "50", "nvidia.com/gpu": "4"}),
    ))
    assert _details(text)["R2"] == (
        "max (80 vcore) is above the tightest max of the queues above (50 vcore)"
    )


def test_a_named_limit_above_the_wildcard_names_only_the_resource_at_fault():
    text = root(queue(
        "p",
        queue("c", limits=[limit(users=["eve"], maxresources={
            "memory": "1G", "vcore": "40", "nvidia.com/gpu": "2"})]),
        limits=[limit(users=["*"], maxresources={"memory": "2G", "vcore": "32",
                                                 "nvidia.com/gpu": "2"})],
    ))
    assert _details(text)["H1"] == (
        "user eve gets max resources 40 vcore here, more than the 32 vcore the wildcard limit of "
        "a queue above allows"
    )


def test_guaranteed_above_max_names_only_the_resource_above():
    text = root(queue("a", resources=res(
        guaranteed={"memory": "1G", "vcore": "8"}, maximum={"memory": "2G", "vcore": "4"},
    )))
    assert _details(text)["R1"] == "guaranteed (8 vcore) is above this queue's max (4 vcore)"
