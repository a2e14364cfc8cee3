"""At start-up the engines are rebuilt from the active version, not from the file."""

import pytest

from quotaweb.config.models import ConfigVersion
from quotaweb.config.services import config_apply
from quotaweb.core.services import INITIAL_IMPORT_COMMENT, engines_start
from quotaweb.engine.gateway import engines_reset
from tests.configs import SAMPLE_CONFIG, SMALL_YAML

pytestmark = pytest.mark.django_db


def test_the_first_start_imports_the_file_as_version_one():
    gateway = engines_start(config_path=SAMPLE_CONFIG)

    version = ConfigVersion.objects.get()
    assert (version.number, version.author, version.comment) == (1, None, INITIAL_IMPORT_COMMENT)
    assert gateway.partitions() == ["default", "gpu"]
    assert gateway.version("default") == 1


def test_a_later_start_loads_the_active_version_and_ignores_the_file():
    engines_start(config_path=SAMPLE_CONFIG)
    config_apply(yaml_text=SMALL_YAML, author=None, base_version=1)
    engines_reset()  # the server stops

    gateway = engines_start(config_path=SAMPLE_CONFIG)

    assert gateway.partitions() == ["default"]
    assert gateway.version("default") == 2
    assert ConfigVersion.objects.count() == 2


def test_an_apply_without_engines_in_this_process_only_stores(db):
    # A management command runs in its own process: it stores, the server loads on start.
    version = config_apply(yaml_text=SMALL_YAML, author=None, base_version=None)

    assert engines_start(config_path=SAMPLE_CONFIG).version("default") == version.number
