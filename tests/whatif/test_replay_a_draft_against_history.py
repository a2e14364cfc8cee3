"""A what-if replay of an admin's draft (issue 30): through the API and the draft's replay page,
it runs in the background against the partition's real history and says which admitted
requests the draft would have denied; bad requests are 400s naming the field; only quota
admins may replay."""

from __future__ import annotations

import time

import pytest

from quotaweb.config import edits, services
from quotaweb.whatif import services as whatif
from quotaweb.whatif.models import Replay
from tests.api.allocation_support import ALLOCATIONS, GiB, body

pytestmark = pytest.mark.django_db(transaction=True)

REPLAY = "/api/v1/config/replay"
PAGE = "/config/draft/replay/"


def wait_ended(api, url: str) -> dict:
    ends = time.monotonic() + 30
    while time.monotonic() < ends:
        answer = api.get(url)
        assert answer.status_code == 200, answer.content
        if answer.json()["state"] not in ("queued", "running"):
            return answer.json()
        time.sleep(0.05)
    raise AssertionError("the replay did not end within 30 s")


def alice_worked(api) -> None:
    """alice (capped at 10 GiB in root.eng) holds 4 + 4 GiB, releases the first, asks 4 more."""
    for key in ("k1", "k2"):
        assert api.post(ALLOCATIONS, body(key, memory=4 * GiB), format="json").status_code == 201
    assert api.delete(f"{ALLOCATIONS}/k1").status_code == 204
    assert api.post(ALLOCATIONS, body("k3", memory=4 * GiB), format="json").status_code == 201


def tighten_alice(admin, memory: str = "6Gi") -> None:
    services.draft_stage(author=admin, record=edits.edit_record(
        "limit_update", partition="default", queue_path="root.eng", index=0,
        values={"max_resources": {"memory": memory}},
    ))


def test_a_tightened_draft_would_have_denied_what_crossed_it(admin_api, admin, capped_engines):
    alice_worked(admin_api)
    tighten_alice(admin)

    started = admin_api.post(REPLAY, {}, format="json")

    assert started.status_code == 202, started.content
    assert started["Location"] == started.json()["url"]
    done = wait_ended(admin_api, started.json()["url"])
    assert done["state"] == "done", done
    result = done["result"]
    assert result["requests"] == 3
    assert result["releases"] == 1
    assert result["newlyDenied"]["count"] == 1
    (example,) = result["newlyDenied"]["examples"]
    assert example["allocationKey"] == "k2"
    assert example["reason"] == "userQuota"
    assert example["resource"] == "memory 4 GiB"
    assert result["newlyDenied"]["byUser"] == [["alice", 1]]
    assert result["newlyAdmitted"]["count"] == 0
    assert done["events"] == done["done"] == 4


def test_the_draft_page_links_to_the_replay_page_which_shows_the_result(
    quota_admin_client, admin, admin_api, capped_engines
):
    alice_worked(admin_api)
    tighten_alice(admin)
    assert b'data-replay-link' in quota_admin_client.get("/config/draft/").content

    started = quota_admin_client.post(PAGE, {"partition": "default", "start": "", "end": ""})

    assert started.status_code == 302
    run = Replay.objects.get()
    wait_ended(admin_api, f"{REPLAY}/{run.pk}")
    page = quota_admin_client.get(PAGE).content.decode()
    assert "data-replay-summary" in page
    draft = quota_admin_client.get("/config/draft/").content.decode()
    assert "<strong>1</strong> admitted request would have been denied" in draft
    assert "k2" in page
    assert "would have been denied" in page
    assert "data-stale" not in page
    # A change to the draft makes the figures the old draft's, and the page says so.
    tighten_alice(admin, "5Gi")
    assert "data-stale" in quota_admin_client.get(PAGE).content.decode()
    assert "it has changed since" in quota_admin_client.get("/config/draft/").content.decode()


@pytest.mark.parametrize(("payload", "field"), [
    ({"partition": "nope"}, "partition"),
    ({"from": "2026-02-01", "to": "2026-01-01"}, "to"),
    ({"from": "yesterday"}, "from"),
    ({"from": "1999-01-01"}, "from"),
    ({"prtition": "default"}, "prtition"),
    ({"partition": 7}, "partition"),
    ({"document": "partitions: [{name: default, queues: [{name: root, maxapplications: -1}]}]"},
     "document"),
])
def test_a_bad_request_names_its_field_and_starts_nothing(
    admin_api, admin, capped_engines, payload, field
):
    tighten_alice(admin)

    answer = admin_api.post(REPLAY, payload, format="json")

    assert answer.status_code == 400, answer.content
    assert answer.json()["message"].startswith(f"{field}: ")
    assert answer.json()["details"]
    assert not Replay.objects.exists()


def test_without_a_draft_there_is_nothing_to_replay(admin_api, capped_engines):
    answer = admin_api.post(REPLAY, {}, format="json")

    assert answer.status_code == 400
    assert answer.json()["message"] == f"draft: {whatif.ERR_NO_DRAFT}"


def test_a_document_can_be_replayed_instead_of_the_draft(admin_api, capped_engines):
    from tests.configs import CAPPED_YAML

    alice_worked(admin_api)
    document = CAPPED_YAML.replace("maxresources: {memory: 10Gi}", "maxresources: {memory: 6Gi}")

    started = admin_api.post(REPLAY, {"document": document}, format="json")

    assert started.status_code == 202, started.content
    done = wait_ended(admin_api, started.json()["url"])
    assert done["source"] == "document"
    assert done["result"]["newlyDenied"]["count"] == 1


def test_a_queued_replay_can_be_cancelled(admin_api, admin, capped_engines):
    tighten_alice(admin)
    # Every slot taken: the replay waits its turn.
    assert whatif._slots.acquire(timeout=5)
    try:
        started = admin_api.post(REPLAY, {}, format="json")
        assert started.status_code == 202
        again = admin_api.post(REPLAY, {}, format="json")
        assert again.status_code == 409
        assert again.json()["error"] == "replay_running"
        cancelled = admin_api.delete(started.json()["url"])
        assert cancelled.status_code == 202
    finally:
        whatif._slots.release()
    done = wait_ended(admin_api, started.json()["url"])
    assert done["state"] == "cancelled"
    assert admin_api.delete(started.json()["url"]).status_code == 409


def test_only_quota_admins_replay(viewer_api, viewer_client, capped_engines):
    assert viewer_api.post(REPLAY, {}, format="json").status_code == 403
    assert viewer_api.get(f"{REPLAY}/1").status_code == 403
    assert viewer_client.get(PAGE).status_code == 403
