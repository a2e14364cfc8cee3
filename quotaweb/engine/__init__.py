"""The engine gateway: the one door between Django code and the ``trackers`` engines."""
