"""Team links move to the accounts app (state only; the table stays, see accounts 0002)."""

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ("teams", "0001_initial"),
        ("accounts", "0002_teamlink"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[migrations.DeleteModel(name="TeamLink")],
            database_operations=[],
        ),
    ]
