"""The recursive queue check: each queue's ACLs (Q1), its limits (L1-L12), then its children's
names (Q2, Q3), parents before children, in document order (spec 1.4 step 5)."""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache

from trackers.config import messages
from trackers.config.model import Limit, Queue
from trackers.config.resource_rules import at_fault
from trackers.config.scope import Scope, parse_quantities
from trackers.names import WILDCARD, is_group_name, is_queue_name, is_user_name
from trackers.resources import fits_within

# The same few thousand names recur across a big config; the regexes need to run once per name.
_user_ok = lru_cache(maxsize=65536)(is_user_name)
_group_ok = lru_cache(maxsize=65536)(is_group_name)


def check_queues(scope: Scope) -> None:
    # Depth-first with an explicit stack: a model built from database rows has no depth cap.
    stack: list[tuple[Queue, int]] = [(scope.root, 1)]
    while stack:
        queue, level = stack.pop()
        check_queue(scope, queue, level)
        stack.extend((child, level + 1) for child in reversed(queue.children))


def check_queue(scope: Scope, queue: Queue, level: int) -> None:
    """The rules of one queue: its ACLs, its limit entries, its children's names (``level``,
    the queue's depth from 1 at the root, only shows in a message)."""
    _check_acls(scope, queue)
    _check_limits(scope, queue)
    _check_child_names(scope, queue, level)


def _check_acls(scope: Scope, queue: Queue) -> None:
    for key, acl in (("adminacl", queue.admin_acl), ("submitacl", queue.submit_acl)):
        if acl is None:
            continue
        trimmed = acl.strip()
        # "users groups" at most; an empty ACL or "*" needs no look.
        if trimmed and trimmed != WILDCARD and len(trimmed.split()) > 2:
            scope.add(
                "Q1", queue.path, f"{scope.queue_field(queue)}.{key}",
                messages.ACL_MULTIPLE_SPACES.format(acl=trimmed),
            )


def _check_child_names(scope: Scope, queue: Queue, level: int) -> None:
    seen: set[str] = set()
    for child in queue.children:
        written = scope.written_name(child)
        field = f"{scope.queue_field(child)}.name"
        if not is_queue_name(written):
            scope.add("Q2", queue.path, field, messages.INVALID_QUEUE_NAME)
        key = written.lower()
        if key in seen:
            scope.add(
                "Q3", queue.path, field, messages.DUPLICATE_CHILD.format(name=written, level=level)
            )
        seen.add(key)


def go_limit(limit: Limit) -> str:
    """A limit entry as Go prints the struct with ``%v``; YuniKorn's L1 text embeds it."""
    users = " ".join(limit.users)
    groups = " ".join(limit.groups)
    resources = " ".join(f"{k}:{limit.max_resources[k]}" for k in sorted(limit.max_resources))
    return (
        f"{{{limit.description or ''} [{users}] [{groups}] map[{resources}] "
        f"{limit.max_applications}}}"
    )


def _check_limits(scope: Scope, queue: Queue) -> None:
    limits = scope.limits(queue)
    if not limits:
        return
    path = queue.path
    base = scope.limits_field(queue)
    is_root = queue is scope.root
    users_seen: set[str] = set()
    groups_seen: set[str] = set()
    only_wildcard_reported = False
    queue_max_reported = False
    add = scope.add

    for index, limit in enumerate(limits):
        at = f"{base}[{index}]"
        label = limit.description or ""
        named = f"'{label}'" if label else f"#{index + 1}"
        if not limit.users and not limit.groups:
            add("L1", path, at, messages.EMPTY_USERS_AND_GROUPS.format(entry=go_limit(limit)))

        for n, user in enumerate(limit.users):
            if user != WILDCARD and not _user_ok(user):
                add("L2", path, f"{at}.users[{n}]", messages.INVALID_LIMIT_USER.format(name=user))
            if user in users_seen:
                add("L3", path, f"{at}.users[{n}]", messages.DUPLICATE_USER.format(name=user))
            users_seen.add(user)
            if user != WILDCARD and WILDCARD in users_seen:
                add("L4", path, f"{at}.users[{n}]", messages.USER_AFTER_WILDCARD.format(name=user))

        for n, group in enumerate(limit.groups):
            if group != WILDCARD and not _group_ok(group):
                add(
                    "L5", path, f"{at}.groups[{n}]", messages.INVALID_LIMIT_GROUP.format(name=group)
                )
            if group in groups_seen:
                add("L6", path, f"{at}.groups[{n}]", messages.DUPLICATE_GROUP.format(name=group))
            groups_seen.add(group)
            if group != WILDCARD and WILDCARD in groups_seen:
                add(
                    "L7", path, f"{at}.groups[{n}]",
                    messages.GROUP_AFTER_WILDCARD.format(name=group),
                )

        # L8: a group wildcard needs a named group limit before it in the same queue.
        if not only_wildcard_reported and WILDCARD in groups_seen and len(groups_seen) == 1:
            add("L8", path, f"{at}.groups", messages.ONLY_WILDCARD_GROUP)
            only_wildcard_reported = True

        resources: dict[str, int] | None = {}
        if limit.max_resources:
            resources, failures = parse_quantities(limit.max_resources)
            for kind, message, detail in failures:
                add("QTY", path, f"{at}.maxresources.{kind}", message, detail)
            if failures:
                resources = None
            elif not any(v > 0 for v in resources.values()) or any(
                v < 0 for v in resources.values()
            ):
                add(
                    "L9", path, f"{at}.maxresources",
                    messages.LIMIT_RESOURCES_NOT_POSITIVE.format(limit=label),
                    messages.DETAIL_LIMIT_NOT_POSITIVE.format(
                        values=_written(limit.max_resources), limit=named
                    ),
                )
        scope.limit_resources[id(limit)] = resources

        if resources is not None and limit.max_applications == 0 and not any(resources.values()):
            add(
                "L10", path, at, messages.LIMIT_ALL_NULL.format(limit=label),
                messages.DETAIL_LIMIT_CAPS_NOTHING.format(limit=named),
            )

        if queue.max_applications and limit.max_applications > queue.max_applications:
            add(
                "L11", path, f"{at}.maxapplications",
                messages.LIMIT_APPS_ABOVE_QUEUE.format(limit=label),
                messages.DETAIL_LIMIT_APPS_ABOVE_QUEUE.format(
                    limit_apps=limit.max_applications, limit=named,
                    queue_apps=queue.max_applications,
                ),
            )

        # L12: only this queue's own max is compared; root has none.
        if is_root or resources is None:
            continue
        _, _, queue_max, max_failures = scope.queue_resources(queue)
        if max_failures:
            if not queue_max_reported:
                kind, message, detail = max_failures[0]
                add(
                    "L12", path, f"{scope.queue_field(queue)}.resources.max.{kind}",
                    messages.QUEUE_MAX_UNPARSABLE.format(queue=queue.name, error=message),
                    detail,
                )
                queue_max_reported = True
        elif resources and queue_max and not fits_within(resources, queue_max):
            add(
                "L12", path, f"{at}.maxresources",
                messages.LIMIT_RESOURCES_ABOVE_QUEUE.format(limit=label),
                messages.DETAIL_LIMIT_RESOURCES_ABOVE_QUEUE.format(
                    limit=named, **at_fault(resources, queue_max, "limit_resources", "queue_max")
                ),
            )



def _written(resources: Mapping[str, str]) -> str:
    return ", ".join(f"{kind} {resources[kind]}" for kind in sorted(resources))
