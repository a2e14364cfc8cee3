"""The configurations tests share, and the fixtures that load them.

Registered for the whole suite by ``tests/conftest.py`` (``pytest_plugins``); test modules import
the YAML texts from here, never from a conftest. Each ``active_*`` fixture stores its config as
version 1 and loads engines from it, as a server's start-up would:

- ``SAMPLE_CONFIG`` (the shipped sample, ``quotaweb/samples/queues.yaml``): ``sample_yaml`` is its
  text, ``gateway`` fresh engines from it (nothing stored), ``active_sample`` it stored as well;
- ``SMALL_YAML``, one queue with three limits whose numbers are easy to follow: ``active_small``;
- ``TREE_YAML``, ``SMALL_YAML`` with every queue field set and a gpu partition: ``active_tree``;
- ``CAPPED_YAML``, caps the allocation tests hit quickly: ``capped_engines`` (with the ledger);
- ``CAPPED_TREE_YAML``, a queue under a capped ancestor, for the configuration pages:
  ``capped_tree`` (stored only; engines load from it when first asked);
- ``PAGES_YAML``, caps on several levels and a group wildcard, for the usage pages;
- ``ELASTIC_YAML``, the elastic quota worked example (elastic-quota.md K1) in GPUs,
  with a parent queue and a system queue beside it: ``active_elastic`` (started like a server,
  elastic quota off, no cluster total yet);
- ``yunikorn_yaml``: a real YuniKorn ``queues.yaml`` (``tests/config/yunikorn_queues.yaml``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
SAMPLE_CONFIG = TESTS.parent / "quotaweb" / "samples" / "queues.yaml"
YUNIKORN_QUEUES = TESTS / "config" / "yunikorn_queues.yaml"

# A small config whose numbers are easy to follow in impact and rollback tests.
SMALL_YAML = """\
partitions:
  - name: default
    queues:
      - name: root
        queues:
          - name: eng
            resources:
              max: {memory: 100Gi, vcore: "100"}
            limits:
              - limit: alice
                users: [alice]
                maxresources: {memory: 40Gi, vcore: "20"}
                maxapplications: 4
              - limit: everyone else
                users: ["*"]
                maxresources: {memory: 20Gi, vcore: "10"}
                maxapplications: 2
              - limit: ml group
                groups: [ml]
                maxresources: {memory: 60Gi}
                maxapplications: 6
"""

# SMALL_YAML plus a queue with guaranteed resources, properties and an app cap, and a gpu
# partition, so the queue tree has every field to show.
TREE_YAML = """\
partitions:
  - name: default
    queues:
      - name: root
        queues:
          - name: eng
            maxapplications: 10
            properties: {application.sort.policy: fifo}
            resources:
              guaranteed: {memory: 10Gi, vcore: 500m}
              max: {memory: 100Gi, vcore: "100", nvidia.com/gpu: "0"}
            limits:
              - limit: alice
                users: [alice]
                maxresources: {memory: 40Gi, vcore: "20"}
                maxapplications: 4
              - limit: everyone else
                users: ["*"]
                maxresources: {memory: 20Gi, vcore: "10"}
                maxapplications: 2
              - limit: ml group
                groups: [ml]
                maxresources: {memory: 60Gi}
                maxapplications: 6
          - name: web
  - name: gpu
    queues:
      - name: root
        queues:
          - name: training
"""

# The allocation tests' config: caps that are easy to hit.
CAPPED_YAML = """\
partitions:
  - name: default
    queues:
      - name: root
        queues:
          - name: eng
            resources:
              max: {memory: 100Gi, vcore: "100"}
            limits:
              - limit: alice
                users: [alice]
                maxresources: {memory: 10Gi}
                maxapplications: 2
              - limit: ml
                groups: [ml]
                maxresources: {memory: 16Gi}
"""

# A queue under a capped ancestor: root.eng caps memory and applications, root.eng.ml caps vcore.
CAPPED_TREE_YAML = """\
partitions:
  - name: default
    queues:
      - name: root
        queues:
          - name: eng
            maxapplications: 10
            resources:
              max: {memory: 100G, vcore: "50"}
            queues:
              - name: ml
                maxapplications: 5
                resources:
                  guaranteed: {memory: 10G}
                  max: {vcore: "20", nvidia.com/gpu: "4"}
                limits:
                  - limit: lead
                    users: [alice]
                    maxresources: {memory: 8G, vcore: "4"}
                    maxapplications: 3
                  - limit: everyone else
                    users: ["*"]
                    maxresources: {memory: 2G}
                    maxapplications: 1
                  - limit: ml group
                    groups: [ml]
                    maxresources: {memory: 50G}
                  - limit: other groups
                    groups: ["*"]
                    maxresources: {memory: 20G}
              - name: web
                maxapplications: 10
  - name: gpu
    queues:
      - name: root
        queues:
          - name: training
"""

# The usage pages' config: caps on several levels, a group wildcard and a second partition.
PAGES_YAML = """\
partitions:
  - name: default
    queues:
      - name: root
        limits:
          - limit: everyone
            users: ["*"]
            maxresources: {memory: 20Gi}
            maxapplications: 5
        queues:
          - name: eng
            maxapplications: 10
            resources:
              max: {memory: 100Gi, vcore: "100"}
            limits:
              - limit: alice
                users: [alice]
                maxresources: {memory: 10Gi, vcore: "8"}
                maxapplications: 2
              - limit: ml
                groups: [ml]
                maxresources: {memory: 16Gi}
              - limit: other groups
                groups: ["*"]
                maxresources: {memory: 8Gi}
            queues:
              - name: ml
                maxapplications: 5
              - name: web
                maxapplications: 5
          - name: ops
  - name: gpu
    queues:
      - name: root
        queues:
          - name: training
"""


# Spec K1 in GPUs (a unit-less type, so the fair split's whole units are the spec's): min
# (guaranteed) / max of a, b, c, d are 10/40, 15/60, 20/50, 15/80; the
# parent ``e`` and its leaves take no min, and ``sys`` is a system queue (its usage comes off
# the pool, it is not in the fair split).
ELASTIC_YAML = """\
partitions:
  - name: default
    queues:
      - name: root
        submitacl: "*"
        queues:
          - name: a
            resources: {guaranteed: {gpu: 10}, max: {gpu: 40}}
          - name: b
            resources: {guaranteed: {gpu: 15}, max: {gpu: 60}}
          - name: c
            resources: {guaranteed: {gpu: 20}, max: {gpu: 50}}
          - name: d
            resources: {guaranteed: {gpu: 15}, max: {gpu: 80}}
          - name: e
            resources: {max: {gpu: 100}}
            queues:
              - name: e1
                resources: {max: {gpu: 50}}
              - name: e2
                resources: {max: {gpu: 50}}
          - name: sys
            properties: {elastic.system: "true"}
            resources: {max: {gpu: 100}}
"""

# Limits whose readings need a word of explanation: nlp may use no GPU at all, and both children
# live under research's memory and application caps, which one child's use shrinks for the other.
ODD_READINGS_YAML = """\
partitions:
  - name: default
    queues:
      - name: root
        queues:
          - name: research
            maxapplications: 80
            resources:
              max: {memory: 256Gi, nvidia.com/gpu: "8"}
            queues:
              - name: nlp
                maxapplications: 80
                resources:
                  max: {nvidia.com/gpu: "0"}
              - name: vision
                maxapplications: 80
"""


def store_and_load(yaml_text: str):
    """``yaml_text`` as the active version and engines loaded from it (a server's start-up)."""
    from quotaweb.config.selectors import active_version_number
    from quotaweb.config.services import config_apply
    from quotaweb.engine.gateway import engines_load

    version = config_apply(
        yaml_text=yaml_text, author=None, base_version=active_version_number()
    )
    return engines_load(yaml_text=version.yaml, version=version.number)


def engines_capped():
    """``CAPPED_YAML`` stored as version 1 and the engines started from it (with the ledger)."""
    from quotaweb.config.services import config_apply
    from quotaweb.core.services import engines_start

    config_apply(yaml_text=CAPPED_YAML, author=None, base_version=None)
    return engines_start()


@pytest.fixture
def sample_yaml() -> str:
    return SAMPLE_CONFIG.read_text(encoding="utf-8")


@pytest.fixture
def gateway(sample_yaml):
    """Fresh engines for every partition of the sample configuration, owned by this test."""
    from quotaweb.engine.gateway import engines_load

    return engines_load(yaml_text=sample_yaml)


@pytest.fixture
def active_sample(db):
    """The sample imported as version 1 and the engines loaded from it (a server's start-up)."""
    from quotaweb.core.services import engines_start

    return engines_start(config_path=SAMPLE_CONFIG)


@pytest.fixture
def active_small(db):
    """``SMALL_YAML`` as version 1, engines loaded from it."""
    return store_and_load(SMALL_YAML)


@pytest.fixture
def active_tree(db):
    """``TREE_YAML`` as version 1, engines loaded from it."""
    return store_and_load(TREE_YAML)


@pytest.fixture
def capped_engines(db):
    """``CAPPED_YAML`` as version 1, engines started from it (with the ledger)."""
    return engines_capped()


@pytest.fixture
def active_elastic(db):
    """``ELASTIC_YAML`` as version 1, engines started from it (ledger and elastic settings)."""
    from quotaweb.config.services import config_apply
    from quotaweb.core.services import engines_start

    config_apply(yaml_text=ELASTIC_YAML, author=None, base_version=None)
    return engines_start()


@pytest.fixture
def capped_tree(db):
    """``CAPPED_TREE_YAML`` stored as the active version (version 1)."""
    from quotaweb.config.selectors import active_version_number
    from quotaweb.config.services import config_apply

    return config_apply(yaml_text=CAPPED_TREE_YAML, author=None,
                        base_version=active_version_number())


@pytest.fixture
def yunikorn_yaml() -> str:
    return YUNIKORN_QUEUES.read_text(encoding="utf-8")
