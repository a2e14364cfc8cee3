"""Django's PostgreSQL backend with a pool that replaces every dropped connection at once (see
``base``); ``DATABASES`` ENGINE ``quotaweb.postgresql`` when ``DATABASE_URL`` is set."""
