"""The ``can_edit`` template flag: pages leave out edit controls for viewers."""

import pytest
from django.contrib.auth.models import AnonymousUser
from django.template import engines
from django.test import RequestFactory

from quotaweb.accounts.context_processors import roles

pytestmark = pytest.mark.django_db

EDIT_CONTROL = '{% if can_edit %}<button data-edit>Edit queue</button>{% endif %}'


def render_for(user) -> str:
    request = RequestFactory().get("/")
    request.user = user
    return engines["django"].from_string(EDIT_CONTROL).render({}, request)


@pytest.mark.parametrize("persona", ["admin", "staff_admin"])
def test_admins_get_edit_controls(request, persona):
    user = request.getfixturevalue(persona)

    assert "data-edit" in render_for(user)


def test_viewers_get_no_edit_controls(viewer):
    assert render_for(viewer) == ""


def test_anonymous_visitors_get_no_edit_controls():
    assert render_for(AnonymousUser()) == ""


def test_the_flags_name_the_role(admin, viewer):
    request = RequestFactory().get("/")

    request.user = admin
    assert roles(request) == {"can_edit": True, "user_role": "admin",
                              "user_role_label": "quota admin"}
    request.user = viewer
    assert roles(request) == {"can_edit": False, "user_role": "viewer",
                              "user_role_label": "viewer"}
    request.user = AnonymousUser()
    assert roles(request) == {"can_edit": False, "user_role": None, "user_role_label": ""}
