"""The steps say the plain integers the trees count in (the spec's ``cpu 2+1 > 2``) unless the
manager's owner gives a ``quantity`` writer: then every amount of a step is written by it, also
after the tree is rebuilt from a new version. The library knows no unit; its owner does."""

from __future__ import annotations

from tests.trackers.quotatree.support import consumer, example_tree
from trackers.quotatree import QuotaManager

T = "ExampleTree"


def _millicores(resource: str, amount: int) -> str:
    return f"{amount / 1000:g} {resource}s"


def _steps(manager: QuotaManager) -> list[str]:
    manager.allocate(T, consumer("a", T, "N", 2))
    return manager.allocate(T, consumer("b", T, "N", 1)).steps


def test_without_a_writer_the_steps_say_plain_integers():
    manager = QuotaManager()
    manager.add_tree(example_tree())

    assert _steps(manager) == ["N full (cpu 2+1 > 2)", "placed at H (cpu 2+1 <= 3)"]


def test_a_writer_writes_every_amount_of_the_steps():
    manager = QuotaManager(quantity=_millicores)
    manager.add_tree(example_tree())

    assert _steps(manager) == [
        "N full (cpu 0.002 cpus + 0.001 cpus > 0.002 cpus)",
        "placed at H (cpu 0.002 cpus + 0.001 cpus <= 0.003 cpus)",
    ]


def test_a_rebuilt_tree_keeps_the_writer():
    manager = QuotaManager(quantity=_millicores)
    manager.add_tree(example_tree())
    manager.update_tree(example_tree())

    assert _steps(manager)[0] == "N full (cpu 0.002 cpus + 0.001 cpus > 0.002 cpus)"
