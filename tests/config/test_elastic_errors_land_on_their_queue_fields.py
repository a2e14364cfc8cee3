"""With elastic quota on, the elastic rules judge every configuration change; an error about an
elastic setting (E-S3 a weight, E-P1 a flag) lands on that setting's field of the queue form,
not on the general properties field, while the change waits in the draft."""

from __future__ import annotations

import pytest
from django.urls import reverse

from quotaweb.config.forms import QueueForm, place_errors
from quotaweb.config.models import Draft
from quotaweb.elastic.services import elastic_settings_update
from trackers.elastic import messages

pytestmark = pytest.mark.django_db

FIELD = "partitions[0].queues[0].queues[1].properties."


def test_a_negative_weight_is_shown_on_the_weight_field(quota_admin_client, admin, active_elastic):
    elastic_settings_update(partition="default", enabled=True, author=admin)
    url = reverse("config:queue", args=["default", "root.b"])
    response = quota_admin_client.post(url, {
        "action": "queue-save", "queue-name": "b", "queue-guaranteed": "gpu: 15",
        "queue-max": "gpu: 60", "queue-elastic_weight": "gpu: -1",
    }, follow=True)
    # Staged anyway (a draft may pass through invalid states); the queue page shows why not yet.
    assert response.redirect_chain == [(url, 302)]
    html = response.content.decode()
    assert 'data-error-for="elastic_weight"' in html
    assert "gives a negative weight for gpu" in html
    assert f"(rule {messages.CODE_WEIGHT})" in html
    assert 'data-error-for="properties"' not in html
    assert Draft.objects.filter(author=admin).exists()


@pytest.mark.parametrize(("prop", "field"), [
    ("elastic.shared-weight", "elastic_weight"),
    ("elastic.allow-lent", "elastic_allow_lent"),
    ("elastic.system", "elastic_system"),
    ("owner", "properties"),
])
def test_each_property_error_goes_to_its_field(prop, field):
    form = QueueForm({"queue-name": "b"}, prefix="queue")
    assert form.is_valid()
    error = {"code": messages.CODE_FLAG, "path": "root.b", "field": FIELD + prop,
             "message": "m", "detail": "what is wrong"}
    assert place_errors([error], queue_path="root.b", queue_form=form) == []
    assert form.errors == {field: [f"what is wrong (rule {messages.CODE_FLAG})"]}
