"""Team links move from the teams app to accounts (they are credentials): the model's state
moves, the table stays where it is."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("accounts", "0001_quota_admins_group"),
        ("teams", "0001_initial"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="TeamLink",
                    fields=[
                        ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                        ("token", models.CharField(max_length=64, unique=True)),
                        ("partition", models.CharField(max_length=64)),
                        ("kind", models.CharField(choices=[("group", "group"), ("user", "user")], max_length=8)),
                        ("name", models.CharField(max_length=255)),
                        ("label", models.CharField(blank=True, help_text="who the link is for", max_length=200)),
                        ("created", models.DateTimeField(auto_now_add=True)),
                        ("revoked", models.DateTimeField(blank=True, null=True)),
                        ("created_by", models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name="+", to=settings.AUTH_USER_MODEL)),
                    ],
                    options={"ordering": ["-created"], "db_table": "teams_teamlink"},
                ),
            ],
            database_operations=[],
        ),
    ]
