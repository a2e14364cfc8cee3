"""In the quota tree editor an input with a problem says so to assistive technology: it is
marked invalid and described by its own error text (a screen reader reads the error when the
input takes focus); inputs without a problem are neither."""

from __future__ import annotations

import re

import pytest

from tests.quotatrees.pages import editor_data, url

pytestmark = pytest.mark.django_db


def _input(page: str, input_id: str) -> str:
    found = re.search(rf'<(?:input|select)[^>]*\bid="{input_id}"[^>]*>', page)
    assert found, input_id
    return found.group(0)


def _element_text(page: str, element_id: str) -> str:
    found = re.search(rf'<div id="{element_id}">(.*?)</div>', page, re.S)
    assert found, f"no element {element_id}"
    return re.sub(r"<[^>]+>", "", found.group(1))


def test_a_cells_error_describes_its_input(quota_admin_client, active_sample):
    response = quota_admin_client.post(url("new"), editor_data(
        [("root", "", False, ["4"]), ("b", "root", False, ["1.5"])], name="cells"))
    assert response.status_code == 400
    page = response.content.decode()
    cell = _input(page, "id_node-1-quota-0")
    assert 'aria-invalid="true"' in cell
    (described,) = re.findall(r'aria-describedby="([^"]+)"', cell)
    assert "&#x27;1.5&#x27; is not an amount of cpu" in _element_text(
        page, described
    )
    assert "aria-invalid" not in _input(page, "id_node-0-quota-0")
