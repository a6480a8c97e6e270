"""Short example bots for bot authors (each one file, runnable with ``python -m``)."""
