"""Configuration pages: the queue tree, a queue and its edit forms, the draft, YAML, history.

Everyone logged in reads (``viewer_required``); every write is a POST that needs a quota admin
(the decorators refuse a viewer's, even forged). Edits on a queue page are staged into the
admin's draft; the draft page shows the diff and impact and applies it as one version. A YAML
upload and a rollback are previewed the same way before they are applied. Each view calls one
service or selector; a partition, queue or version that does not exist gets a 404 page saying
which, and every refused change shows its errors where they belong with nothing saved.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.template.defaultfilters import pluralize
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_safe

from quotaweb.accounts.decorators import admin_required, viewer_required
from quotaweb.accounts.roles import is_quota_admin
from quotaweb.config import edits, forms, selectors, services, tree_window
from quotaweb.config.configmap import configmap_render, configmap_unwrap
from quotaweb.config.models import ConfigVersion
from quotaweb.config.resource_types import (
    document_resource_type_warnings,
    resource_type_warnings,
    resource_types_known,
    resource_types_named,
    resource_types_of_values,
    write_resource_type_warnings,
)
from trackers.config.model import Config

ERR_AGAINST = (
    "The version to compare with must be a version number, like ?against=3; got {value!r}."
)
FIRST_VERSION = "Version {number} is the first version: there is no earlier version to compare."
ERR_ACTION = "There is no action {action!r} here; nothing was changed."
ERR_LIMIT_INDEX = "There is no limit entry {index!r} on this queue; nothing was changed."
STAGED = "Staged in your draft: {label}. Nothing is applied until you apply the draft."
NOTHING_CHANGED = "Nothing changed: the values are the ones already there."
APPLIED = "Applied as version {number}."
ROLLED_BACK = "Rolled back: version {new} has the content of version {number}."
DISCARDED = "Your draft was discarded; nothing was applied."
REBASED = "Your draft now starts from the active version; review it again before applying."
UNSTAGED = "The change was removed from your draft."
DRAFT_HAS_PROBLEMS = (
    "Your draft has {count} problem{plural} now; it is kept, and can be applied once they are "
    "fixed (edit the queues they name, in any order)."
)
# The form stages an edit rather than applying it, hence its own words for the same warning.
WARN_RESOURCE_TYPE = (
    "“{kind}” is not a resource type the configuration or the trackers know{suggestion}: it "
    "was staged as written, so check its spelling."
)
DRAFT_PROBLEMS_HEADING = "Your draft has {count} problem{plural} to fix before it can be applied"
DRAFT_INVALID = (
    "Your draft no longer applies to the active configuration ({error}); review it on the "
    "draft page."
)
# What replaying a draft can raise once the active version moved under it.
DRAFT_BROKEN = (services.ConfigRejected, edits.NotFound, edits.EditRefused)


def can_edit(request: HttpRequest) -> bool:
    return is_quota_admin(request.user)


def _problem(request: HttpRequest, *, status: int, title: str, message: str) -> HttpResponse:
    return render(
        request, "config/problem.html", {"title": title, "message": message}, status=status
    )


def _not_found(request: HttpRequest, message: str) -> HttpResponse:
    return _problem(request, status=404, title="Not found", message=message)


@viewer_required
@require_safe
def tree(request: HttpRequest) -> HttpResponse:
    params = request.GET
    return _tree_answer(request, "config/tree.html", lambda: tree_window.config_tree_window(
        query=params.get("q", ""), partition=params.get("partition", ""),
        focus=params.get("focus", "").strip(), page=params.get("page"),
    ))


@viewer_required
@require_safe
def tree_fragment(request: HttpRequest, partition: str, queue_path: str) -> HttpResponse:
    """The list items of one page of a queue's children, for the tree page to open it in place
    (``static/js/queue-tree.js``)."""
    return _tree_answer(request, "config/_tree_items.html", lambda: (
        tree_window.config_tree_fragment(
            partition=partition, path=queue_path, page=request.GET.get("page"))
    ))


def _tree_answer(request: HttpRequest, template: str, read) -> HttpResponse:
    try:
        return render(request, template, read())
    except selectors.ConfigNotFound as error:
        return _not_found(request, str(error))
    except tree_window.TreePageInvalid as error:
        return _problem(request, status=400, title="Cannot show this", message=str(error))


# -- a queue: read by everyone, edited into the admin's draft -----------------------------------


@viewer_required
@require_http_methods(["GET", "HEAD", "POST"])
def queue(request: HttpRequest, partition: str, queue_path: str) -> HttpResponse:
    """GET: the queue as the reader sees it (an admin with a draft sees the draft's values).
    POST (admins): one edit, staged into the admin's draft; ``action`` says which."""
    try:
        config, draft_errors = _config_for(request)
        context = selectors.queue_detail(
            config=config, partition=partition, queue_path=queue_path
        )
        context["draft_errors"] = selectors.config_problems(model=config, errors=draft_errors)
    except selectors.ConfigNotFound as error:
        return _not_found(request, str(error))
    except DRAFT_BROKEN as error:
        return _draft_broken(request, error)
    if request.method != "POST":
        return _queue_page(request, context)
    handler = _QUEUE_ACTIONS.get(request.POST.get("action", ""))
    if handler is None:
        return _problem(
            request, status=400, title="Unknown action",
            message=ERR_ACTION.format(action=request.POST.get("action", "")),
        )
    return handler(request, context)


def _config_for(request: HttpRequest) -> tuple[Config, list[dict[str, str]]]:
    """The model a page shows and the problems it has now: the admin's draft when they have one
    (valid or not), else the active version."""
    records = selectors.draft_records(author=request.user) if can_edit(request) else []
    if records:
        state = services.draft_state(records=records)
        if state.model is None:
            raise services.ConfigRejected(state.errors)
        return state.model, state.errors
    return _active_model(), []


def _checking(request: HttpRequest) -> bool:
    """A check while the admin types (``check=1``): the verdict as JSON, nothing staged."""
    return request.POST.get("check") == "1"


def _check_answer(
    bound: dict[str, forms.Form] | None = None, problems: list[dict] | None = None
) -> JsonResponse:
    form = next(iter((bound or {}).values()), None)
    errors = form.errors.get_json_data() if form is not None else {}
    return JsonResponse({
        "ok": not errors and not problems,
        "fields": {
            name: [item["message"] for item in items]
            for name, items in errors.items() if name != "__all__"
        },
        "form": [item["message"] for item in errors.get("__all__", [])],
        "problems": [
            {"path": problem.get("path", ""), "text": problem["text"]}
            for problem in problems or []
        ],
    })


def _queue_page(
    request: HttpRequest, context: dict[str, Any], *, status: int = 200,
    bound: dict[str, forms.Form] | None = None, problems: list[dict] | None = None,
) -> HttpResponse:
    if request.method == "POST" and _checking(request):
        return _check_answer(bound, problems)
    queue_model = context["queue"]
    if can_edit(request):
        bound = bound or {}
        context["queue_form"] = bound.get("queue") or forms.QueueForm(
            initial=forms.QueueForm.initial_for(queue_model), is_root=context["is_root"],
            prefix="queue",
        )
        context["child_form"] = bound.get("child") or forms.QueueForm(prefix="child")
        context["new_limit_form"] = bound.get("new_limit") or forms.NewLimitForm(
            prefix="new-limit", limits=queue_model.limits
        )
        for item in context["limits"]:
            item["form"] = bound.get(f"limit-{item['index']}") or forms.LimitForm(
                initial=forms.LimitForm.initial_for(item["entry"]),
                prefix=f"limit-{item['index']}",
            )
        known = sorted(resource_types_known(config=_active_model()))
        for form in (context["new_limit_form"], *(item["form"] for item in context["limits"])):
            form.fields["max_resources"].widget.types = known
        # The editors a page opens: the one just sent back, and every one holding a problem.
        context["open_forms"] = set(bound)
        if not bound and problems is None and context["draft_errors"]:
            _show_draft_errors(context)
    context["problems"] = problems or []
    return render(request, "config/queue.html", context, status=status)


def _show_draft_errors(context: dict[str, Any]) -> None:
    """The draft's current problems on this queue's fields; those about other queues listed
    with links to them, under a heading that says the draft is kept."""
    errors = context["draft_errors"]
    rest = forms.place_draft_errors(
        errors, queue_path=context["queue"].path, queue_form=context["queue_form"],
        limit_forms={item["index"]: item["form"] for item in context["limits"]},
    )
    context["draft_problems"] = rest
    # Every editor holding a problem is opened: the count above says the problems are shown on
    # their fields, and one inside a closed editor would be counted but not seen.
    context["open_forms"].update(
        key for key, form in (
            ("queue", context["queue_form"]),
            *((item["form"].prefix, item["form"]) for item in context["limits"]),
        ) if form.errors
    )
    context["draft_problems_heading"] = DRAFT_PROBLEMS_HEADING.format(
        count=len(errors), plural=pluralize(len(errors))
    )


def _staged(request: HttpRequest, record: dict, state: services.Candidate) -> None:
    messages.success(request, STAGED.format(label=edits.record_label(record)))
    if state.errors:
        count = len(state.errors)
        messages.warning(request, DRAFT_HAS_PROBLEMS.format(count=count, plural=pluralize(count)))
    values = record["args"].get("values") or {}
    for warning in resource_type_warnings(
        config=_active_model(), types=resource_types_of_values(values), text=WARN_RESOURCE_TYPE
    ):
        messages.warning(request, warning)


def _active_model() -> Config:
    current = selectors.active_version()
    return selectors.version_model(current) if current else Config()


def _stage(
    request: HttpRequest, context: dict[str, Any], *, record: dict, done: str,
    form_key: str, form: forms.Form, queue_path: str | None = None,
    limit_index: int | None = None,
) -> HttpResponse:
    """Stage one edit record, even one that leaves the draft invalid, and go to ``done`` (whose
    page shows the draft's problems on their fields). A check while typing answers the
    candidate's problems instead; an edit that cannot be made shows the page again."""
    try:
        if _checking(request):
            services.draft_check(author=request.user, record=record)
            return _check_answer()
        state = services.draft_stage(author=request.user, record=record)
    except services.ConfigRejected as rejected:
        is_queue_form = isinstance(form, forms.QueueForm)
        problems = forms.place_errors(
            rejected.errors, queue_path=queue_path or context["queue"].path,
            queue_form=form if is_queue_form else None,
            limit_form=None if is_queue_form else form, limit_index=limit_index,
        )
        return _queue_page(
            request, context, status=400, bound={form_key: form}, problems=problems
        )
    except (edits.NotFound, edits.EditRefused) as error:
        form.add_error(None, str(error))
        return _queue_page(request, context, status=400, bound={form_key: form})
    _staged(request, record, state)
    return redirect(done)


def _nothing_changed(request: HttpRequest, context: dict[str, Any]) -> HttpResponse:
    if _checking(request):
        return _check_answer()
    messages.info(request, NOTHING_CHANGED)
    return redirect(_queue_url(context["partition"], context["queue"].path))


def _queue_url(partition: str, path: str) -> str:
    return reverse("config:queue", args=[partition, path])


def _queue_save(request: HttpRequest, context: dict[str, Any]) -> HttpResponse:
    queue_model, partition = context["queue"], context["partition"]
    form = forms.QueueForm(
        request.POST, initial=forms.QueueForm.initial_for(queue_model),
        is_root=context["is_root"], prefix="queue",
    )
    if not form.is_valid():
        return _queue_page(request, context, status=400, bound={"queue": form})
    values = form.values(only_changed=True)
    if not values:
        return _nothing_changed(request, context)
    parent, _, _ = queue_model.path.rpartition(".")
    new_path = f"{parent}.{values['name'].lower()}" if "name" in values else queue_model.path
    record = edits.edit_record(
        "queue_update", partition=partition, queue_path=queue_model.path, values=values
    )
    return _stage(
        request, context, record=record, done=_queue_url(partition, new_path), form_key="queue",
        form=form, queue_path=new_path,
    )


def _child_add(request: HttpRequest, context: dict[str, Any]) -> HttpResponse:
    queue_model, partition = context["queue"], context["partition"]
    form = forms.QueueForm(request.POST, prefix="child")
    if not form.is_valid():
        return _queue_page(request, context, status=400, bound={"child": form})
    values = {key: value for key, value in form.values().items() if value not in (None, {}, "")}
    new_path = f"{queue_model.path}.{values['name'].lower()}"
    record = edits.edit_record(
        "queue_create", partition=partition, parent_path=queue_model.path, values=values
    )
    return _stage(
        request, context, record=record, done=_queue_url(partition, new_path), form_key="child",
        form=form, queue_path=new_path,
    )


def _stage_formless(
    request: HttpRequest, context: dict[str, Any], *, kind: str, done: str, **args: Any
) -> HttpResponse:
    """Stage an edit that has no form (a button): errors are listed at the top of the page."""
    try:
        record = edits.edit_record(kind, **args)
        state = services.draft_stage(author=request.user, record=record)
    except (edits.NotFound, edits.EditRefused) as error:
        return _queue_page(request, context, status=400, problems=_problems_of(error))
    _staged(request, record, state)
    return redirect(done)


def _queue_delete(request: HttpRequest, context: dict[str, Any]) -> HttpResponse:
    queue_model, partition = context["queue"], context["partition"]
    return _stage_formless(
        request, context, kind="queue_delete", partition=partition, queue_path=queue_model.path,
        # The root has no parent to go back to; deleting it is refused before ``done`` is used.
        done=_queue_url(partition, queue_model.path.rpartition(".")[0] or queue_model.path),
    )


def _limit_add(request: HttpRequest, context: dict[str, Any]) -> HttpResponse:
    queue_model, partition = context["queue"], context["partition"]
    form = forms.NewLimitForm(request.POST, prefix="new-limit", limits=queue_model.limits)
    if not form.is_valid():
        return _queue_page(request, context, status=400, bound={"new_limit": form})
    position = form.cleaned_data["position"]
    record = edits.edit_record(
        "limit_create", partition=partition, queue_path=queue_model.path, values=form.values(),
        position=position,
    )
    return _stage(
        request, context, record=record, done=_queue_url(partition, queue_model.path),
        form_key="new_limit", form=form, limit_index=position,
    )


def _limit_index(request: HttpRequest, context: dict[str, Any]) -> int | None:
    raw = request.POST.get("index", "")
    if not selectors.is_whole_number(raw) or int(raw) >= len(context["limits"]):
        return None
    return int(raw)


def _limit_save(request: HttpRequest, context: dict[str, Any]) -> HttpResponse:
    queue_model, partition = context["queue"], context["partition"]
    index = _limit_index(request, context)
    if index is None:
        return _bad_index(request, context)
    entry = context["limits"][index]["entry"]
    form = forms.LimitForm(
        request.POST, initial=forms.LimitForm.initial_for(entry), prefix=f"limit-{index}"
    )
    if not form.is_valid():
        return _queue_page(request, context, status=400, bound={f"limit-{index}": form})
    values = {key: value for key, value in form.values().items() if key in form.changed_data}
    if not values:
        return _nothing_changed(request, context)
    record = edits.edit_record(
        "limit_update", partition=partition, queue_path=queue_model.path, index=index,
        values=values,
    )
    return _stage(
        request, context, record=record, done=_queue_url(partition, queue_model.path),
        form_key=f"limit-{index}", form=form, limit_index=index,
    )


def _limit_change(kind: str, step: int = 0) -> Callable[[HttpRequest, dict], HttpResponse]:
    """Remove an entry, or move it ``step`` places (up is -1)."""

    def handler(request: HttpRequest, context: dict[str, Any]) -> HttpResponse:
        queue_model, partition = context["queue"], context["partition"]
        index = _limit_index(request, context)
        if index is None:
            return _bad_index(request, context)
        args: dict[str, Any] = {"partition": partition, "queue_path": queue_model.path,
                                "index": index}
        if kind == "limit_move":
            args["to_index"] = index + step
            if not 0 <= args["to_index"] < len(context["limits"]):
                messages.info(request, NOTHING_CHANGED)
                return redirect(_queue_url(partition, queue_model.path))
        return _stage_formless(
            request, context, kind=kind, done=_queue_url(partition, queue_model.path), **args
        )

    return handler


def _bad_index(request: HttpRequest, context: dict[str, Any]) -> HttpResponse:
    problem = ERR_LIMIT_INDEX.format(index=request.POST.get("index", ""))
    return _queue_page(request, context, status=400, problems=[{"text": problem}])


def _problems_of(error: Exception) -> list[dict[str, str]]:
    if isinstance(error, services.ConfigRejected):
        return [{**e, "text": selectors.error_text(e)} for e in error.errors]
    return [{"text": str(error)}]


_QUEUE_ACTIONS: dict[str, Callable[[HttpRequest, dict[str, Any]], HttpResponse]] = {
    "queue-save": _queue_save,
    "child-add": _child_add,
    "queue-delete": _queue_delete,
    "limit-add": _limit_add,
    "limit-save": _limit_save,
    "limit-delete": _limit_change("limit_delete"),
    "limit-up": _limit_change("limit_move", -1),
    "limit-down": _limit_change("limit_move", 1),
}


# -- the draft: review, apply, rebase, discard --------------------------------------------------


@admin_required
@require_http_methods(["GET", "HEAD", "POST"])
def draft(request: HttpRequest) -> HttpResponse:
    action = request.POST.get("action", "") if request.method == "POST" else ""
    form = forms.ApplyForm(request.POST if action == "apply" else None)
    context: dict[str, Any] = {"form": form}
    try:
        if action == "apply" and form.is_valid():
            version = services.draft_apply(
                author=request.user, comment=form.cleaned_data["comment"]
            )
            messages.success(request, APPLIED.format(number=version.number))
            return redirect("config:version", version.number)
        if action == "discard":
            services.draft_discard(author=request.user)
            messages.info(request, DISCARDED)
            return redirect("config:tree")
        if action == "rebase":
            services.draft_rebase(author=request.user)
            messages.success(request, REBASED)
            return redirect("config:draft")
        if action == "unstage":
            raw = request.POST.get("position", "")
            position = int(raw) if selectors.is_whole_number(raw) else 0
            services.draft_unstage(author=request.user, position=position)
            messages.info(request, UNSTAGED)
            return redirect("config:draft")
        if action not in ("", "apply"):
            context["problems"] = [{"text": ERR_ACTION.format(action=action)}]
    except services.ConfigConflict as conflict:
        context["conflict"] = _conflict_context(conflict)
    except DRAFT_BROKEN as error:
        context["problems"] = _problems_of(error)
    context.update(_draft_context(request))
    status = 409 if "conflict" in context else 400 if context.get("problems") else 200
    return render(request, "config/draft.html", context, status=status)


def _draft_context(request: HttpRequest) -> dict[str, Any]:
    found = selectors.draft_get(author=request.user)
    if found is None:
        return {"draft": None}
    out: dict[str, Any] = {
        "draft": found, "staged": selectors.draft_view(records=found.edits),
        "active": selectors.active_version_number(),
    }
    try:
        state = services.draft_state(records=found.edits)
    except (edits.NotFound, edits.EditRefused) as error:
        out["broken"] = _problems_of(error)
        return out
    if state.model is None:
        out["broken"] = _problems_of(services.ConfigRejected(state.errors))
        return out
    current = selectors.active_version()
    # A draft made in the admin's own document is compared with it; one made afresh from the
    # model, with the active model written the same way.
    old = (
        "" if current is None else current.yaml if state.roundtrip
        else selectors.canonical_text(selectors.version_model(current))
    )
    out["preview"] = selectors.config_preview(
        candidate=state.model, yaml_text=state.yaml_text, old_text=old,
        impact_checked=not state.errors,
    )
    if state.errors:
        out["draft_problems"] = selectors.config_problems(model=state.model, errors=state.errors)
        out["draft_problems_heading"] = DRAFT_PROBLEMS_HEADING.format(
            count=len(state.errors), plural=pluralize(len(state.errors))
        )
    if found.base_version != out["active"]:
        out["moved"] = selectors.config_moved(base=found.base_version)
    return out


def _conflict_context(conflict: services.ConfigConflict) -> dict[str, Any]:
    return {
        "message": str(conflict),
        "base": conflict.base_version,
        "active": conflict.active_version,
        "changes": selectors.conflict_view(conflict.changes),
        "applied_by": selectors.version_author(number=conflict.active_version),
    }


def _draft_broken(request: HttpRequest, error: Exception) -> HttpResponse:
    messages.error(request, DRAFT_INVALID.format(error=error))
    return redirect("config:draft")


# -- YAML: view, upload or paste, validate, preview, apply --------------------------------------


# A document above this size is not put in the page whole (issue 27: a page under 300 KB at any
# size): the paste box starts empty and the listing shows the first YAML_HEAD_LINES lines.
YAML_SHOWN_BYTES = 200_000
YAML_HEAD_LINES = 2_000


def yaml_context(request: HttpRequest, **more: Any) -> dict[str, Any]:
    """What the YAML page shows beside its form: the active version, its partitions (for the
    export links) and, for an admin, the ElasticQuota import form."""
    current = selectors.active_version()
    partitions = (
        [partition.name for partition in selectors.version_model(current).partitions]
        if current is not None else []
    )
    context: dict[str, Any] = {"current": current, "partitions": partitions}
    if current is not None and len(current.yaml) > YAML_SHOWN_BYTES:
        # A large site's document is megabytes: the page shows its head, the download the rest.
        lines = current.yaml.splitlines()
        context["yaml_head"] = "\n".join(lines[:YAML_HEAD_LINES])
        context["yaml_head_lines"] = min(len(lines), YAML_HEAD_LINES)
        context["yaml_lines"] = len(lines)
        context["yaml_kilobytes"] = len(current.yaml.encode()) // 1000
    if can_edit(request):
        context["eq_form"] = forms.ElasticQuotaForm(prefix="eq")
    return {**context, **more}


@viewer_required
@require_http_methods(["GET", "HEAD", "POST"])
def yaml_page(request: HttpRequest) -> HttpResponse:
    context = yaml_context(request)
    current = context["current"]
    if not can_edit(request):
        return render(request, "config/yaml.html", context)
    if request.method != "POST":
        initial: dict[str, Any] = {"base_version": current.number if current else None}
        if "yaml_head" in context:
            initial["text"] = ""  # too large to carry in the page: downloaded, edited, uploaded
        context["form"] = forms.YamlForm(
            initial=initial, current_text=current.yaml if current else "",
        )
        # The paste box starts with the active document: shown there, not a second time below.
        context["yaml_in_form"] = current is not None and "yaml_head" not in context
        return render(request, "config/yaml.html", context)
    form = forms.YamlForm(
        request.POST, request.FILES, current_text=current.yaml if current else ""
    )
    context["form"] = form
    if not form.is_valid():
        return render(request, "config/yaml.html", context, status=400)
    yaml_text = form.cleaned_data["yaml_text"]
    base = form.cleaned_data["base_version"]
    try:
        # A YuniKorn ConfigMap gives its queues.yaml; the keys it ignores are said.
        unwrapped = configmap_unwrap(text=yaml_text)
        yaml_text = unwrapped.yaml_text
        for warning in unwrapped.warnings:
            messages.warning(request, warning)
        if request.POST.get("action") == "apply":
            version = services.config_apply(
                yaml_text=yaml_text, author=request.user,
                comment=form.cleaned_data["comment"], base_version=base,
            )
            messages.success(request, APPLIED.format(number=version.number))
            # The stored version's model is the one the apply parsed (kept by content).
            for warning in write_resource_type_warnings(
                base_version=base,
                types=resource_types_named(config=selectors.version_model(version)),
            ):
                messages.warning(request, warning)
            return redirect("config:version", version.number)
        candidate = services.config_validate(yaml_text=yaml_text)
    except services.ConfigRejected as rejected:
        context["errors"] = selectors.yaml_errors(text=yaml_text, errors=rejected.errors)
        return render(request, "config/yaml.html", context, status=400)
    except services.ConfigConflict as conflict:
        context["conflict"] = _conflict_context(conflict)
        return render(request, "config/yaml.html", context, status=409)
    # A validated preview: the same form again, text kept, to apply after reading the preview.
    context["preview"] = selectors.config_preview(candidate=candidate, yaml_text=yaml_text)
    context["warnings"] = document_resource_type_warnings(
        active=_active_model(), candidate=candidate
    )
    context["form"] = forms.YamlForm(initial={
        "text": yaml_text, "base_version": context["preview"]["active"],
        "comment": form.cleaned_data["comment"],
    })
    return render(request, "config/yaml.html", context)


@viewer_required
@require_safe
def versions(request: HttpRequest) -> HttpResponse:
    context = selectors.versions_history(page=request.GET.get("page"))
    return render(request, "config/versions.html", context)


@viewer_required
@require_safe
def version(request: HttpRequest, number: int) -> HttpResponse:
    try:
        found = selectors.version_get(number=number)
    except ConfigVersion.DoesNotExist:
        return _not_found(request, selectors.ERR_NO_VERSION.format(number=number))
    if request.GET.get("download"):
        configmap = request.GET.get("format") == "configmap"
        response = HttpResponse(
            configmap_render(yaml_text=found.yaml) if configmap else found.yaml,
            content_type="application/yaml; charset=utf-8",
        )
        name = "yunikorn-configs" if configmap else "quotaweb-config"
        response["Content-Disposition"] = f'attachment; filename="{name}-v{found.number}.yaml"'
        return response
    context = {"version": found, "active": selectors.active_version_number()}
    return render(request, "config/version.html", context)


@viewer_required
@require_safe
def version_diff(request: HttpRequest, number: int) -> HttpResponse:
    raw = request.GET.get("against", "").strip()
    if not raw:
        if number <= 1:
            return _problem(
                request, status=400, title="Nothing to compare",
                message=FIRST_VERSION.format(number=number),
            )
        raw = str(number - 1)
    if not selectors.is_whole_number(raw):
        return _problem(
            request, status=400, title="Bad comparison", message=ERR_AGAINST.format(value=raw)
        )
    try:
        context = selectors.version_diff(number=number, against=int(raw))
    except selectors.ConfigNotFound as error:
        return _not_found(request, str(error))
    return render(request, "config/diff.html", context)


@admin_required
@require_http_methods(["GET", "HEAD", "POST"])
def rollback(request: HttpRequest, number: int) -> HttpResponse:
    """GET: what rolling back to version ``number`` would change; POST: do it, as a new version."""
    try:
        old = selectors.version_get(number=number)
    except ConfigVersion.DoesNotExist:
        return _not_found(request, selectors.ERR_NO_VERSION.format(number=number))
    form = forms.ApplyForm(request.POST or None, initial={
        "base_version": selectors.active_version_number(),
        "comment": services.ROLLBACK_COMMENT.format(number=number),
    })
    context: dict[str, Any] = {"target": old, "form": form}
    status = 200
    if request.method == "POST" and form.is_valid():
        try:
            version = services.config_rollback(
                version=number, author=request.user, comment=form.cleaned_data["comment"],
                base_version=form.cleaned_data["base_version"],
            )
        except services.ConfigConflict as conflict:
            context["conflict"] = _conflict_context(conflict)
            status = 409
        except services.ConfigRejected as rejected:
            context["problems"] = _problems_of(rejected)
            status = 400
        else:
            if version.number == selectors.active_version_number() and version.number != number:
                messages.success(request, ROLLED_BACK.format(number=number, new=version.number))
            return redirect("config:version", version.number)
    try:
        candidate = services.config_validate(yaml_text=old.yaml)
    except services.ConfigRejected as rejected:
        context["problems"] = _problems_of(rejected)
        return render(request, "config/rollback.html", context, status=400)
    context["preview"] = selectors.config_preview(candidate=candidate, yaml_text=old.yaml)
    if status == 409:
        context["form"] = forms.ApplyForm(initial={
            "base_version": context["preview"]["active"], "comment": form.cleaned_data["comment"]
        })
    return render(request, "config/rollback.html", context, status=status)
