"""MkDocs hooks (mkdocs.yml names this file). The README is the site's home page and its list of
guides is the site's navigation, so neither is written twice and a page listed in the README is
on the site without touching mkdocs.yml."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files

README = Path(__file__).resolve().parent / "README.md"
# A link from the README into docs/: "](docs/tour.md" or "](docs/tour.md#part".
DOCS_LINK = re.compile(r"\]\(docs/")
GUIDE = re.compile(r"\]\(docs/([^)#\s]+\.md)\)")


def readme_guides(text: str) -> list[str]:
    """The guides the README's last section lists, in its order, each once."""
    documentation = text.split("\n## Documentation\n", 1)[-1]
    return list(dict.fromkeys(GUIDE.findall(documentation)))


def on_config(config: Any) -> Any:
    config.nav = [{"Home": "index.md"}, *readme_guides(README.read_text(encoding="utf-8"))]
    return config


def on_files(files: Files, config: Any) -> Files:
    # The README's links point into docs/ from the repository's root; on the site the home page
    # sits in docs/ itself.
    home = DOCS_LINK.sub("](", README.read_text(encoding="utf-8"))
    files.append(File.generated(config, "index.md", content=home))
    return files
