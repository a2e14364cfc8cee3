"""The queue form has a field for each elastic quota setting (shared weight, lending, system
queue), stored as the queue's properties: they round-trip, a default writes nothing, editing one
keeps every other property, and the general properties field does not show them twice."""

from __future__ import annotations

import pytest
from django.urls import reverse

from quotaweb.config import views
from quotaweb.config.forms import QueueForm
from quotaweb.config.models import Draft
from tests.config.pages import apply
from tests.configs import ELASTIC_YAML

pytestmark = pytest.mark.django_db

# a has a weight and another property; sys is a system queue (ELASTIC_YAML)
WITH_PROPERTIES = ELASTIC_YAML.replace(
    "- name: a\n",
    "- name: a\n            properties: {owner: lab, elastic.shared-weight: \"gpu=4\"}\n",
)


def _url(path: str) -> str:
    return reverse("config:queue", args=["default", path])


def _post(client, path: str, **values):
    """The queue form as the page shows it for ``path``, with ``values`` changed."""
    form = client.get(_url(path)).context["queue_form"]
    data = {"action": "queue-save"}
    for field in form:
        value = field.value()
        data[field.html_name] = field.field.prepare_value(value) if value is not None else ""
    data.update({f"queue-{name}": value for name, value in values.items()})
    return client.post(_url(path), data)


def _staged(admin) -> dict:
    (edit,) = Draft.objects.get(author=admin).edits
    return edit["args"]["values"]


@pytest.fixture
def configured(active_elastic):
    return apply(WITH_PROPERTIES)


def test_the_fields_show_the_properties_and_the_general_field_the_rest(
    quota_admin_client, configured
):
    html = quota_admin_client.get(_url("root.a")).content.decode()
    assert 'name="queue-elastic_weight" value="gpu: 4"' in html
    assert '<label for="id_queue-elastic_weight">Elastic shared weight</label>' in html
    assert "Empty: the weight equals the max." in html
    properties = html.split('name="queue-properties"')[1].split("</textarea>")[0]
    assert "owner: lab" in properties
    assert "elastic" not in properties
    sys = quota_admin_client.get(_url("root.sys")).content.decode()
    assert '<option value="true" selected>yes: its usage comes off the pool' in sys
    assert "elastic.system" not in sys.split('name="queue-properties"')[1].split("</textarea>")[0]


def test_editing_only_the_weight_keeps_the_other_properties(
    quota_admin_client, admin, configured
):
    response = _post(quota_admin_client, "root.a", elastic_weight="gpu: 8")
    assert response.status_code == 302
    assert _staged(admin) == {
        "properties": {"owner": "lab", "elastic.shared-weight": "gpu=8"}
    }
    # the page shows the draft: the weight reads back into its field
    html = quota_admin_client.get(_url("root.a")).content.decode()
    assert 'name="queue-elastic_weight" value="gpu: 8"' in html


def test_an_unchanged_form_stages_nothing(quota_admin_client, admin, configured):
    response = _post(quota_admin_client, "root.a")
    assert response.status_code == 302
    assert not Draft.objects.filter(author=admin).exists()
    response = _post(quota_admin_client, "root.sys")
    assert not Draft.objects.filter(author=admin).exists()
    assert views.NOTHING_CHANGED in quota_admin_client.get(response["Location"]).content.decode()


def test_choices_write_true_or_false_and_defaults_write_nothing(
    quota_admin_client, admin, configured
):
    _post(quota_admin_client, "root.b", elastic_allow_lent="false",
          elastic_weight="vcore: 4, memory: 8Gi")
    assert _staged(admin) == {"properties": {
        "elastic.shared-weight": "vcore=4,memory=8Gi", "elastic.allow-lent": "false",
    }}
    Draft.objects.all().delete()
    # back to the defaults: system "no" and an empty weight are not written at all
    _post(quota_admin_client, "root.sys", elastic_system="")
    assert _staged(admin) == {"properties": {}}
    Draft.objects.all().delete()
    _post(quota_admin_client, "root.a", elastic_weight="")
    assert _staged(admin) == {"properties": {"owner": "lab"}}


def test_a_new_child_queue_gets_its_elastic_settings(quota_admin_client, admin, configured):
    response = quota_admin_client.post(_url("root.e"), {
        "action": "child-add", "child-name": "e3", "child-max": "gpu: 10",
        "child-elastic_system": "true", "child-elastic_allow_lent": "",
    })
    assert response.status_code == 302
    (edit,) = Draft.objects.get(author=admin).edits
    assert edit["kind"] == "queue_create"
    assert edit["args"]["values"]["properties"] == {"elastic.system": "true"}


def test_a_setting_given_in_both_places_is_refused(quota_admin_client, admin, configured):
    response = _post(quota_admin_client, "root.a", properties="owner: lab\nelastic.system: true",
                     elastic_system="true")
    assert response.status_code == 400
    html = response.content.decode()
    assert 'data-error-for="properties"' in html
    assert "elastic.system has a field of its own on this form (System queue)" in html
    assert not Draft.objects.filter(author=admin).exists()


def test_an_unreadable_value_stays_as_written(active_elastic):
    class Queue:
        name, path, guaranteed, max, max_applications = "b", "root.b", {}, {}, 0
        properties = {"elastic.shared-weight": "{bad", "elastic.allow-lent": "maybe"}
        submit_acl = admin_acl = parent = None

    initial = QueueForm.initial_for(Queue)
    # a weight the field cannot show stays among the other properties
    assert initial["properties"] == {"elastic.shared-weight": "{bad"}
    assert initial["elastic_weight"] == {}
    # a flag that is neither word is offered as written, so saving keeps it
    form = QueueForm(initial=initial, prefix="queue")
    assert ("maybe", "maybe (as written: not true or false; choose one of the above)") in \
        form.fields["elastic_allow_lent"].choices


def test_the_root_has_no_elastic_fields(quota_admin_client, configured):
    html = quota_admin_client.get(_url("root")).content.decode()
    assert 'name="queue-elastic_weight"' not in html
    assert 'name="queue-properties"' in html
