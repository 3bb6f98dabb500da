"""Parsing shared by every format: YAML and JSON with locations, budgets, the parse cache."""
