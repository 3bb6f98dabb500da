"""One run: discovery, the link plan, the worker pool, and linting one unit."""
