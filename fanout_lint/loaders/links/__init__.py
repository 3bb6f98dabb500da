"""Linking templates into one application: exports, imports, nested stacks."""
