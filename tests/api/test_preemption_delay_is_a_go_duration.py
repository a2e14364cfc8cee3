"""A queue's ``preemptionDelay`` is its ``preemption.delay`` property read as Go's
``time.ParseDuration`` reads it and written as Go's ``Duration.String`` writes it, as YuniKorn
shows it; absent, unreadable or not above 0 it is YuniKorn's 30s, and the read does not fail.
The parser and writer agree with Go on its edge cases (a table of Go's own answers)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from quotaweb.config.go_duration import DurationInvalid, go_duration_parse, go_duration_text
from quotaweb.config.yunikorn import DEFAULT_PREEMPTION_DELAY, preemption_delay
from tests.api.yunikorn_support import nodes_by_path
from tests.configs import store_and_load


@pytest.mark.parametrize(("written", "shown"), [
    ("30s", "30s"), ("1m", "1m0s"), ("1h", "1h0m0s"), ("90s", "1m30s"), ("3600s", "1h0m0s"),
    ("1h30m", "1h30m0s"), ("1.5s", "1.5s"), (".5s", "500ms"), ("1.s", "1s"), ("100ms", "100ms"),
    ("1500ms", "1.5s"), ("1us", "1µs"), ("1µs", "1µs"), ("1μs", "1µs"), ("1ns", "1ns"),
    ("2h45m0.5s", "2h45m0.5s"), ("+5m", "5m0s"), ("1m0.000000001s", "1m0.000000001s"),
    ("9223372036854775807ns", "2562047h47m16.854775807s"),
    # Go reads no more fraction digits than a nanosecond holds.
    ("1.0000000001s", "1s"),
    # Unreadable, or not above 0: YuniKorn's default.
    ("0", DEFAULT_PREEMPTION_DELAY), ("0s", DEFAULT_PREEMPTION_DELAY),
    ("-1s", DEFAULT_PREEMPTION_DELAY), ("", DEFAULT_PREEMPTION_DELAY),
    ("1", DEFAULT_PREEMPTION_DELAY), ("s", DEFAULT_PREEMPTION_DELAY),
    (".s", DEFAULT_PREEMPTION_DELAY), ("1e3s", DEFAULT_PREEMPTION_DELAY),
    (" 1s", DEFAULT_PREEMPTION_DELAY), ("1S", DEFAULT_PREEMPTION_DELAY),
    ("1d", DEFAULT_PREEMPTION_DELAY), ("soon", DEFAULT_PREEMPTION_DELAY),
    ("9223372036854775808ns", DEFAULT_PREEMPTION_DELAY),
    ("99999999999999999999h", DEFAULT_PREEMPTION_DELAY),
    (None, DEFAULT_PREEMPTION_DELAY),
])
def test_the_property_is_shown_as_yunikorn_shows_it(written, shown):
    assert preemption_delay(written) == shown


@pytest.mark.parametrize(("nanoseconds", "text"), [
    (0, "0s"), (1, "1ns"), (999, "999ns"), (1_000, "1µs"), (1_500, "1.5µs"),
    (1_000_000, "1ms"), (1_234_567, "1.234567ms"), (10**9, "1s"), (60 * 10**9, "1m0s"),
    (61 * 10**9 + 1, "1m1.000000001s"), (3600 * 10**9, "1h0m0s"), (-90 * 10**9, "-1m30s"),
])
def test_durations_are_written_as_go_writes_them(nanoseconds, text):
    assert go_duration_text(nanoseconds) == text


@given(st.integers(-(2**63) + 1, 2**63 - 1))
def test_what_is_written_reads_back_the_same(nanoseconds):
    assert go_duration_parse(go_duration_text(nanoseconds)) == nanoseconds


@given(st.one_of(st.text(max_size=12), st.text("0123456789.+-hmsun\u00b5", max_size=12)))
def test_any_text_is_read_within_int64_or_refused_never_crashes(text):
    try:
        nanoseconds = go_duration_parse(text)
    except DurationInvalid:
        assert preemption_delay(text) == DEFAULT_PREEMPTION_DELAY
        return
    assert -(2**63) <= nanoseconds <= 2**63 - 1
    assert go_duration_parse(go_duration_text(nanoseconds)) == nanoseconds


DELAY_YAML = """\
partitions:
  - name: default
    queues:
      - name: root
        queues:
          - name: hourly
            properties: {preemption.delay: 60m}
          - name: broken
            properties: {preemption.delay: "ten minutes"}
          - name: fair
            properties: {application.sort.policy: FAIR}
"""


@pytest.mark.django_db
def test_the_queue_reads_show_it(viewer_token):
    store_and_load(DELAY_YAML)

    queues = nodes_by_path(viewer_token.get("/ws/v1/partition/default/queues").json())

    assert queues["root.hourly"]["preemptionDelay"] == "1h0m0s"
    assert queues["root.broken"]["preemptionDelay"] == "30s"
    assert queues["root"]["preemptionDelay"] == "30s"
    # And the sorting policy: fair for a parent, a leaf's own (fifo unless fair).
    assert queues["root"]["sortingPolicy"] == "fair"
    assert queues["root.hourly"]["sortingPolicy"] == "fifo"
    assert queues["root.fair"]["sortingPolicy"] == "fair"
    one = viewer_token.get("/ws/v1/partition/default/queue/root.hourly").json()
    assert (one["preemptionDelay"], one["sortingPolicy"]) == ("1h0m0s", "fifo")
