"""Formatters: findings and errors in, text out. One module per format."""
