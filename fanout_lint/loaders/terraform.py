"""Terraform directories. Not implemented yet: reported as such."""

from __future__ import annotations

from fanout_lint.findings import LoadError


def load_terraform_dir(path: str):
    return [], [LoadError(path, None, "Terraform is not supported yet")]
