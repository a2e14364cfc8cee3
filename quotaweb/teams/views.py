"""Team dashboards: the page a link shows (no login, read-only), the admins' pages to list,
create and revoke links, and "My usage", a signed-in person's dashboard of their own."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from quotaweb.accounts.decorators import admin_required, member_allowed
from quotaweb.accounts.models import TeamLink
from quotaweb.accounts.roles import is_viewer, own_scope
from quotaweb.accounts.selectors import team_link_active
from quotaweb.compression import uncompressed
from quotaweb.engine.gateway import EngineNotLoaded, engines_get
from quotaweb.teams import selectors, services
from quotaweb.teams.forms import TeamLinkForm
from quotaweb.usage import page_selectors

CREATED = "Link created for {kind} {name}: copy it from the list below."
REVOKED = "The link for {kind} {name} is revoked; screens using it close within a minute."
ERR_NO_LINK = "There is no team link {link_id}."
ERR_LINK_INVALID = (
    "This team link is not valid (it was revoked, or mistyped). Ask a quota admin for a new one."
)
ERR_STARTING = "The server is starting; this page will work in a moment."


def _partitions() -> list[str]:
    try:
        return engines_get().partitions()
    except EngineNotLoaded:
        return []


# Every link's token is on the page: quotaweb.compression.
@uncompressed
@admin_required
@require_http_methods(["GET", "HEAD", "POST"])
def links(request: HttpRequest) -> HttpResponse:
    partitions = _partitions()
    form = TeamLinkForm(request.POST or None, partitions=partitions)
    status = 200
    ask: set[str] = set()
    if request.method == "POST":
        if form.is_valid():
            data = form.cleaned_data
            try:
                link = services.team_link_create(
                    partition=data["partition"], kind=data["kind"], name=data["name"],
                    label=data["label"], author=request.user,
                    confirm_unknown=data["confirm_unknown"], another=data["another"],
                )
            except services.TeamNameUnknown as error:
                form.add_error("name", str(error))
                ask.add("confirm_unknown")
            except services.TeamLinkExists as error:
                form.add_error("name", str(error))
                ask.add("another")
            except services.TeamLinkInvalid as error:
                form.add_error("name", str(error))
            else:
                messages.success(request, CREATED.format(kind=link.kind, name=link.name))
                return redirect("teams:links")
        status = 400
    names = {name: selectors.team_names_known(partition=name) for name in partitions}
    return render(request, "teams/links.html", {
        "form": form, "ask": ask, "names": names, "links": selectors.team_links_list(),
    }, status=status)


@admin_required
@require_POST
def revoke(request: HttpRequest, link_id: int) -> HttpResponse:
    try:
        link = services.team_link_revoke(link_id=link_id)
    except TeamLink.DoesNotExist:
        messages.error(request, ERR_NO_LINK.format(link_id=link_id))
        return redirect("teams:links")
    messages.success(request, REVOKED.format(kind=link.kind, name=link.name))
    return redirect("teams:links")


@require_http_methods(["GET", "HEAD"])
def dashboard(request: HttpRequest, token: str) -> HttpResponse:
    """One team's live usage for whoever has the link: read-only, no login, ``?kiosk=1`` for a
    wall screen. The page's socket uses the same token, which reads only this team's scope."""
    link = team_link_active(token=token)
    if link is None:
        return render(request, "teams/invalid.html", {"message": ERR_LINK_INVALID}, status=404)
    read = page_selectors.group_detail if link.kind == TeamLink.KIND_GROUP else (
        page_selectors.user_detail
    )
    # The usage pages need an account: only someone who has one gets links to them.
    context = {
        "link": link, "kiosk": request.GET.get("kiosk") == "1",
        "linked": is_viewer(request.user),
    }
    try:
        context.update(read(partition=link.partition, name=link.name))
    except page_selectors.UsageNotFound:
        context["empty"] = True
    except EngineNotLoaded:
        return render(request, "teams/invalid.html", {"message": ERR_STARTING}, status=503)
    return render(request, "teams/dashboard.html", context)


@member_allowed
@require_http_methods(["GET", "HEAD"])
def mine(request: HttpRequest) -> HttpResponse:
    """"My usage": the signed-in person's own usage and their groups', live, with the room they
    have left; every role has it, and it is where members land."""
    scope = own_scope(request.user)
    if scope is None:  # signed out between the check and here
        return redirect("accounts:login")
    try:
        partitions = selectors.my_usage(user=scope.user, groups=scope.groups)
    except EngineNotLoaded:
        return render(request, "teams/invalid.html", {"message": ERR_STARTING}, status=503)
    return render(request, "teams/mine.html", {
        "scope": scope, "partitions": partitions, "linked": is_viewer(request.user),
    })
