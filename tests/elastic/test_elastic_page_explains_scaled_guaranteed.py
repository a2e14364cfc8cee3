"""Where a guaranteed figure reads "scaled to", the page says why in words, once per parent and
resource: the children's guaranteed adds up to more than their parent has to share, so each is
scaled by the same factor; a parent whose children ask for nothing says their figures read
"scaled to 0" only until one of them asks. Guaranteed figures that fit are not scaled and
draw no note."""

from __future__ import annotations

import html as html_lib

import pytest

from quotaweb.config.services import config_apply
from quotaweb.core.services import engines_start
from quotaweb.elastic import services
from quotaweb.elastic.page_selectors import NOTE_IDLE, NOTE_SCALED
from quotaweb.elastic.templatetags.elastic_rows import SCALED_TEXT
from tests.elastic.pages import figures, page_url, queue_bodies
from tests.elastic.test_elastic_page_shows_the_runtimes import MEMORY_YAML

pytestmark = pytest.mark.django_db

GiB = 2**30
# p's children ask for nothing while z is busy: p lends everything, its children share nothing.
NESTED_YAML = """\
partitions:
  - name: default
    queues:
      - name: root
        queues:
          - name: p
            resources: {guaranteed: {memory: 100Gi}, max: {memory: 400Gi}}
            queues:
              - name: x
                resources: {guaranteed: {memory: 50Gi}, max: {memory: 400Gi}}
              - name: y
                resources: {guaranteed: {memory: 50Gi}, max: {memory: 400Gi}}
          - name: z
            resources: {guaranteed: {memory: 50Gi}, max: {memory: 400Gi}}
"""


@pytest.fixture
def shared(admin, db):
    """x and y each guaranteed 100 GiB and 10 vcore; the cluster has 150 GiB and 20 vcore."""
    config_apply(yaml_text=MEMORY_YAML, author=None, base_version=None)
    engines_start()
    services.elastic_total_set(
        partition="default", total={"memory": 150 * GiB, "vcore": 20_000}, author=admin
    )


def _ask(queue: str, gib: int) -> None:
    services.elastic_demand_set(
        partition="default", queue_path=queue, demand={"memory": gib * GiB, "vcore": 5_000}
    )


def _page(client) -> str:
    return html_lib.unescape(client.get(page_url()).content.decode())


def test_a_scaled_guaranteed_figure_is_explained_in_words(viewer_client, shared):
    _ask("root.x", 120)
    _ask("root.y", 120)
    page = _page(viewer_client)

    x = figures(queue_bodies(page)["root.x"])
    assert x["memory"]["min"].startswith("100 GiB")
    assert SCALED_TEXT.format(scaled="75 GiB", factor="0.75") in x["memory"]["min"]
    assert NOTE_SCALED.format(
        parent="root", kind="memory", mins="200 GiB", shared="150 GiB", factor="0.75"
    ) in page
    # vcore fits (20 guaranteed of 20): neither scaled nor explained
    assert "scaled" not in x["vcore"]["min"]
    assert "guaranteed vcore adds up" not in page


def test_an_idle_parent_says_its_childrens_figures_come_back(viewer_client, admin, db):
    config_apply(yaml_text=NESTED_YAML, author=None, base_version=None)
    engines_start()
    services.elastic_total_set(
        partition="default", total={"memory": 150 * GiB, "vcore": 20_000}, author=admin
    )
    _ask("root.z", 120)
    page = _page(viewer_client)

    assert NOTE_IDLE.format(parents="root.p") in page
    assert "Under root.p, the children's guaranteed" not in page
