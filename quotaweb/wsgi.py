"""WSGI entry point (management tools only; the product serves over ASGI for websockets)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "quotaweb.settings")

application = get_wsgi_application()
