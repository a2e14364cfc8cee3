from django.db import migrations, models

# The configuration's fence (PostgreSQL only; docs/design.md, "Applies are global"). A ledger
# INSERT names the configuration version its rows were admitted under, and passes only while
# that version is still the active one. It takes a shared transaction-level advisory lock first;
# an apply takes the same lock exclusively as the last step of its transaction (the key is
# ``quotaweb.config.services.VERSION_FENCE_LOCK``). So a write that read the old version commits
# before the apply does, and a write that comes after the apply's lock waits for its commit and
# then reads (a fresh snapshot: a volatile function's statements each take one) the new version
# and is refused with SQLSTATE QWF02. Version 0 is what writers outside the peers send (tools,
# tests, SQLite): never checked.
VERSION_FENCE = """
CREATE FUNCTION quotaweb_version_fence(fenced_version bigint) RETURNS boolean
LANGUAGE plpgsql AS $$
BEGIN
    IF fenced_version = 0 THEN
        RETURN true;
    END IF;
    PERFORM pg_advisory_xact_lock_shared(29046, 1);
    IF EXISTS (SELECT 1 FROM config_activeconfig
               WHERE id = 1 AND version_number = fenced_version) THEN
        RETURN true;
    END IF;
    RAISE EXCEPTION 'quotaweb fence: configuration version % is no longer the active one',
        fenced_version USING ERRCODE = 'QWF02';
END
$$;
"""
UNFENCE = "DROP FUNCTION quotaweb_version_fence(bigint);"


def fence_create(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(VERSION_FENCE, params=None)


def fence_drop(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(UNFENCE, params=None)


class Migration(migrations.Migration):

    dependencies = [
        ("leases", "0001_initial"),
        ("config", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="peer",
            name="config_version",
            field=models.BigIntegerField(db_default=0, default=0),
        ),
        migrations.RunPython(fence_create, fence_drop),
    ]
