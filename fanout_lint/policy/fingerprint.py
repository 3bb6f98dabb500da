"""Fingerprints: one finding's identity across edits, for SARIF and the baseline.

A fingerprint is built from the rule, the unit (template file or Terraform directory)
relative to the repository root, and the resources involved, each named by its CDK path
when it has one (in CDK output, related resources without one are left out). Never from
line numbers or messages: moving a resource in the file, re-synthesizing a CDK app (new
logical ID hashes) or rewording a message keeps it.
"""

from __future__ import annotations

import hashlib
import os

from fanout_lint.results.records import Finding

VERSION = "v1"  # bump when the recipe changes; SARIF and baselines carry it


def relative_path(path: str, root: str) -> str:
    """``path`` relative to ``root`` with forward slashes, or absolute when outside it."""
    absolute = os.path.abspath(path)
    try:
        relative = os.path.relpath(absolute, os.path.abspath(root))
    except ValueError:  # another drive on Windows
        return absolute.replace(os.sep, "/")
    if relative == os.pardir or relative.startswith(os.pardir + os.sep):
        return absolute.replace(os.sep, "/")
    return relative.replace(os.sep, "/")


def fingerprint(finding: Finding, root: str = ".") -> str:
    involved = finding.involved or (finding.cdk_path or finding.resource,)
    unit = relative_path(finding.unit or finding.loc.file, root)
    related = set(involved[1:])
    if finding.cdk_path:
        # CDK output: a resource without aws:cdk:path is known only by a hashed logical ID
        # (alphanumeric, never a "/") that re-synthesis changes, so it cannot identify anything
        related = {r for r in related if "/" in r}
    # the primary resource first; the related ones as a set, since their order is incidental
    parts = [VERSION, finding.rule, unit, involved[0], *sorted(related)]

    # The unit and the involved names are the raw ones (the display copies are cleaned and
    # may coincide). A file name that is not valid UTF-8 arrives surrogate-escaped and a JSON
    # template may hold a lone surrogate: "surrogatepass" hashes both, and any other text
    # exactly as plain UTF-8 would, so no fingerprint already recorded in a baseline moves.
    return hashlib.sha256("\x1f".join(parts).encode("utf-8", "surrogatepass")).hexdigest()[:32]
