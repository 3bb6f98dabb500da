"""Files a run passes over, and the reason it gives: formats not read yet, Terraform files
that stand for nothing on their own, YAML and JSON that is no template.

The tables are data: when a loader for one of these formats lands, its entry goes. The
reasons are shown when a run lints nothing, so that "0 units checked" never leaves the
user guessing which of their files was looked at.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass

from fanout_lint.files.regular_files import KIB


@dataclass(frozen=True, eq=False, repr=False)
class ByName:
    """Files known by their name: exact base names (any case) or name endings."""

    reason: str
    names: tuple[str, ...] = ()
    suffixes: tuple[str, ...] = ()

    def matches(self, path: str) -> bool:
        name = os.path.basename(path).lower()
        return name in self.names or name.endswith(self.suffixes)


@dataclass(frozen=True, eq=False, repr=False)
class ByContent:
    """YAML or JSON that is not a template, known by every one of ``patterns`` (each
    anchored at a line start, so linear) in the start of the file."""

    reason: str
    patterns: tuple[re.Pattern, ...]

    def matches(self, text: str) -> bool:
        return all(p.search(text) for p in self.patterns)


NOT_READ_YET = (
    # serverless.yml/.yaml/.json are read (loaders/serverless.py); these need a JavaScript run
    ByName("Serverless Framework configuration in TypeScript or JavaScript: not read",
           names=("serverless.ts", "serverless.js")),
)

BY_CONTENT = (
    ByContent("Serverless Framework service for another provider than aws", (
        re.compile(r"^[\"']?service[\"']?[ \t]*:", re.M),
        re.compile(r"^[ \t]+[\"']?name[\"']?[ \t]*:[ \t]*[\"']?(?!aws\b)[a-z]", re.M),
        re.compile(r"^[\"']?provider[\"']?[ \t]*:", re.M),
    )),
)

NOT_A_TEMPLATE = "not a CloudFormation template, Serverless Framework service or Terraform plan"
# Terraform reads these by itself; any other .tfvars only with -var-file, which a run is
# told with --var-file
AUTO_TFVARS = ("terraform.tfvars", "terraform.tfvars.json")
AUTO_TFVARS_SUFFIXES = (".auto.tfvars", ".auto.tfvars.json")
TFVARS_NOT_AUTO = ("Terraform reads this .tfvars only with -var-file; only terraform.tfvars and *.auto.tfvars "
                   "apply by themselves (give this one with --var-file)")
TFVARS_WITHOUT_TF = "variables for a directory without .tf or .tofu files"
PLAN_BESIDE_TF = "a Terraform plan beside the .tf files of {directory}, which are linted"
# the start of a file is enough to tell what it is; the rest is not read again
SNIFF_BYTES = 64 * KIB


def not_read_yet(path: str) -> str | None:
    """Why a file of a format not read yet is skipped, or None."""
    for entry in NOT_READ_YET:
        if entry.matches(path):
            return entry.reason
    return None


def is_tfvars(path: str) -> bool:
    name = os.path.basename(path).lower()
    return name.endswith((".tfvars", ".tfvars.json"))


def is_auto_tfvars(path: str) -> bool:
    name = os.path.basename(path).lower()
    return name in AUTO_TFVARS or name.endswith(AUTO_TFVARS_SUFFIXES)


def why_not_linted(path: str) -> str:
    """Why a YAML or JSON file that loaded to nothing was skipped: what its start shows."""
    text = _start_of(path)
    for entry in BY_CONTENT:
        if entry.matches(text):
            return entry.reason
    return NOT_A_TEMPLATE


def looks_like_plan(path: str) -> bool:
    """``terraform show -json`` output: its first keys are the format and Terraform versions."""
    start = _start_of(path)[:1024]
    return '"format_version"' in start and '"terraform_version"' in start


def _start_of(path: str) -> str:
    """The first ``SNIFF_BYTES`` of a regular file ("" for anything else): a FIFO or device
    named like a template must not block or flood the run (see ``regular_files``)."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return ""
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return ""
            data = os.read(fd, SNIFF_BYTES)
        finally:
            os.close(fd)
    except (OSError, ValueError):
        return ""
    return data.decode("utf-8", errors="replace")
