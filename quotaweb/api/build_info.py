"""quotaweb's own build, as YuniKorn's ``/ws/v1/clusters`` reports a resource manager's
(``rmBuildInformation``: a list of string maps, one per resource manager; YuniKorn's web UI shows
the first on its dashboard).

- ``buildVersion``: the installed package's version (its metadata);
- ``buildDate``: ``QUOTAWEB_BUILD_DATE`` when the packager set it, else when the package was
  installed (its metadata file's time), in YuniKorn's format (``2006-01-02T15:04:05-0700``);
- ``buildCommit``: ``QUOTAWEB_BUILD_COMMIT``, else the commit pip recorded for an install from a
  Git repository (``direct_url.json``); left out when neither is known;
- ``isPluginVersion`` "false" (quotaweb is no scheduler plugin), ``rmId`` the cluster's id, and
  ``pythonVersion`` and ``arch`` where YuniKorn gives ``goVersion`` and ``arch``.
"""

from __future__ import annotations

import json
import platform
from datetime import UTC, datetime
from functools import cache
from importlib import metadata
from pathlib import Path

from django.conf import settings

PACKAGE = "quotaweb"
# Go's reference time as YuniKorn formats its build date.
DATE_FORMAT = "%Y-%m-%dT%H:%M:%S%z"


@cache
def _installed() -> tuple[str, str, str]:
    """The package's version, install time and recorded commit (read once: they cannot change
    while the process runs)."""
    try:
        dist = metadata.distribution(PACKAGE)
    except metadata.PackageNotFoundError:
        return "unknown", "", ""
    installed = ""
    # The metadata folder (``*.dist-info``, or ``*.egg-info`` for an editable install) is
    # written at install time. ``_path`` is the standard library's own attribute for it.
    folder = getattr(dist, "_path", None)
    if isinstance(folder, Path):
        try:
            installed = datetime.fromtimestamp(folder.stat().st_mtime, UTC).strftime(DATE_FORMAT)
        except OSError:
            installed = ""
    commit = ""
    direct = dist.read_text("direct_url.json")
    if direct:
        try:
            commit = json.loads(direct).get("vcs_info", {}).get("commit_id", "")
        except (ValueError, AttributeError):
            commit = ""
    return dist.version, installed, commit


def build_information(*, rm_id: str) -> list[dict[str, str]]:
    version, installed, commit = _installed()
    info = {
        "buildVersion": version,
        "buildDate": settings.QUOTAWEB_BUILD_DATE or installed,
        "isPluginVersion": "false",
        "rmId": rm_id,
        "pythonVersion": platform.python_version(),
        "arch": platform.machine(),
    }
    commit = settings.QUOTAWEB_BUILD_COMMIT or commit
    if commit:
        info["buildCommit"] = commit
    if not info["buildDate"]:
        del info["buildDate"]
    return [info]
