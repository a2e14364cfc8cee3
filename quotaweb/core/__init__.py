"""Pages every visitor sees first: the overview and the health check."""
