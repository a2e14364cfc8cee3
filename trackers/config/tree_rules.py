"""Rules between a queue and its ancestors: queue maxapplications (A1, A2) and the hierarchical
user/group limits (H1-H4), spec 1.4 steps 9-11."""

from __future__ import annotations

from trackers.config import messages
from trackers.config.model import Queue
from trackers.config.report import Report
from trackers.config.resource_rules import at_fault
from trackers.config.scope import Scope
from trackers.names import WILDCARD, WILDCARD_SHOWN
from trackers.resources import component_min, fits_within, go_format


def check_max_applications(scope: Scope) -> None:
    """A1/A2, direct parent/child pairs only, each child checked before its own children."""
    stack: list[Queue] = [scope.root]
    while stack:
        parent = stack.pop()
        check_child_apps(scope, parent)
        stack.extend(reversed(parent.children))


def check_child_apps(scope: Scope, parent: Queue) -> None:
    """A1/A2 between ``parent`` and each of its children."""
    cap = parent.max_applications
    if not cap:
        return
    for child in parent.children:
        field = f"{scope.queue_field(child)}.maxapplications"
        if child.max_applications > cap:
            scope.add(
                "A1", child.path, field, messages.CHILD_APPS_ABOVE_PARENT,
                messages.DETAIL_CHILD_APPS_ABOVE_PARENT.format(
                    child_apps=child.max_applications, parent_apps=cap, parent=parent.path,
                ),
            )
        elif child.max_applications == 0:
            scope.add(
                "A2", child.path, field, messages.CHILD_APPS_UNSET,
                messages.DETAIL_CHILD_APPS_UNSET.format(parent=parent.path, parent_apps=cap),
            )


# name -> what the nearest ancestor that named it passes down.
_Resources = dict[str, dict[str, int]]
_Apps = dict[str, int]
# One entry per kind ("user", "group"): (resources, apps) inherited from above.
_Inherited = dict[str, tuple[_Resources, _Apps]]


EMPTY_INHERITED: _Inherited = {"user": ({}, {}), "group": ({}, {})}


def check_hierarchical_limits(
    scope: Scope, start: Queue | None = None, inherited: _Inherited | None = None
) -> None:
    """H1/H2 (resources) then H3/H4 (maxapplications) in one walk down from ``start`` (the root
    by default), which inherits ``inherited`` from its ancestors (``inherited_below``).

    Two reports keep the spec's order (every resource error before any app error) in one pass.
    A name is compared only with the same name (or the wildcard) at ancestors, never with names in
    its own queue, which is why lookups use the parent's values and writes go to a copy.
    """
    resource_errors = Report()
    app_errors = Report()
    stack: list[tuple[Queue, _Inherited]] = [
        (start or scope.root, inherited or EMPTY_INHERITED)
    ]
    while stack:
        queue, above = stack.pop()
        passed = _passed_down(scope, queue, above, resource_errors, app_errors)
        stack.extend((child, passed) for child in reversed(queue.children))
    scope.report.errors.extend(resource_errors.errors)
    scope.report.errors.extend(app_errors.errors)


def inherited_below(scope: Scope, ancestors: list[Queue]) -> _Inherited:
    """What the walk passes to the child of the last of ``ancestors`` (the root first)."""
    passed = EMPTY_INHERITED
    for queue in ancestors:
        passed = _passed_down(scope, queue, passed, Report(), Report())
    return passed


def _passed_down(
    scope: Scope, queue: Queue, inherited: _Inherited, resource_errors: Report,
    app_errors: Report,
) -> _Inherited:
    limits = scope.limits(queue)
    if not limits:
        return inherited
    passed = {kind: (dict(res), dict(apps)) for kind, (res, apps) in inherited.items()}
    base = scope.limits_field(queue)
    for index, limit in enumerate(limits):
        new_res = scope.limit_caps(limit)
        for kind, names, key in (
            ("user", limit.users, "users"),
            ("group", limit.groups, "groups"),
        ):
            above_res, above_apps = inherited[kind]
            down_res, down_apps = passed[kind]
            for n, name in enumerate(names):
                field = f"{base}[{index}].{key}[{n}]"
                if new_res is not None:
                    _check_resources(
                        resource_errors, queue, kind, name, field, new_res, above_res, down_res,
                    )
                _check_apps(
                    app_errors, queue, kind, name, field, limit.max_applications, above_apps,
                    down_apps,
                )
    return passed


def _named(kind: str, name: str) -> dict[str, str]:
    """A detail's ``who`` and ``name``: "user bob" and "bob", or "everyone (*)" twice."""
    if name == WILDCARD:
        return {"who": WILDCARD_SHOWN, "name": WILDCARD_SHOWN}
    return {"who": f"{kind} {name}", "name": name}


def _check_resources(
    report: Report,
    queue: Queue,
    kind: str,
    name: str,
    field: str,
    new: dict[str, int],
    above: _Resources,
    down: _Resources,
) -> None:
    code = "H1" if kind == "user" else "H2"
    inherited = above.get(name)
    if inherited is not None:
        if not fits_within(new, inherited):
            report.add(
                code, queue.path, field,
                messages.NAME_RESOURCES_ABOVE_ANCESTOR.format(
                    kind=kind, name=name, new=go_format(new), queue=queue.name,
                    inherited=go_format(inherited),
                ),
                messages.DETAIL_NAME_RESOURCES_ABOVE_ANCESTOR.format(
                    **_named(kind, name), **at_fault(new, inherited, "new", "inherited")
                ),
            )
        down[name] = component_min(new, inherited) or {}
        return
    wildcard = above.get(WILDCARD) if name != WILDCARD else None
    if wildcard is not None and not fits_within(new, wildcard):
        report.add(
            code, queue.path, field,
            messages.NAME_RESOURCES_ABOVE_WILDCARD.format(
                kind=kind, name=name, new=go_format(new), queue=queue.name,
                inherited=go_format(wildcard),
            ),
            messages.DETAIL_NAME_RESOURCES_ABOVE_WILDCARD.format(
                **_named(kind, name), **at_fault(new, wildcard, "new", "inherited")
            ),
        )
    down[name] = new


def _check_apps(
    report: Report,
    queue: Queue,
    kind: str,
    name: str,
    field: str,
    new: int,
    above: _Apps,
    down: _Apps,
) -> None:
    code = "H3" if kind == "user" else "H4"
    if name in above:
        cap = above[name]
        template = messages.NAME_APPS_ABOVE_ANCESTOR
    elif name != WILDCARD and WILDCARD in above:
        cap = above[WILDCARD]
        template = messages.NAME_APPS_ABOVE_WILDCARD
    else:
        cap = 0
        template = ""
    # Once an ancestor caps apps for a name, every deeper limit for it must cap them too.
    if cap and (new == 0 or new > cap):
        through = "" if template is messages.NAME_APPS_ABOVE_ANCESTOR else (
            messages.DETAIL_THROUGH_WILDCARD
        )
        detail = messages.DETAIL_NAME_APPS_UNSET if new == 0 else messages.DETAIL_NAME_APPS_ABOVE
        report.add(
            code, queue.path, field,
            template.format(kind=kind, name=name, new=new, queue=queue.name, inherited=cap),
            detail.format(**_named(kind, name), new=new, inherited=cap, through=through),
        )
    down[name] = new
