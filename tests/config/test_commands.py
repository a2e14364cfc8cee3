"""import_config, export_config and validate_config: results on stdout, errors with exit codes."""

import io

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from quotaweb.config.models import ConfigVersion
from quotaweb.config.selectors import ERR_NO_CONFIG, ERR_NO_VERSION
from tests.configs import SMALL_YAML

pytestmark = pytest.mark.django_db

INVALID = SMALL_YAML.replace("{memory: 40Gi", "{memory: 400Gi")


def _run(*args):
    out, err = io.StringIO(), io.StringIO()
    call_command(*args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


@pytest.fixture
def small_file(tmp_path):
    path = tmp_path / "small.yaml"
    path.write_text(SMALL_YAML)
    return path


@pytest.fixture
def invalid_file(tmp_path):
    path = tmp_path / "invalid.yaml"
    path.write_text(INVALID)
    return path


def test_import_prints_the_new_version_number(small_file, sample_yaml, tmp_path):
    out, _ = _run("import_config", str(small_file), "--comment", "from the config map")
    assert out == "1\n"
    assert ConfigVersion.objects.get().comment == "from the config map"

    sample = tmp_path / "sample.yaml"
    sample.write_text(sample_yaml)
    out, _ = _run("import_config", str(sample))
    assert out == "2\n"
    assert ConfigVersion.objects.get(number=2).based_on_id == 1


def test_import_of_the_active_content_says_unchanged(small_file):
    _run("import_config", str(small_file))

    out, _ = _run("import_config", str(small_file))

    assert out.startswith("unchanged: version 1")
    assert ConfigVersion.objects.count() == 1


def test_import_of_an_invalid_file_prints_every_error_and_changes_nothing(invalid_file):
    err = io.StringIO()
    with pytest.raises(CommandError, match="nothing was changed"):
        call_command("import_config", str(invalid_file), stderr=err)

    assert err.getvalue().startswith(
        "L12 root.eng partitions[0].queues[0].queues[0].limits[0].maxresources: "
    )
    assert not ConfigVersion.objects.exists()


def test_import_of_a_missing_file(tmp_path):
    with pytest.raises(CommandError, match="Cannot read"):
        call_command("import_config", str(tmp_path / "nope.yaml"))


def test_validate_says_valid_or_lists_errors_with_exit_code_one(small_file, invalid_file):
    out, _ = _run("validate_config", str(small_file))
    assert out == "valid\n"

    out = io.StringIO()
    with pytest.raises(CommandError) as caught:
        call_command("validate_config", str(invalid_file), stdout=out)

    assert caught.value.returncode == 1
    assert out.getvalue().startswith("L12 root.eng ")
    assert not ConfigVersion.objects.exists()


def test_export_without_a_config_or_version():
    with pytest.raises(CommandError, match=ERR_NO_CONFIG):
        call_command("export_config")
    with pytest.raises(CommandError, match=ERR_NO_VERSION.format(number=3)):
        call_command("export_config", "--version", "3")


def test_export_prints_the_active_yaml(small_file):
    _run("import_config", str(small_file))

    out, _ = _run("export_config")

    assert out == SMALL_YAML
