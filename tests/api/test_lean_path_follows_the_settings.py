"""The lean path works out its host check and its answers' fixed headers once, not per request;
what it remembers follows the settings as they change, and made-up hosts cannot grow it."""

from __future__ import annotations

from quotaweb.api import lean
from quotaweb.api.views.allocations import AllocationsView


def test_the_host_check_follows_allowed_hosts_as_they_change(settings):
    headers = {b"host": b"api.example.org"}

    settings.ALLOWED_HOSTS = ["127.0.0.1"]
    assert not lean._host_allowed(headers)
    settings.ALLOWED_HOSTS = ["127.0.0.1", "api.example.org"]
    assert lean._host_allowed(headers)
    settings.ALLOWED_HOSTS = ["127.0.0.1"]
    assert not lean._host_allowed(headers)


def test_made_up_hosts_are_refused_without_growing_what_is_remembered(settings):
    settings.ALLOWED_HOSTS = ["127.0.0.1", ".example.org"]

    for n in range(5 * lean._HOSTS_KEPT):
        assert not lean._host_allowed({b"host": f"h{n}.example.com".encode()})
    assert len(lean._hosts_seen) == lean._HOSTS_KEPT
    # Past the limit, a host is still judged, only not remembered.
    assert lean._host_allowed({b"host": b"late.example.org:8000"})
    assert not lean._host_allowed({b"host": b"late.example.com"})


def test_the_answers_fixed_headers_follow_the_security_settings(settings):
    def referrer() -> bytes:
        headers = dict(lean._response_headers(AllocationsView, False, 12, True))
        assert headers[b"Content-Length"] == b"12"
        return headers[b"Referrer-Policy"]

    settings.SECURE_REFERRER_POLICY = "same-origin"
    assert referrer() == b"same-origin"
    settings.SECURE_REFERRER_POLICY = "no-referrer"
    assert referrer() == b"no-referrer"
