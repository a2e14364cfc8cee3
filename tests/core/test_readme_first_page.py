"""The README is a user's first page and must stay true: its two commands exist and do what it
says, what it says ``bin/run`` prints is what the demo prints, every page it sends the reader to
answers, every guide in docs/ is listed, nothing points outside a user's clone, and its sections
come in a newcomer's order (what quotaweb is, how the three quota models relate, the two
commands, where to click first, the guides)."""

from __future__ import annotations

import re
import socket
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from django.core.management import call_command

from quotaweb.accounts.services import DEMO_ADMIN_PASSWORD_ENV, DEMO_VIEWER_PASSWORD_ENV

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DEMO_GUIDE = ROOT / "docs" / "demo.md"
FIRST_PAGE_MOST_LINES = 120
SITE = "http://127.0.0.1:8000"


def readme() -> str:
    return README.read_text(encoding="utf-8")


def bash_commands(text: str) -> list[str]:
    return [
        line.strip()
        for block in re.findall(r"```bash\n(.*?)```", text, re.DOTALL)
        for line in block.splitlines()
        if line.strip()
    ]


def printed_block(text: str) -> list[str]:
    """The lines of the first plain code block after "prints": what the reader should see."""
    after = re.split(r"prints(?:, log lines left out)?:\s*\n", text, maxsplit=1)[1]
    block = re.search(r"```\n(.*?)```", after, re.DOTALL).group(1)
    return [line for line in block.splitlines() if line.strip()]


def test_the_readme_gives_the_two_commands_and_they_exist():
    assert bash_commands(readme()) == ["bash bin/run", "bash bin/test"]
    run = (ROOT / "bin" / "run").read_text(encoding="utf-8")
    test = (ROOT / "bin" / "test").read_text(encoding="utf-8")

    assert "manage.py demo" in run
    assert "ruff check ." in test
    assert "mypy" in test
    assert "-m pytest" in test


def test_the_readme_is_a_short_first_page_within_the_clone():
    text = readme()

    assert len(text.splitlines()) < FIRST_PAGE_MOST_LINES
    assert "../shared" not in text
    assert "/work/" not in text


def test_the_readme_lists_every_guide_in_docs():
    listed = set(re.findall(r"\]\((docs/[^)#\s]+\.md)", readme()))

    assert listed == {f"docs/{guide.name}" for guide in (ROOT / "docs").glob("*.md")}


@pytest.mark.django_db
def test_what_the_readme_says_bin_run_prints_is_what_the_demo_prints(monkeypatch, capsys):
    from quotaweb.core.management.commands import demo

    monkeypatch.delenv(DEMO_ADMIN_PASSWORD_ENV, raising=False)
    monkeypatch.delenv(DEMO_VIEWER_PASSWORD_ENV, raising=False)
    monkeypatch.setattr(demo, "serve", lambda *, host, port, listening: None)
    # What it prints names port 8000, which this machine may be using: any free port stands in.
    monkeypatch.setattr(
        demo, "port_claim", lambda **kw: socket.create_server(("127.0.0.1", 0))
    )

    call_command("demo")

    printed = capsys.readouterr().out.splitlines()
    for guide in (readme(), DEMO_GUIDE.read_text(encoding="utf-8")):
        promised = printed_block(guide)
        assert promised, "the guide shows nothing bin/run prints"
        assert [line for line in promised if line not in printed] == []


def site_paths(text: str) -> list[str]:
    """The paths of the local site's addresses in ``text`` (a sentence's colon or full stop after
    an address is not part of it)."""
    urls = re.findall(rf"{re.escape(SITE)}/(?:[^\s)>`]*[^\s)>`:.,;])?", text)
    return sorted({urlsplit(url).path for url in urls})


def test_the_readme_names_the_pages_of_its_tour():
    assert {"/", "/usage/default/users/", "/config/", "/api/docs/"} <= set(site_paths(readme()))


@pytest.mark.django_db
def test_every_page_the_readme_sends_the_reader_to_answers(active_sample, quota_admin_client):
    answers = {path: quota_admin_client.get(path).status_code for path in site_paths(readme())}

    assert answers == dict.fromkeys(answers, 200)


def test_the_readme_says_what_a_newcomer_needs_in_order():
    text = readme()
    headings = re.findall(r"^## (.+)$", text, re.MULTILINE)

    assert headings == [
        "Three quota models", "Two commands", "Where to click first", "Documentation",
    ]
    # what quotaweb is comes before any heading
    assert "quotaweb administers quotas" in text.split("\n## ", 1)[0]
    # how the three models relate: limits always on, elastic over the same queues, trees beside
    models = text.split("## Three quota models", 1)[1].split("\n## ", 1)[0]
    assert "**Limits**" in models
    assert "always on" in models
    assert "**Elastic quota**" in models
    assert "layer over the same queues" in models
    assert "**Quota trees**" in models
    assert "beside the queues" in models
