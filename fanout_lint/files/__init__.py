"""Paths and files a run may touch: the repository, confinement, bounded reads and atomic writes."""
