"""The configuration document: strict, safe YAML in; every rule of spec 1.4 checked; YAML out.

``validate_config`` answers with every error, ``parse_config`` with the normalised model (or a
``ConfigError``), ``read_config`` with both (also the model of a document that breaks rules),
``parse_document`` does the same for a document given as data (an editor's), ``check_config``
judges a model built elsewhere, ``dump_config`` writes a model back so that parsing the dump
gives it again, ``write_yaml`` writes any document as YAML.
"""

from trackers.config.build import Locations, normalise_partition_name
from trackers.config.dump import dump_config
from trackers.config.loader import MAX_ALIASES, MAX_BYTES, MAX_DEPTH, MAX_NODES
from trackers.config.validate import (
    check_config,
    parse_config,
    parse_document,
    read_config,
    validate_config,
)
from trackers.config.writer import write_yaml

__all__ = [
    "MAX_ALIASES",
    "MAX_BYTES",
    "MAX_DEPTH",
    "MAX_NODES",
    "Locations",
    "check_config",
    "dump_config",
    "normalise_partition_name",
    "parse_config",
    "parse_document",
    "read_config",
    "validate_config",
    "write_yaml",
]
