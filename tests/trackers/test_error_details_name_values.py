"""The ``detail`` of an error says in plain words which values were compared, in human units.

``message`` keeps YuniKorn's text (checked elsewhere); a form shows ``detail`` next to the field.
"""

import pytest

from tests.trackers.config_docs import errors, limit, queue, root
from tests.trackers.test_resource_rules import res


def details(text: str) -> list[tuple[str, str]]:
    return [(error["code"], error.get("detail", "")) for error in errors(text)]


def test_limit_caps_nothing_names_the_entry_by_position_when_it_has_no_description():
    text = root(queue("a", limits=[limit(users=["u"], maxapplications=1), limit(users=["v"])]))
    assert details(text) == [
        ("L10", "limit #2 caps nothing: give it max resources above zero or max applications")
    ]


def test_limit_apps_above_queue_names_both_numbers():
    text = root(queue("a", maxapplications=5, limits=[limit(limit="big", users=["bob"],
                                                             maxapplications=9)]))
    assert details(text) == [
        ("L11", "max applications 9 of limit 'big' is above this queue's max applications 5")
    ]


def test_limit_resources_above_queue_names_both_in_human_units():
    text = root(queue(
        "a", resources=res(maximum={"memory": "10G", "vcore": "4"}),
        limits=[limit(limit="team", users=["bob"], maxresources={"memory": "20G"})],
    ))
    assert details(text) == [
        ("L12", "max resources of limit 'team' (memory 18.6 GiB) go above this queue's max "
                "(memory 9.3 GiB)")
    ]


def test_named_limit_above_the_same_name_higher_up():
    text = root(queue(
        "p", queue("c", limits=[limit(users=["bob"], maxresources={"memory": "2G"})]),
        limits=[limit(users=["bob"], maxresources={"memory": "1G", "vcore": "2"})],
    ))
    assert details(text) == [
        ("H1", "user bob gets max resources memory 1.9 GiB here, more than the memory 953.7 MiB "
               "a limit of a queue above allows for bob")
    ]


def test_named_limit_above_a_wildcard_higher_up():
    text = root(queue(
        "p", queue("c", limits=[limit(groups=["ml"], maxresources={"vcore": "8"})]),
        limits=[limit(groups=["eng"], maxapplications=1),
                limit(groups=["*"], maxresources={"vcore": "4"})],
    ))
    assert details(text) == [
        ("H2", "group ml gets max resources 8 vcore here, more than the 4 vcore the wildcard "
               "limit of a queue above allows")
    ]


@pytest.mark.parametrize(
    ("apps", "detail"),
    [
        (7, "user bob gets max applications 7 here, more than the 3 a queue above allows "
            "(through its wildcard limit)"),
        (None, "user bob has no max applications here, but a queue above caps it at 3 "
               "(through its wildcard limit): set a value from 1 to 3"),
    ],
)
def test_named_apps_against_a_wildcard_higher_up(apps, detail):
    fields = {"maxapplications": apps} if apps else {"maxresources": {"memory": "1G"}}
    text = root(queue(
        "p", queue("c", limits=[limit(users=["bob"], **fields)]),
        limits=[limit(users=["*"], maxapplications=3)],
    ))
    assert details(text) == [("H3", detail)]


def test_rules_without_compared_values_have_no_detail():
    text = root(queue("a", limits=[limit(users=["bad name!"], maxapplications=1)]))
    (error,) = errors(text)
    assert error["code"] == "L2"
    assert "detail" not in error


@pytest.mark.parametrize(("field", "kind"), [("users", "H1"), ("groups", "H2")])
def test_the_wildcard_reads_as_everyone_not_as_a_name(field, kind):
    # A group wildcard entry comes after a named group's (rule L8).
    named = [limit(groups=["eng"], maxapplications=1)] if field == "groups" else []
    text = root(queue(
        "p", queue("c", limits=[*named, limit(**{field: ["*"]}, maxresources={"vcore": "24"})]),
        limits=[*named, limit(**{field: ["*"]}, maxresources={"vcore": "16"})],
    ))
    assert details(text) == [
        (kind, "everyone (*) gets max resources 24 vcore here, more than the 16 vcore a limit "
               "of a queue above allows for everyone (*)")
    ]
