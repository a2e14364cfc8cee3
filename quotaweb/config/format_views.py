"""The configuration page's other formats: Koordinator ElasticQuota objects in (staged in the
admin's draft, so the draft page shows the diff and impact before anything is applied) and out
(a download per partition). The reading and writing are ``quotaweb.config.elasticquota``'s."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST, require_safe

from quotaweb.accounts.decorators import admin_required, viewer_required
from quotaweb.config import edits, forms, selectors, services
from quotaweb.config.elasticquota import elasticquota_export, elasticquota_read
from quotaweb.config.views import _not_found, _problem, yaml_context

IMPORT_STAGED = (
    "Staged in your draft: {count} quota group{plural} from ElasticQuota objects as the queues "
    "below root in partition {partition}. Review the changes and their impact, then apply."
)
IMPORT_REFUSED = "ElasticQuota import: {count} problem{plural}, nothing was staged"


@admin_required
@require_POST
def elasticquota_import(request: HttpRequest) -> HttpResponse:
    form = forms.ElasticQuotaForm(request.POST, request.FILES, prefix="eq")
    context = yaml_context(request, eq_form=form)
    if not form.is_valid():
        return render(request, "config/yaml.html", context, status=400)
    text = form.cleaned_data["yaml_text"]
    try:
        imported = elasticquota_read(partition=form.cleaned_data["partition"], text=text)
        # Judged on its own against the active version first: what cannot be applied is not
        # staged, and its problems name the objects they come from.
        state = services.config_state(edits=[imported.edit()])
        if state.errors:
            raise services.ConfigRejected(imported.named(state.errors))
        services.draft_stage(author=request.user, record=imported.record)
    except services.ConfigRejected as rejected:
        errors = selectors.yaml_errors(text=text, errors=rejected.errors)
        count = len(errors)
        context["eq_errors"] = errors
        context["eq_heading"] = IMPORT_REFUSED.format(
            count=count, plural="" if count == 1 else "s"
        )
        return render(request, "config/yaml.html", context, status=400)
    except (edits.NotFound, edits.EditRefused) as error:
        form.add_error(None, str(error))
        return render(request, "config/yaml.html", context, status=400)
    messages.success(request, IMPORT_STAGED.format(
        count=imported.groups, plural="" if imported.groups == 1 else "s",
        partition=imported.partition,
    ))
    for note in imported.notes:
        messages.info(request, note)
    return redirect("config:draft")


@viewer_required
@require_safe
def elasticquota_download(request: HttpRequest, partition: str) -> HttpResponse:
    try:
        text = elasticquota_export(partition=partition)
    except selectors.ConfigNotFound as missing:
        return _not_found(request, str(missing))
    except services.ConfigRejected as rejected:
        return _problem(
            request, status=409, title="Cannot export", message=rejected.errors[0]["message"]
        )
    response = HttpResponse(text, content_type="application/yaml; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="elasticquota-{partition}.yaml"'
    return response
