"""``parse_document``: a config given as data answers exactly what its YAML would, model and
errors alike, without reading YAML back (and through YAML when the data is unusual or large)."""

from __future__ import annotations

import pytest
import yaml

from tests.configs import SAMPLE_CONFIG
from trackers import ConfigError, parse_config, parse_document, validate_config
from trackers.config import write_yaml


def _sample() -> dict:
    return yaml.safe_load(SAMPLE_CONFIG.read_text(encoding="utf-8"))


def test_a_valid_document_gives_the_model_and_yaml_of_its_text():
    document = _sample()

    config, text = parse_document(document)

    assert text == write_yaml(document)
    assert config == parse_config(text)


def test_an_invalid_document_fails_with_every_error_its_yaml_has():
    document = _sample()
    queue = document["partitions"][0]["queues"][0]["queues"][0]
    queue["limits"] = [{"limit": "nobody", "maxapplications": 1},
                       {"limit": "no one", "maxapplications": 2}]

    with pytest.raises(ConfigError) as failure:
        parse_document(document)

    assert failure.value.errors == validate_config(write_yaml(document))
    assert len(failure.value.errors) >= 2


def test_a_document_over_the_size_cap_is_refused_like_its_text():
    document = _sample()

    with pytest.raises(ConfigError) as failure:
        parse_document(document, max_bytes=100)

    assert failure.value.errors == validate_config(write_yaml(document), max_bytes=100)
