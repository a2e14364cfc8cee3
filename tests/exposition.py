"""``/metrics`` read the way Prometheus reads it: prometheus_client's parser, then samples found by
name and labels (so a test does not depend on ``1`` or ``1.0``, or on the order of labels)."""

from __future__ import annotations

from prometheus_client.metrics_core import Metric
from prometheus_client.parser import text_string_to_metric_families

# The sample names a family of each type exports (a counter family ``x`` exports ``x_total``).
SUFFIXES = {
    "counter": ("_total",),
    "histogram": ("_bucket", "_sum", "_count"),
    "summary": ("", "_sum", "_count"),
    "gauge": ("",),
}


class Exposition:
    def __init__(self, text: str) -> None:
        self.text = text
        self.families: dict[str, Metric] = {
            family.name: family for family in text_string_to_metric_families(text)
        }

    def samples(self, name: str) -> list[tuple[dict[str, str], float]]:
        """Every sample of that name (``quotaweb_allocations_total``, ``..._bucket``)."""
        return [
            (sample.labels, sample.value)
            for family in self.families.values()
            for sample in family.samples
            if sample.name == name
        ]

    def value(self, name: str, **labels: str) -> float | None:
        """The sample with exactly these labels, None when there is none."""
        found = [value for have, value in self.samples(name) if have == labels]
        assert len(found) <= 1, (name, labels, found)
        return found[0] if found else None

    def type_of(self, family: str) -> str | None:
        return self.families[family].type if family in self.families else None

    def names(self) -> set[str]:
        """Every sample name the exposition declares, whether or not it has samples yet."""
        return {
            family.name + suffix
            for family in self.families.values()
            for suffix in SUFFIXES.get(family.type, ("",))
        } | {sample.name for family in self.families.values() for sample in family.samples}


def scrape(client) -> Exposition:
    """GET /metrics with a Django test client (no login: scrapers do not log in)."""
    response = client.get("/metrics")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain; version=0.0.4")
    return Exposition(response.content.decode())
