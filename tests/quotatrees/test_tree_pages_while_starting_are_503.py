"""Before the server has loaded its quota trees, the pages say so (503, retry shortly) rather
than fail."""

from __future__ import annotations

import pytest

from tests.quotatrees.pages import url

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(("name", "args"), [
    ("index", ()), ("tree", ("example",)), ("forest", ("jobs",)), ("consumer", ("a",)),
])
def test_pages_answer_503_while_starting(quota_admin_client, name, args):
    response = quota_admin_client.get(url(name, *args))
    assert response.status_code == 503
    assert response["Retry-After"] == "5"
    assert "The quota trees are still loading in this server" in response.content.decode()
