"""What a run produces: findings, load errors, notices, and the text boundary they pass."""
