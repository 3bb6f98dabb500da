"""What the loaders are given: one unit that discovery found, a file or a Terraform directory."""

from __future__ import annotations

from dataclasses import dataclass, field

from fanout_lint.model.format import Format
from fanout_lint.model.record import ValueRecord


@dataclass(eq=False, repr=False)
class Candidate(ValueRecord):
    """One unit to lint: a file that may be a template, or a Terraform directory."""

    path: str
    # CLOUDFORMATION: a YAML/JSON file (maybe a template, a plan or a Serverless service);
    # TERRAFORM: a directory
    format: Format
    # the repository the unit's reads are confined to (``confine.py``): local modules, tfvars
    root: str = field(default=".", compare=False)
