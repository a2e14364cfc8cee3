"""The sample configuration validates, and the demo command creates engines before serving."""

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

trackers = pytest.importorskip("trackers")

from quotaweb.config.models import ConfigVersion  # noqa: E402
from quotaweb.config.services import ConfigRejected  # noqa: E402
from quotaweb.core.services import engines_start  # noqa: E402
from quotaweb.engine.gateway import engines_get, engines_loaded  # noqa: E402
from tests.configs import SAMPLE_CONFIG  # noqa: E402
from tests.server_process import free_port  # noqa: E402


def test_sample_config_validates(sample_yaml):
    assert trackers.validate_config(sample_yaml) == []
    config = trackers.parse_config(sample_yaml)

    assert [p.name for p in config.partitions] == ["default", "gpu"]
    default = config.partition("default")
    departments = [q.name for q in default.root.children]
    assert departments == ["research", "engineering", "analytics", "ops"]
    teams = [team for department in default.root.children for team in department.children]
    assert len(teams) == 12


def test_sample_config_exercises_wildcards_on_three_levels(sample_yaml):
    default = trackers.parse_config(sample_yaml).partition("default")
    levels_with_user_wildcard = {
        queue.path.count(".")
        for queue in default.root.walk()
        for limit in queue.limits
        if "*" in limit.users
    }
    assert levels_with_user_wildcard == {0, 1, 2}


@pytest.mark.django_db
def test_engines_start_loads_every_partition():
    gateway = engines_start(config_path=SAMPLE_CONFIG)

    assert engines_get() is gateway
    assert gateway.partitions() == ["default", "gpu"]
    assert gateway.summary("default")["queues"] == 17


@pytest.mark.django_db
def test_engines_start_refuses_an_invalid_file_and_keeps_nothing(tmp_path):
    bad = tmp_path / "queues.yaml"
    bad.write_text(
        "partitions:\n  - name: default\n    queues:\n      - name: root\n"
        "        resources: {max: {memory: 10}}\n"
    )

    with pytest.raises(ConfigRejected) as caught:
        engines_start(config_path=bad)

    assert caught.value.errors[0]["code"] == "S2"
    assert not engines_loaded()
    assert not ConfigVersion.objects.exists()


@pytest.mark.django_db
def test_demo_command_migrates_loads_and_then_serves(monkeypatch, capsys):
    from quotaweb.core.management.commands import demo

    port = free_port()
    served = {}

    def fake_serve(*, host, port, listening):
        # The engines must exist in this process before the server takes the first request.
        served.update(
            host=host, port=port, partitions=engines_get().partitions(),
            listening=listening.getsockname(),
        )

    monkeypatch.setattr(demo, "serve", fake_serve)
    call_command("demo", "--port", str(port))

    assert served == {
        "host": "127.0.0.1", "port": port, "partitions": ["default", "gpu"],
        "listening": ("127.0.0.1", port),
    }
    out = capsys.readouterr().out
    assert f"quotaweb is at http://127.0.0.1:{port}/" in out
    assert "partition default: 17 queues" in out
    assert f"Logins at http://127.0.0.1:{port}/accounts/login/:" in out


@pytest.mark.django_db
def test_demo_command_reports_an_invalid_config(monkeypatch, tmp_path):
    from quotaweb.core.management.commands import demo

    monkeypatch.setattr(demo, "serve", lambda **kw: pytest.fail("must not serve"))
    bad = tmp_path / "queues.yaml"
    bad.write_text("partitions:\n  - name: default\n")

    with pytest.raises(CommandError, match=r"is not valid:\n  \[S1\]"):
        call_command("demo", "--config", str(bad), "--port", str(free_port()))


def test_sample_config_is_tight_about_inherited_application_caps(sample_yaml):
    # The research wildcard caps every user at 10 applications, so eve's stricter nlp limit has to
    # keep its own maxapplications (rule H3); dropping it must make the sample invalid.
    loosened = sample_yaml.replace(
        "nvidia.com/gpu: 0}\n                    maxapplications: 3\n",
        "nvidia.com/gpu: 0}\n",
    )
    assert loosened != sample_yaml

    errors = trackers.validate_config(loosened)

    assert [(e["code"], e["path"]) for e in errors] == [("H3", "root.research.nlp")]
