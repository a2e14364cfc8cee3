from django.db import migrations, models

# The ledger's INSERT trigger (allocations.0004) checks each statement's configuration versions
# too, once per distinct version (``quotaweb_version_fence``, leases.0002).
TRIGGER_FUNCTION = """
CREATE OR REPLACE FUNCTION quotaweb_ledger_fence() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    fenced record;
BEGIN
    FOR fenced IN SELECT DISTINCT partition, epoch FROM fenced_rows LOOP
        PERFORM quotaweb_fence(fenced.partition, fenced.epoch);
    END LOOP;
    FOR fenced IN SELECT DISTINCT config_version FROM fenced_rows LOOP
        PERFORM quotaweb_version_fence(fenced.config_version);
    END LOOP;
    RETURN NULL;
END
$$;
"""
PREVIOUS_FUNCTION = """
CREATE OR REPLACE FUNCTION quotaweb_ledger_fence() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    fenced record;
BEGIN
    FOR fenced IN SELECT DISTINCT partition, epoch FROM fenced_rows LOOP
        PERFORM quotaweb_fence(fenced.partition, fenced.epoch);
    END LOOP;
    RETURN NULL;
END
$$;
"""


def trigger_replace(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(TRIGGER_FUNCTION, params=None)


def trigger_restore(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(PREVIOUS_FUNCTION, params=None)


class Migration(migrations.Migration):

    dependencies = [
        ("allocations", "0004_allocation_epoch_fence"),
        ("leases", "0002_peer_config_version_and_version_fence"),
    ]

    operations = [
        migrations.AddField(
            model_name="allocation",
            name="config_version",
            field=models.BigIntegerField(db_default=0, default=0),
        ),
        migrations.RunPython(trigger_replace, trigger_restore),
    ]
