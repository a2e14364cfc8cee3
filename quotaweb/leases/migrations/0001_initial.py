from django.db import migrations, models

# The fence (PostgreSQL only; SQLite has one process, held by its file lock). A ledger write of
# a unit passes only while the unit's lease row names an owner at exactly the writer's epoch,
# and it keeps that row share-locked until the write's transaction ends: a takeover's UPDATE of
# the row waits for the write to commit, or the write, arriving after the takeover, finds the
# new epoch and is refused with SQLSTATE QWF01. Epoch 0 passes only for a unit never leased
# (single-process tools and tests that run no lease).
FENCE = """
CREATE FUNCTION quotaweb_fence(fenced_unit text, fenced_epoch bigint) RETURNS boolean
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM 1 FROM leases_lease
        WHERE unit = fenced_unit AND epoch = fenced_epoch AND owner <> '' FOR SHARE;
    IF FOUND THEN
        RETURN true;
    END IF;
    IF fenced_epoch = 0 AND NOT EXISTS (SELECT 1 FROM leases_lease WHERE unit = fenced_unit) THEN
        RETURN true;
    END IF;
    RAISE EXCEPTION 'quotaweb fence: % is no longer held at epoch %', fenced_unit, fenced_epoch
        USING ERRCODE = 'QWF01';
END
$$;
"""
UNFENCE = "DROP FUNCTION quotaweb_fence(text, bigint);"


def fence_create(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(FENCE, params=None)


def fence_drop(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(UNFENCE, params=None)


class Migration(migrations.Migration):

    initial = True

    dependencies = []

    operations = [
        migrations.CreateModel(
            name="Lease",
            fields=[
                ("unit", models.CharField(max_length=64, primary_key=True, serialize=False)),
                ("owner", models.CharField(blank=True, default="", max_length=255)),
                ("epoch", models.BigIntegerField(default=0)),
                ("since", models.DateTimeField()),
                ("expires", models.DateTimeField()),
            ],
        ),
        migrations.CreateModel(
            name="Peer",
            fields=[
                ("name", models.CharField(max_length=255, primary_key=True, serialize=False)),
                ("address", models.CharField(
                    help_text="host:port its HTTP server listens on", max_length=255)),
                ("hostname", models.CharField(max_length=255)),
                ("pid", models.IntegerField()),
                ("started", models.DateTimeField()),
                ("last_seen", models.DateTimeField()),
            ],
        ),
        migrations.RunPython(fence_create, fence_drop),
    ]
