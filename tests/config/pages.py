"""Helpers shared by the configuration page tests."""

from __future__ import annotations

import re

from django.urls import reverse

# A queue under a capped ancestor: root.eng caps memory and applications, root.eng.ml caps vcore.
CAPPED_YAML = """\
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

POST_FORM = re.compile(r"<form[^>]*method=\"post\"[^>]*>", re.IGNORECASE)


def posting_forms(html: str) -> list[str]:
    """Forms that post anywhere but the logout button every page has."""
    logout = reverse("accounts:logout")
    return [form for form in POST_FORM.findall(html) if f'action="{logout}"' not in form]


def apply(yaml_text: str, *, author=None, comment: str = ""):
    from quotaweb.config.selectors import active_version_number
    from quotaweb.config.services import config_apply

    return config_apply(
        yaml_text=yaml_text, author=author, comment=comment,
        base_version=active_version_number(),
    )
