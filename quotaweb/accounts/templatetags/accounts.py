"""``{{ user|directory_name }}``: a user as the audit names them (``alice (ldap)`` for a
directory user), for the version history's author."""

from __future__ import annotations

from typing import Any

from django import template

from quotaweb.accounts.directory import directory_name as _directory_name

register = template.Library()


@register.filter
def directory_name(user: Any) -> str:
    return _directory_name(user)
