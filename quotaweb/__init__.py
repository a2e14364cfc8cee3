"""quotaweb: quota administration for shared clusters (the Django project)."""
