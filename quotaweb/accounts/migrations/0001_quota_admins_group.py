"""Create the ``quota-admins`` group, so admins can add members in the Django admin right away."""

from django.db import migrations

QUOTA_ADMINS_GROUP = "quota-admins"  # a copy: migrations must not import code that may change


def create_group(apps, schema_editor):
    Group = apps.get_model("auth", "Group")
    Group.objects.get_or_create(name=QUOTA_ADMINS_GROUP)


class Migration(migrations.Migration):
    dependencies = [("auth", "0012_alter_user_first_name_max_length")]

    # Reversing keeps the group: dropping it would silently remove every admin's membership.
    operations = [migrations.RunPython(create_group, migrations.RunPython.noop)]
