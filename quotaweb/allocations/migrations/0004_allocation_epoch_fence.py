from django.db import migrations, models

# Every INSERT into the ledger is fenced once per statement (not per row: a batch's COPY of
# 1,000 rows checks each partition and epoch it holds once): the rows name their epoch, and
# ``quotaweb_fence`` (leases.0001) refuses the statement unless each is its partition's current
# one. DELETEs are fenced in their own WHERE clause (``allocations.ledger``), since a deleted row
# does not say who deleted it.
TRIGGER = """
CREATE FUNCTION quotaweb_ledger_fence() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    fenced record;
BEGIN
    FOR fenced IN SELECT DISTINCT partition, epoch FROM fenced_rows LOOP
        PERFORM quotaweb_fence(fenced.partition, fenced.epoch);
    END LOOP;
    RETURN NULL;
END
$$;
CREATE TRIGGER quotaweb_ledger_fence AFTER INSERT ON allocations_allocation
    REFERENCING NEW TABLE AS fenced_rows
    FOR EACH STATEMENT EXECUTE FUNCTION quotaweb_ledger_fence();
"""
UNTRIGGER = """
DROP TRIGGER quotaweb_ledger_fence ON allocations_allocation;
DROP FUNCTION quotaweb_ledger_fence();
"""


def trigger_create(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(TRIGGER, params=None)


def trigger_drop(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(UNTRIGGER, params=None)


class Migration(migrations.Migration):

    dependencies = [
        ("allocations", "0003_allocation_node_id"),
        ("leases", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="allocation",
            name="epoch",
            field=models.BigIntegerField(db_default=0, default=0),
        ),
        migrations.RunPython(trigger_create, trigger_drop),
    ]
