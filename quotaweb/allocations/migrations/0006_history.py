from django.db import migrations, models

# The history of the ledger, written by the database in the very statement that inserts or
# deletes ledger rows (``HistoryEvent``): no path that writes the ledger can skip it, and no
# round trip is added. SQLite: a trigger per row (its triggers are per row only; each is one
# more row written in the same page cache). PostgreSQL: one INSERT ... SELECT per statement
# from its transition table, so a 1,000-row COPY adds one statement, not 1,000.
COLUMNS = 'partition, kind, at, started, key, application_id, queue_path, "user", groups, "group", resource'
SQLITE = [f"""
CREATE TRIGGER quotaweb_history_admitted AFTER INSERT ON allocations_allocation
BEGIN
    INSERT INTO allocations_historyevent ({COLUMNS}, reason)
    VALUES (NEW.partition, 'admitted', NEW.created, NULL, NEW.key, NEW.application_id,
            NEW.queue_path, NEW."user", NEW.groups, NEW."group", NEW.resource, '');
END
""", f"""
CREATE TRIGGER quotaweb_history_released AFTER DELETE ON allocations_allocation
BEGIN
    INSERT INTO allocations_historyevent ({COLUMNS}, reason)
    VALUES (OLD.partition, 'released', strftime('%Y-%m-%d %H:%M:%f', 'now'), OLD.created,
            OLD.key, OLD.application_id, OLD.queue_path, OLD."user", OLD.groups, OLD."group",
            OLD.resource, '');
END
"""]
UNSQLITE = ["DROP TRIGGER quotaweb_history_admitted", "DROP TRIGGER quotaweb_history_released"]
POSTGRES = f"""
CREATE FUNCTION quotaweb_history_admitted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO allocations_historyevent ({COLUMNS}, reason, tx)
    SELECT partition, 'admitted', created, NULL, key, application_id, queue_path, "user",
           groups, "group", resource, '', pg_current_xact_id()::text::bigint
    FROM admitted_rows ORDER BY id;
    RETURN NULL;
END
$$;
CREATE FUNCTION quotaweb_history_released() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO allocations_historyevent ({COLUMNS}, reason, tx)
    SELECT partition, 'released', statement_timestamp(), created, key, application_id,
           queue_path, "user", groups, "group", resource, '', pg_current_xact_id()::text::bigint
    FROM released_rows ORDER BY id;
    RETURN NULL;
END
$$;
CREATE TRIGGER quotaweb_history_admitted AFTER INSERT ON allocations_allocation
    REFERENCING NEW TABLE AS admitted_rows
    FOR EACH STATEMENT EXECUTE FUNCTION quotaweb_history_admitted();
CREATE TRIGGER quotaweb_history_released AFTER DELETE ON allocations_allocation
    REFERENCING OLD TABLE AS released_rows
    FOR EACH STATEMENT EXECUTE FUNCTION quotaweb_history_released();
CREATE INDEX allocations_history_partition_tx ON allocations_historyevent (partition, tx);
"""
UNPOSTGRES = """
DROP TRIGGER quotaweb_history_admitted ON allocations_allocation;
DROP TRIGGER quotaweb_history_released ON allocations_allocation;
DROP FUNCTION quotaweb_history_admitted();
DROP FUNCTION quotaweb_history_released();
DROP INDEX allocations_history_partition_tx;
"""


def _run(schema_editor, sqlite: list[str], postgres: str) -> None:
    vendor = schema_editor.connection.vendor
    if vendor == "sqlite":
        # SQLite's driver runs one statement at a time.
        for statement in sqlite:
            schema_editor.execute(statement, params=None)
    elif vendor == "postgresql":
        schema_editor.execute(postgres, params=None)


def triggers_create(apps, schema_editor):
    _run(schema_editor, SQLITE, POSTGRES)


def triggers_drop(apps, schema_editor):
    _run(schema_editor, UNSQLITE, UNPOSTGRES)


class Migration(migrations.Migration):

    dependencies = [
        ('allocations', '0005_allocation_config_version_fence'),
    ]

    operations = [
        migrations.CreateModel(
            name='HistoryEvent',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('partition', models.CharField(max_length=64)),
                ('kind', models.CharField(max_length=8)),
                ('at', models.DateTimeField()),
                ('started', models.DateTimeField(null=True)),
                ('key', models.CharField(max_length=255)),
                ('application_id', models.CharField(max_length=255)),
                ('queue_path', models.CharField(max_length=1024)),
                ('user', models.CharField(max_length=255)),
                ('groups', models.JSONField(default=list)),
                ('group', models.CharField(blank=True, default='', max_length=255)),
                ('resource', models.JSONField(help_text='{type: integer} in base units')),
                ('reason', models.CharField(blank=True, default='', max_length=64)),
                ('tx', models.BigIntegerField(null=True)),
            ],
        ),
        migrations.RunPython(triggers_create, triggers_drop),
    ]
