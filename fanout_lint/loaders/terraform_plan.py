"""Terraform plan JSON (``terraform show -json``). Not implemented yet: reported as such."""

from __future__ import annotations

from fanout_lint.findings import LoadError


def load_plan(parsed, path: str):
    return [], [LoadError(path, None, "Terraform plan JSON is not supported yet")]
