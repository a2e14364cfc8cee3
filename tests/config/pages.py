"""Helpers shared by the configuration page tests."""

from __future__ import annotations

import re

from django.urls import reverse

POST_FORM = re.compile(r"<form[^>]*method=\"post\"[^>]*>", re.IGNORECASE)


def posting_forms(html: str) -> list[str]:
    """Forms that post anywhere but the logout button every page has."""
    logout = reverse("accounts:logout")
    return [form for form in POST_FORM.findall(html) if f'action="{logout}"' not in form]


def apply(yaml_text: str, *, author=None, comment: str = ""):
    from quotaweb.config.selectors import active_version_number
    from quotaweb.config.services import config_apply

    return config_apply(
        yaml_text=yaml_text, author=author, comment=comment,
        base_version=active_version_number(),
    )
