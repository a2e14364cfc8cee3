import re

import pytest

pytest.importorskip("trackers")


def stat(html: str, partition_heading: str, name: str) -> str:
    section = html.split(partition_heading, 1)[1].split("</section>", 1)[0]
    match = re.search(rf'data-stat="{name}">([^<]*)<', section)
    assert match, f"no {name} statistic in the {partition_heading} section"
    return match.group(1)


def test_home_page_sends_anonymous_visitors_to_the_login_page(outsider):
    response = outsider.get("/")

    assert response.status_code == 302
    assert response["Location"] == "/accounts/login/?next=/"


def test_home_page_says_engines_are_starting_without_engines(viewer_client):
    response = viewer_client.get("/")

    assert response.status_code == 200
    assert "The quota engines are starting" in response.content.decode()


def test_home_page_lists_partitions_with_counts(viewer_client, gateway):
    response = viewer_client.get("/")

    assert response.status_code == 200
    html = response.content.decode()
    assert "<title>Overview · quotaweb</title>" in html
    assert 'id="partition-default"' in html
    assert 'id="partition-gpu"' in html
    # root + 4 departments + 12 teams in default; root + 2 queues in gpu.
    assert stat(html, 'id="partition-default"', "queues") == "17"
    assert stat(html, 'id="partition-gpu"', "queues") == "3"
    assert stat(html, 'id="partition-default"', "users") == "6"
    assert stat(html, 'id="partition-default"', "groups") == "7"


def test_home_page_draws_the_queue_tree(viewer_client, gateway):
    html = viewer_client.get("/").content.decode()

    for path in ("root.research", "root.research.nlp", "root.engineering.backend", "root.ops.sre"):
        assert f'data-queue="{path}"' in html
    # Limits in human units (binary bytes, cores): research has 2Ti of memory and 512 vcore.
    assert "max memory 2 TiB, nvidia.com/gpu 32, 512 vcore" in html
    # The exact values on hover.
    raw = f"memory {2 * 2**40} bytes, nvidia.com/gpu 32, vcore 512000 millicores"
    assert f'title="maximum: {raw}"' in html


def test_home_page_shows_usage(viewer_client, gateway):
    with gateway.engine("default") as engine:
        decision = engine.increase(
            "root.research.nlp",
            "app-1",
            "eve",
            ["ml-researchers"],
            {"memory": 2**30, "vcore": 1500},
        )
    assert decision.allowed

    html = viewer_client.get("/").content.decode()
    assert (
        f'using <span title="memory {2**30} bytes, vcore 1500 millicores">memory 1 GiB, 1.5 vcore'
        "</span> · 1 running"
    ) in html


def test_stylesheet_is_served(client):
    response = client.get("/static/css/app.css")

    assert response.status_code == 200
    body = b"".join(response.streaming_content) if response.streaming else response.content
    # Light and dark pairs that follow the system (or the theme toggle).
    assert b"color-scheme: light dark" in body
    assert b"light-dark(" in body
