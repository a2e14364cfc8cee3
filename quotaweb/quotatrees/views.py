"""The quota tree pages under ``/trees/``: the list of trees and forests, a tree drawn live, a
forest's trees side by side, a consumer's story, the tree editor (rows, JSON import and export),
and the admins' mode switches, forest edits and deletions.

Everyone logged in reads; every change needs a quota admin (a viewer's POST is refused with 403
and changes nothing; the editor is for admins only). Each view calls one page selector or one
service; a refused change shows the page again with the errors where they belong, a successful
one redirects with a message (POST, redirect, GET).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from quotaweb.accounts.decorators import admin_required, viewer_required
from quotaweb.engine.gateway import EngineNotLoaded
from quotaweb.engine.owners import NOT_OWNER_HEADER, NotOwner
from quotaweb.engine.quotatrees import TreesNotLoaded
from quotaweb.quotatrees import page_selectors, services
from quotaweb.quotatrees.consumer_forms import AddConsumerForm, ReleaseConsumerForm
from quotaweb.quotatrees.forms import ForestForm, ImportForm, ModeForm, TreeEditor
from trackers.quotatree import NOT_FOUND, QuotaTreeError

TITLE_NOT_FOUND = "Not found"
TITLE_STARTING = "Starting"
ERR_STARTING = (
    "The quota trees are still loading in this server, so there is nothing to show yet. "
    "Reload this page in a moment."
)
DONE_SAVED = "Saved tree {tree} as version {version}."
DONE_CREATED = "Created tree {tree} (version {version})."
DONE_UNPLACED = (
    " These consumers could not be placed again and were removed from it: {consumers}."
)
DONE_MODE = "Tree {tree} is now in {mode} mode."
DONE_FOREST_MODE = "Forest {forest} is now in {mode} mode."
DONE_DELETED = "Deleted tree {tree}. Its versions are kept."
DONE_RELEASED = (
    "Released {consumer} from tree {tree}: its quota is free again, and borrowers above their "
    "group may have slid back down."
)
DONE_FOREST_SAVED = "Forest {forest} now allocates on {trees}, in this order."
DONE_FOREST_DELETED = "Forest {forest} is gone; its trees and their consumers stay."
LOADED = (
    "The document is in the rows below; nothing is saved yet. Check them, then save."
)


def _problem(request: HttpRequest, *, status: int, title: str, message: str) -> HttpResponse:
    return render(request, "quotatrees/problem.html",
                  {"title": title, "message": message}, status=status)


def _guarded(request: HttpRequest, answer: Callable[[], HttpResponse]) -> HttpResponse:
    try:
        return answer()
    except page_selectors.PageNotFound as error:
        return _problem(request, status=404, title=TITLE_NOT_FOUND, message=str(error))
    except QuotaTreeError as error:
        if error.code != NOT_FOUND:
            raise
        return _problem(request, status=404, title=TITLE_NOT_FOUND, message=str(error))
    except (EngineNotLoaded, TreesNotLoaded) as error:
        response = _problem(request, status=503, title=TITLE_STARTING, message=ERR_STARTING)
        response["Retry-After"] = "5"
        if isinstance(error, NotOwner):
            response[NOT_OWNER_HEADER] = "1"
        return response


# -- the list ------------------------------------------------------------------------------------


def _index(request: HttpRequest, *, status: int = 200,
           forest_form: ForestForm | None = None) -> HttpResponse:
    context = page_selectors.trees_page()
    context["forest_form"] = forest_form or ForestForm()
    return render(request, "quotatrees/index.html", context, status=status)


@require_safe
@viewer_required
def index(request: HttpRequest) -> HttpResponse:
    return _guarded(request, lambda: _index(request))


# -- a tree --------------------------------------------------------------------------------------


def _consumer_forms(
    part: dict[str, Any], data: Any = None
) -> tuple[AddConsumerForm, ReleaseConsumerForm]:
    """The admin's add and release forms for a tree as its page shows it (bound to ``data``)."""
    rows = part["rows"]
    add = AddConsumerForm(
        data, leaves=[row.name for row in rows if row.leaf],
        resources=part["view"]["resourceNames"],
    )
    release = ReleaseConsumerForm(
        data, consumers=sorted(placed.id for row in rows for placed in row.consumers)
    )
    return add, release


def _tree(request: HttpRequest, tree: str, *, status: int = 200, error: str = "",
          add_form: AddConsumerForm | None = None,
          release_form: ReleaseConsumerForm | None = None) -> HttpResponse:
    context = page_selectors.tree_page(tree=tree)
    context["error"] = error
    add, release = _consumer_forms(context["tree"])
    context["add_form"] = add_form or add
    context["release_form"] = release_form or release
    return render(request, "quotatrees/tree.html", context, status=status)


@require_safe
@viewer_required
def tree_page(request: HttpRequest, tree: str) -> HttpResponse:
    return _guarded(request, lambda: _tree(request, tree))


@require_safe
@viewer_required
def document(request: HttpRequest, tree: str) -> HttpResponse:
    """The active document, as a file to download (export)."""

    def answer() -> HttpResponse:
        response = HttpResponse(page_selectors.tree_export(tree=tree),
                                content_type="application/json")
        response["Content-Disposition"] = f'attachment; filename="{tree}.json"'
        return response

    return _guarded(request, answer)


@require_POST
@viewer_required
def mode(request: HttpRequest, tree: str) -> HttpResponse:
    form = ModeForm(request.POST)

    def answer() -> HttpResponse:
        if not form.is_valid():
            return _tree(request, tree, status=400, error=" ".join(form.errors["mode"]))
        services.tree_mode_set(tree=tree, mode=form.cleaned_data["mode"])
        messages.success(request, DONE_MODE.format(tree=tree, mode=form.cleaned_data["mode"]))
        return redirect("quotatrees:tree", tree=tree)

    return _guarded(request, answer)


@require_POST
@admin_required
def consumer_add(request: HttpRequest, tree: str) -> HttpResponse:
    """Allocate a consumer from the page's form; the answer says where it landed (or why it
    did not fit) in the words of ``quotaweb.quotatrees.explain``. Refused: nothing changed."""

    def answer() -> HttpResponse:
        form, _ = _consumer_forms(page_selectors.tree_page(tree=tree)["tree"], request.POST)
        if not form.is_valid():
            return _tree(request, tree, status=400, add_form=form)
        try:
            result = services.tree_allocate(tree=tree, body=form.body())
        except services.TreeRejected as rejected:
            for problem in rejected.errors:
                form.add_error(None, problem["message"])
            return _tree(request, tree, status=400, add_form=form)
        except QuotaTreeError as refused:
            if refused.code == NOT_FOUND:
                raise
            form.add_error(None, f"{refused}; nothing changed.")
            return _tree(request, tree, status=409, add_form=form)
        if not result.allocated:
            form.add_error(None, result.explanation or result.message)
            return _tree(request, tree, status=409, add_form=form)
        messages.success(request, result.explanation)
        return redirect("quotatrees:tree", tree=tree)

    return _guarded(request, answer)


@require_POST
@admin_required
def consumer_release(request: HttpRequest, tree: str) -> HttpResponse:
    def answer() -> HttpResponse:
        _, form = _consumer_forms(page_selectors.tree_page(tree=tree)["tree"], request.POST)
        if not form.is_valid():
            return _tree(request, tree, status=400, release_form=form)
        consumer = form.cleaned_data["consumer"]
        services.tree_release(tree=tree, consumer=consumer)
        messages.success(request, DONE_RELEASED.format(consumer=consumer, tree=tree))
        return redirect("quotatrees:tree", tree=tree)

    return _guarded(request, answer)


@require_POST
@viewer_required
def delete(request: HttpRequest, tree: str) -> HttpResponse:
    def answer() -> HttpResponse:
        try:
            services.tree_delete(tree=tree)
        except QuotaTreeError as error:
            if error.code == NOT_FOUND:
                raise
            return _tree(request, tree, status=409, error=f"Not deleted: {error}.")
        messages.success(request, DONE_DELETED.format(tree=tree))
        return redirect("quotatrees:index")

    return _guarded(request, answer)


# -- the editor ------------------------------------------------------------------------------------


def _editor(request: HttpRequest, editor: TreeEditor, *, status: int = 200,
            import_form: ImportForm | None = None, loaded: bool = False) -> HttpResponse:
    return render(request, "quotatrees/editor.html", {
        "editor": editor, "import_form": import_form or ImportForm(), "loaded": loaded,
        "loaded_text": LOADED,
    }, status=status)


def _saved(request: HttpRequest, tree: str, answer: dict[str, Any]) -> HttpResponse:
    done = DONE_CREATED if answer["created"] else DONE_SAVED
    text = done.format(tree=tree, version=answer["version"])
    if answer["unplaced"]:
        text += DONE_UNPLACED.format(consumers=", ".join(answer["unplaced"]))
    messages.success(request, text)
    return redirect("quotatrees:tree", tree=tree)


def _edit(request: HttpRequest, tree: str | None) -> HttpResponse:
    """GET: the rows of the active document (or a blank tree); POST: save, add a row or a
    column, or import a document (into the rows, or straight as a new version)."""
    if request.method != "POST":
        if tree is None:
            return _editor(request, TreeEditor.blank())
        return _editor(request, TreeEditor.from_document(
            page_selectors.editor_document(tree=tree), tree=tree))
    action = request.POST.get("action", "save")
    if action in ("load", "import"):
        return _import(request, tree, save=action == "import")
    editor = TreeEditor.from_post(request.POST, tree=tree)
    if action == "add-row":
        editor.add_row()
        return _editor(request, editor)
    if action == "add-resource":
        editor.add_column()
        return _editor(request, editor)
    taken = page_selectors.tree_names() if tree is None else ()
    if not editor.check(taken=taken):
        return _editor(request, editor, status=400)
    return _put(request, editor, editor.document())


def _put(request: HttpRequest, editor: TreeEditor, document: dict[str, Any],
         import_form: ImportForm | None = None) -> HttpResponse:
    name = editor.tree_name()
    try:
        answer = services.tree_put(tree=name, document=document, author=request.user,
                                   comment=editor.comment.value)
    except services.TreeRejected as rejected:
        editor.add_errors(rejected.errors)
        return _editor(request, editor, status=400, import_form=import_form)
    return _saved(request, name, answer)


def _import(request: HttpRequest, tree: str | None, *, save: bool) -> HttpResponse:
    form = ImportForm(request.POST, request.FILES)
    if not form.is_valid():
        editor = TreeEditor.from_post(request.POST, tree=tree)
        return _editor(request, editor, status=400, import_form=form)
    document = form.cleaned_data["document"]
    editor = TreeEditor.from_document(document, tree=tree)
    editor.comment.value = request.POST.get("comment", "").strip()
    if not save:
        return _editor(request, editor, loaded=True)
    # A new tree takes the document's name: it must be free and usable here.
    if tree is None and not editor.check(taken=page_selectors.tree_names()):
        return _editor(request, editor, status=400, import_form=form)
    return _put(request, editor, document, import_form=form)


@require_http_methods(["GET", "HEAD", "POST"])
@admin_required
def new(request: HttpRequest) -> HttpResponse:
    return _guarded(request, lambda: _edit(request, None))


@require_http_methods(["GET", "HEAD", "POST"])
@admin_required
def edit(request: HttpRequest, tree: str) -> HttpResponse:
    def answer() -> HttpResponse:
        if request.method == "POST":
            page_selectors.editor_document(tree=tree)  # NOT_FOUND: no tree made by an edit
        return _edit(request, tree)

    return _guarded(request, answer)


# -- forests ---------------------------------------------------------------------------------------


def _forest(request: HttpRequest, forest: str, *, status: int = 200,
            form: ForestForm | None = None, error: str = "") -> HttpResponse:
    context = page_selectors.forest_page(forest=forest)
    context["form"] = form or ForestForm(
        forest=forest, initial={"trees": ", ".join(context["forest"]["trees"])})
    context["error"] = error
    return render(request, "quotatrees/forest.html", context, status=status)


@require_safe
@viewer_required
def forest_page(request: HttpRequest, forest: str) -> HttpResponse:
    return _guarded(request, lambda: _forest(request, forest))


@require_POST
@viewer_required
def forest_new(request: HttpRequest) -> HttpResponse:
    def answer() -> HttpResponse:
        form = ForestForm(request.POST, taken=page_selectors.forest_names())
        if not form.is_valid():
            return _index(request, status=400, forest_form=form)
        name, trees = form.cleaned_data["name"], form.cleaned_data["trees"]
        try:
            services.forest_put(forest=name, trees=trees)
        except QuotaTreeError as error:
            form.add_error("trees", str(error))
            return _index(request, status=400, forest_form=form)
        messages.success(request, DONE_FOREST_SAVED.format(forest=name, trees=", ".join(trees)))
        return redirect("quotatrees:forest", forest=name)

    return _guarded(request, answer)


@require_POST
@viewer_required
def forest_edit(request: HttpRequest, forest: str) -> HttpResponse:
    def answer() -> HttpResponse:
        form = ForestForm(request.POST, forest=forest)
        if not form.is_valid():
            return _forest(request, forest, status=400, form=form)
        trees = form.cleaned_data["trees"]
        if forest not in page_selectors.forest_names():
            raise page_selectors.PageNotFound(page_selectors.ERR_NO_FOREST.format(forest=forest))
        try:
            services.forest_put(forest=forest, trees=trees)
        except QuotaTreeError as error:
            form.add_error("trees", str(error))
            return _forest(request, forest, status=400, form=form)
        messages.success(request, DONE_FOREST_SAVED.format(forest=forest,
                                                           trees=", ".join(trees)))
        return redirect("quotatrees:forest", forest=forest)

    return _guarded(request, answer)


@require_POST
@viewer_required
def forest_mode(request: HttpRequest, forest: str) -> HttpResponse:
    form = ModeForm(request.POST)

    def answer() -> HttpResponse:
        if not form.is_valid():
            return _forest(request, forest, status=400, error=" ".join(form.errors["mode"]))
        try:
            services.forest_mode_set(forest=forest, mode=form.cleaned_data["mode"])
        except QuotaTreeError as error:
            if error.code == NOT_FOUND:
                raise page_selectors.PageNotFound(str(error)) from None
            raise
        messages.success(request, DONE_FOREST_MODE.format(forest=forest,
                                                          mode=form.cleaned_data["mode"]))
        return redirect("quotatrees:forest", forest=forest)

    return _guarded(request, answer)


@require_POST
@viewer_required
def forest_delete(request: HttpRequest, forest: str) -> HttpResponse:
    def answer() -> HttpResponse:
        try:
            services.forest_delete(forest=forest)
        except QuotaTreeError as error:
            if error.code == NOT_FOUND:
                raise page_selectors.PageNotFound(str(error)) from None
            raise
        messages.success(request, DONE_FOREST_DELETED.format(forest=forest))
        return redirect("quotatrees:index")

    return _guarded(request, answer)


# -- consumers -------------------------------------------------------------------------------------


@require_safe
@viewer_required
def consumer(request: HttpRequest, consumer: str) -> HttpResponse:
    return _guarded(request, lambda: render(
        request, "quotatrees/consumer.html", page_selectors.consumer_page(consumer=consumer)))
