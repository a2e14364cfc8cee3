"""A valid document becomes a stored version, the rows and the engines' limits, in one step."""

import pytest

from quotaweb.config.models import ActiveConfig, ConfigVersion, LimitEntry, Queue
from quotaweb.config.selectors import active_version
from quotaweb.config.services import config_apply
from tests.config_rows import config_from_rows
from tests.configs import SMALL_YAML
from trackers import parse_config

pytestmark = pytest.mark.django_db

TIGHTER = SMALL_YAML.replace("maxresources: {memory: 40Gi", "maxresources: {memory: 30Gi")


def test_the_first_apply_creates_version_one_rows_and_pointer(admin):
    version = config_apply(yaml_text=SMALL_YAML, author=admin, comment="first", base_version=None)

    assert (version.number, version.author, version.comment) == (1, admin, "first")
    assert version.based_on is None
    assert version.yaml == SMALL_YAML
    assert len(version.checksum) == 64
    assert ActiveConfig.objects.get().version_id == 1
    assert list(Queue.objects.values_list("path", flat=True)) == ["root", "root.eng"]
    assert LimitEntry.objects.filter(queue__path="root.eng").count() == 3
    assert config_from_rows() == parse_config(SMALL_YAML)


def test_a_second_apply_switches_rows_and_engine(active_small, admin):
    version = config_apply(yaml_text=TIGHTER, author=admin, comment="tighter", base_version=1)

    assert version.number == 2
    assert version.based_on_id == 1
    assert active_version() == version
    assert config_from_rows() == parse_config(TIGHTER)
    assert active_small.version("default") == 2
    alice = active_small.users_usage("default")[0]
    eng = alice["queues"]["children"][0]
    assert eng["maxResources"]["memory"] == 30 * 2**30


def test_applying_the_active_content_again_creates_no_version(active_small, admin):
    # Idempotent by content: the same document (even written differently) is already active.
    reformatted = "# same limits, other spelling\n" + SMALL_YAML

    again = config_apply(yaml_text=reformatted, author=admin, base_version=1)

    assert again.number == 1
    assert ConfigVersion.objects.count() == 1
    assert active_small.version("default") == 1


def test_the_sample_applies_with_every_partition_in_rows(active_sample, sample_yaml):
    assert active_version().number == 1
    assert active_version().comment == "initial import"
    assert config_from_rows() == parse_config(sample_yaml)
    assert active_sample.version("gpu") == 1
