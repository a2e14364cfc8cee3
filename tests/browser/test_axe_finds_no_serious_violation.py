"""axe-core, the accessibility engine, finds no serious or critical violation on any page:
logged out, as the demo's viewer and as its admin, each in the light and the dark theme, and on
a phone's width.

The pages are found the way a visitor finds them: from a few start pages (those no link leads
to, such as a team's dashboard, the 403 and 404 pages, a version's diff and rollback), every
same-site link is followed, one page per route of the URL confs, so a page someone adds is
checked as soon as a link leads to it. The server is a real ``manage.py demo`` with the sample
configuration and a slow simulator, so the usage pages hold users, groups and applications; a
second configuration version, a quota tree with a consumer in a forest, and a team link are
made first. Django's own admin site (``/admin/``) is Django's, not a page of this product."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from urllib.parse import unquote, urlsplit

import pytest
from django.urls import Resolver404, resolve
from playwright.sync_api import Error as PlaywrightError

from tests.browser.demo_login import ADMIN, VIEWER, log_in
from tests.server_process import ROOT, ServerProcess, free_port

pytestmark = pytest.mark.browser

SAMPLE = ROOT / "quotaweb" / "samples" / "queues.yaml"
BLOCKING_IMPACTS = ("serious", "critical")
DESKTOP = {"width": 1280, "height": 720}  # Playwright's own default
# How each page is seen: the light theme on a desktop (every rule); the dark theme (it changes
# colours only, so contrast alone); a phone (what its narrow layout changes: regions that scroll
# sideways must take the keyboard).
VIEWS = {
    "light": {"theme": "light", "viewport": DESKTOP, "rules": None},
    "dark": {"theme": "dark", "viewport": DESKTOP, "rules": ["color-contrast"]},
    "phone": {"theme": "light", "viewport": {"width": 390, "height": 844},
              "rules": ["scrollable-region-focusable", "color-contrast"]},
}
FIRST_VIEW = "light"
THEME_KEY = "quotaweb-theme"  # static/js/theme.js keeps the visitor's choice under this key
# Not pages: machine-readable answers and Django's own admin site.
SKIPPED_PREFIXES = ("/admin/", "/api/schema/", "/api/v1/", "/ws/", "/metrics", "/healthz")
START_PAGES = (
    "/", "/accounts/login/", "/no-such-page/", "/team/not-a-token/", "/api/docs/",
    "/config/draft/", "/config/yaml/", "/config/versions/", "/config/versions/2/",
    "/config/versions/2/diff/", "/config/versions/1/rollback/", "/teams/",
    "/trees/", "/trees/new/", "/trees/lab/", "/trees/lab/edit/",
    "/trees/forests/pair/", "/trees/consumers/c1/",
    "/usage/default/users/", "/usage/default/groups/", "/usage/default/activity/",
    "/usage/default/over-limit/", "/elastic/default/", "/owners/",
)
# Pages the crawl must have checked for a logged-in visitor: a crawl that silently stopped
# early would otherwise pass.
EXPECTED_ROUTES = {
    "", "config/", "config/queues/<str:partition>/<path:queue_path>/", "config/draft/",
    "config/versions/", "config/versions/<int:number>/", "config/versions/<int:number>/diff/",
    "usage/<str:partition>/", "usage/<str:partition>/users/",
    "usage/<str:partition>/users/<path:name>/", "usage/<str:partition>/groups/",
    "usage/<str:partition>/groups/<path:name>/",
    "usage/<str:partition>/queues/<path:queue_path>/", "usage/<str:partition>/activity/",
    "elastic/<str:partition>/", "trees/", "trees/<str:tree>/",
    "trees/forests/<str:forest>/", "trees/consumers/<path:consumer>/", "teams/",
    "team/<str:token>/", "api/docs/", "not found", "config/yaml/",
    "config/versions/<int:number>/rollback/", "usage/<str:partition>/over-limit/", "owners/",
    "usage/<str:partition>/trends/<str:kind>/<path:name>/", "trees/new/", "trees/<str:tree>/edit/",
    "usage/<str:partition>/accounting/",
}
LAB_TREE = {
    "kind": "QuotaTree", "metadata": {"name": "lab"},
    "spec": {"resourceNames": ["cpu"], "nodes": {
        "root": {"hard": "true", "quota": {"cpu": "10"}},
        "team-a": {"parent": "root", "hard": "false", "quota": {"cpu": "4"}},
    }},
}
RUN_AXE = """async ([impacts, rules]) => {
  const options = {resultTypes: ["violations"]};
  if (rules) options.runOnly = {type: "rule", values: rules};
  const result = await axe.run(document, options);
  return result.violations
    .filter((v) => impacts.includes(v.impact))
    .map((v) => ({rule: v.id, impact: v.impact, help: v.help,
                  nodes: v.nodes.slice(0, 5).map((n) => n.target.join(" ") + "  " +
                                                 n.html.slice(0, 120))}));
}"""
# axe only asks for a review when a reference names an id no element has; a screen reader then
# reads nothing, so this check fails the page.
DANGLING_REFERENCES = """() => {
  const found = [];
  for (const attribute of ["aria-describedby", "aria-labelledby", "aria-controls", "for"]) {
    for (const element of document.querySelectorAll(`[${attribute}]`)) {
      for (const id of element.getAttribute(attribute).split(/\\s+/).filter(Boolean)) {
        if (document.getElementById(id)) continue;
        found.push(`${attribute}="${id}" on ${element.outerHTML.slice(0, 120)}`);
      }
    }
  }
  return found;
}"""


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with ServerProcess(
        tmp_path_factory.mktemp("axe"), free_port(),
        config_yaml=SAMPLE.read_text(encoding="utf-8"),
        env={"QUOTAWEB_SIMULATOR": "1"},
    ).running("demo", "--sim-rate", "4") as process:
        token = process.token(ADMIN[0])
        for method, path, body in (
            ("PATCH", "/api/v1/partitions/default/queues/root.research/",
             {"max_applications": 190, "comment": "a second version to compare"}),
            ("PUT", "/api/v1/quota-trees/lab", LAB_TREE),
            ("PUT", "/api/v1/forests/pair", {"trees": ["lab"]}),
            ("POST", "/api/v1/quota-trees/lab/allocations",
             {"id": "c1", "groupID": "team-a", "request": {"cpu": 2}}),
        ):
            status, answer = process.request(method, path, body, token)
            assert status in (200, 201), (path, answer)
        yield process


@pytest.fixture(scope="module")
def team_link(browser, server) -> str:
    """A team dashboard's path, made by the admin through the links page's form."""
    context = browser.new_context()
    page = context.new_page()
    log_in(page, server, who=ADMIN)
    page.goto(server.url("/teams/"))
    form = page.locator("main form[method=post]").first
    values = form.evaluate("(form) => Object.fromEntries(new FormData(form))")
    values.update({"partition": "default", "kind": "group", "name": "ml-researchers",
                   "label": "ML wall screen"})
    page.request.post(server.url("/teams/"), form=values,
                      headers={"Referer": server.url("/teams/")})
    page.goto(server.url("/teams/"))
    # However the list shows a link (text to copy or an anchor), its address is in the page.
    found = re.search(r"/team/[\w-]+/", page.content())
    context.close()
    assert found, "the admin's new team link is not on the links page"
    return found.group(0)


def _stage_an_edit(page, server: ServerProcess) -> None:
    """The admin's draft holds one change, so the draft page and its diff are drawn: the queue
    form posted as the page fills it, with one value changed."""
    page.goto(server.url("/config/queues/default/root.research/"))
    form = page.locator("form:has(button[value=queue-save])")
    values = form.evaluate("(form) => Object.fromEntries(new FormData(form))")
    values.update({"action": "queue-save", "queue-max_applications": "150"})
    response = page.request.post(page.url, form=values, headers={"Referer": page.url})
    assert response.ok, response.status


def _route(path: str) -> str:
    try:
        return resolve(unquote(path)).route
    except Resolver404:
        return "not found"


@dataclass
class Crawl:
    """Every page reached from the start pages, one a route, with what axe found on it."""

    checked: dict[str, str] = field(default_factory=dict)  # route -> the page's path
    violations: list[str] = field(default_factory=list)

    def report(self) -> str:
        return "\n".join(self.violations)


def _check(page, view: str, where: str, crawl: Crawl) -> None:
    for found in page.evaluate(RUN_AXE, [list(BLOCKING_IMPACTS), VIEWS[view]["rules"]]):
        nodes = "\n      ".join(found["nodes"])
        crawl.violations.append(
            f"{where}: {found['rule']} ({found['impact']}): {found['help']}\n      {nodes}"
        )
    if VIEWS[view]["rules"] is None:
        crawl.violations.extend(
            f"{where}: a reference to no element: {dangling}"
            for dangling in page.evaluate(DANGLING_REFERENCES)
        )


def _links(page, server: ServerProcess) -> list[str]:
    origin = server.url("")
    hrefs = page.eval_on_selector_all(
        "a[href]:not([download])", "links => links.map((a) => a.href)"
    )
    paths = []
    for href in hrefs:
        if not href.startswith(origin + "/"):
            continue
        parts = urlsplit(href)
        path = parts.path + (f"?{parts.query}" if parts.query else "")
        if not parts.path.startswith(SKIPPED_PREFIXES):
            paths.append(path)
    return paths


def _crawl(browser, server, axe_script, *, who, start: list[str], prepare=None) -> Crawl:
    crawl = Crawl()
    pages = {}
    for view, seen_as in VIEWS.items():
        theme = seen_as["theme"]
        context = browser.new_context(color_scheme=theme, viewport=seen_as["viewport"])
        context.set_default_timeout(15_000)
        context.add_init_script(f"localStorage.setItem({THEME_KEY!r}, {theme!r})")
        # Given to every page before its own scripts: a script tag added to the page would be
        # inline script, which the Content-Security-Policy refuses.
        context.add_init_script(path=axe_script)
        pages[view] = context.new_page()
        if who is not None:
            log_in(pages[view], server, who=who)
    if prepare is not None:
        prepare(pages[FIRST_VIEW], server)
    queue, seen, asked = list(start), set(), set()
    while queue:
        path = queue.pop(0)
        asked_route = _route(urlsplit(path).path)
        if path in seen or (asked_route in asked and path not in start):
            continue
        seen.add(path)
        asked.add(asked_route)
        for view, page in pages.items():
            try:
                response = page.goto(server.url(path), wait_until="load")
            except PlaywrightError as error:
                if "Download is starting" in error.message:
                    break  # a file to save, not a page
                raise
            final = urlsplit(page.url).path
            route = _route(final)
            if view == FIRST_VIEW:
                if route in crawl.checked and path not in start:
                    break
                content_type = response.headers.get("content-type", "") if response else ""
                if not content_type.startswith("text/html"):
                    break
                crawl.checked.setdefault(route, final)
                queue.extend(link for link in _links(page, server) if link not in seen)
            where = f"{final} [{view}, {who[0] if who else 'logged out'}]"
            _check(page, view, where, crawl)
    for page in pages.values():
        page.context.close()
    return crawl


def test_logged_out_pages(browser, server, axe_script, team_link):
    crawl = _crawl(browser, server, axe_script, who=None, start=[*START_PAGES, team_link])
    assert {"accounts/login/", "team/<str:token>/", "not found"} <= set(crawl.checked)
    assert not crawl.violations, crawl.report()


@pytest.mark.parametrize("who", [VIEWER, ADMIN], ids=["viewer", "admin"])
def test_logged_in_pages(browser, server, axe_script, team_link, who):
    crawl = _crawl(browser, server, axe_script, who=who, start=[*START_PAGES, team_link],
                   prepare=_stage_an_edit if who == ADMIN else None)
    assert set(crawl.checked) >= EXPECTED_ROUTES, EXPECTED_ROUTES - set(crawl.checked)
    assert not crawl.violations, crawl.report()
