"""Each runtime on the elastic page links to its explanation: a page with the key numbers (the
pool and where it comes from, min, effective min, request, limited request, weight, runtime) and
the steps of the split in words. It needs a login, not an API token."""

from __future__ import annotations

import re

import pytest

from quotaweb.elastic.page_selectors import ERR_EXPLAIN_PARAMS
from tests.elastic.pages import explain_url, page_url, queue_bodies
from tests.elastic.support import k1

pytestmark = pytest.mark.django_db


def _figures(html: str) -> dict[str, str]:
    pairs = re.findall(r"<dt>(.*?)</dt><dd>(.*?)(?: <span class=\"hint\">.*?</span>)?</dd>", html)
    return dict(pairs)


def test_the_runtime_links_to_its_explanation(viewer_client, admin_api, active_elastic):
    k1(admin_api)
    html = viewer_client.get(page_url()).content.decode()
    link = f'<a href="{explain_url()}?queue=root.d&amp;resource=gpu"'
    assert link in queue_bodies(html)["root.d"]

    response = viewer_client.get(explain_url(), {"queue": "root.d", "resource": "gpu"})
    assert response.status_code == 200
    page = response.content.decode()
    assert "Runtime of <code>root.d</code> for <code>gpu</code>" in page
    figures = _figures(page)
    assert figures["Pool"] == "100"
    assert "root shares 100: the cluster total 100 less 0 used by system queues" in page
    assert (figures["Min (guaranteed)"], figures["Effective min"]) == ("15", "15")
    assert (figures["Request"], figures["Limited request"]) == ("70", "70")
    assert (figures["Weight"], figures["Max"], figures["Runtime"]) == ("80", "80", "40")
    steps = re.findall(r"<li>(.*?)</li>", page.split("data-steps>")[1].split("</ol>")[0], re.S)
    assert steps[0].startswith("Step 1: it asks for 70, more than its effective min 15")
    assert steps[1].startswith("Pass 1: 45 is left for 3 hungry sibling(s)")
    assert steps[-1] == "Runtime: 40 (it asked for 70; nothing more was left)."


def test_a_system_queue_and_the_root_are_explained_too(viewer_client, admin_api, active_elastic):
    k1(admin_api)
    page = viewer_client.get(explain_url(), {"queue": "root.sys", "resource": "gpu"})
    assert "A system queue takes no part in the split" in page.content.decode()
    page = viewer_client.get(explain_url(), {"queue": "root", "resource": "gpu"})
    assert "The root&#x27;s runtime is the pool" in page.content.decode()


def test_missing_parameters_and_unknown_queues(viewer_client, active_elastic):
    response = viewer_client.get(explain_url(), {"queue": "root.a"})
    assert response.status_code == 400
    assert "Say which runtime to explain" in response.content.decode()
    assert ERR_EXPLAIN_PARAMS.startswith("Say which runtime to explain")
    response = viewer_client.get(explain_url(), {"queue": "root.nope", "resource": "gpu"})
    assert response.status_code == 404
    assert "queue &#x27;root.nope&#x27; is not a queue of partition" in response.content.decode()
