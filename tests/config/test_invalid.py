"""An invalid candidate is refused with every error, and nothing is stored or applied."""

import pytest

from quotaweb.config.models import ConfigVersion, Queue
from quotaweb.config.services import ERR_EMPTY, ConfigRejected, config_apply
from tests.configs import SMALL_YAML

pytestmark = pytest.mark.django_db

# alice above her own queue's max (L12) and a named user after the wildcard (L4).
INVALID = SMALL_YAML.replace("{memory: 40Gi", "{memory: 400Gi").replace(
    'users: ["*"]', 'users: ["*", bob]'
)


def test_every_error_is_reported_and_nothing_changes(active_small, admin):
    with pytest.raises(ConfigRejected) as caught:
        config_apply(yaml_text=INVALID, author=admin, base_version=1)

    assert [(e["code"], e["path"]) for e in caught.value.errors] == [
        ("L12", "root.eng"),
        ("L4", "root.eng"),
    ]
    assert caught.value.errors[0]["field"].endswith("limits[0].maxresources")
    assert ConfigVersion.objects.count() == 1
    assert Queue.objects.count() == 2
    assert active_small.version("default") == 1


def test_a_yaml_syntax_error_is_a_parse_error():
    with pytest.raises(ConfigRejected) as caught:
        config_apply(yaml_text="partitions: [", author=None, base_version=None)

    assert caught.value.errors[0]["code"] == "PARSE"
    assert not ConfigVersion.objects.exists()


@pytest.mark.parametrize("empty", ["", "partitions: []\n", "{}\n"])
def test_an_empty_document_is_refused(empty):
    with pytest.raises(ConfigRejected) as caught:
        config_apply(yaml_text=empty, author=None, base_version=None)

    assert caught.value.errors == [
        {"code": "EMPTY", "path": "", "field": "partitions", "message": ERR_EMPTY}
    ]
    assert not ConfigVersion.objects.exists()
