from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('allocations', '0002_node_and_priority'),
    ]

    operations = [
        migrations.AddField(
            model_name='allocation',
            name='node_id',
            field=models.CharField(blank=True, db_default='', default='', max_length=255),
        ),
    ]
