"""Expected findings written inside fixtures, and how to read them.

In YAML and HCL a comment names the findings expected on the next line that is neither
blank nor a comment::

    # expect: shared-queue, missing-dlq
    OrdersQueue:

A name may carry the finding's level when it is not the rule's own
(``# expect: eventbridge-target-without-dlq@info``; in a sidecar, ``severity: info``).

JSON cannot hold comments: ``name.json`` has a sidecar ``name.expected.yaml`` listing
``- {rule: shared-queue, line: 12}`` (``main.tf.json`` has ``main.tf.expected.yaml``). A fixture expecting a load error says
``# expect-error: <text>`` (any line) or lists ``- {error: <text>}`` in its sidecar.

A ``link_*`` directory is one fixture of several templates linted together (stacks that
import each other's exports, nested stacks, a CDK ``cdk.out``): each file holds the
markers of the findings on its own lines.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

import yaml

from fanout_lint.loaders.terraform.files import suffix_of

MARKER = re.compile(r"#\s*expect:\s*(.+?)\s*$")
ERROR_MARKER = re.compile(r"#\s*expect-error:\s*(.+?)\s*$")
FIXTURE_SUFFIXES = (".yaml", ".yml", ".json", ".template")
SIDECAR = ".expected.yaml"


@dataclass(frozen=True)
class Expected:
    findings: frozenset[tuple[str, int, str]]  # (file relative to the fixture root, line, rule name)
    errors: tuple[str, ...]
    # the level written for a finding, where the fixture says it (else not checked)
    severities: tuple[tuple[tuple[str, int, str], str], ...] = ()


def fixture_paths(root: str) -> list[str]:
    """Fixture files and Terraform fixture directories (``tf_*``: any ``.tf``, ``.tf.json``,
    ``.tofu`` or ``.tofu.json`` file) below ``root``."""
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        base = os.path.basename(dirpath)
        if base.startswith(("tf_", "tfvars_")) and any(suffix_of(f) for f in filenames):
            found.append(dirpath)
            dirnames[:] = []  # modules below a Terraform fixture belong to it
            continue
        if base.startswith("link_"):
            found.append(dirpath)
            dirnames[:] = []  # the templates below a linked fixture are linted together
            continue
        for name in sorted(filenames):
            if name.endswith(SIDECAR) or not name.endswith(FIXTURE_SUFFIXES):
                continue
            found.append(os.path.join(dirpath, name))
    return sorted(found)


def expected_for(path: str) -> Expected:
    findings: set[tuple[str, int, str]] = set()
    errors: list[str] = []
    severities: dict[tuple[str, int, str], str] = {}
    files = _files_of(path)
    for file in files:
        if file.endswith(".json"):
            sidecar = file[: -len(".json")] + SIDECAR
            if os.path.exists(sidecar):
                with open(sidecar, encoding="utf-8") as handle:
                    for entry in yaml.safe_load(handle) or []:
                        if "error" in entry:
                            errors.append(entry["error"])
                        else:
                            findings.add((file, int(entry["line"]), entry["rule"]))
                            if "severity" in entry:
                                severities[(file, int(entry["line"]), entry["rule"])] = entry["severity"]
            continue
        with open(file, encoding="utf-8", errors="replace") as handle:
            lines = handle.read().splitlines()
        pending: list[str] = []
        for number, line in enumerate(lines, start=1):
            stripped = line.strip()
            error = ERROR_MARKER.search(stripped)
            if error and stripped.startswith("#"):
                errors.append(error.group(1))
                continue
            marker = MARKER.search(stripped)
            if marker and stripped.startswith("#"):
                pending.extend(n.strip() for n in marker.group(1).split(",") if n.strip())
                continue
            if not stripped or stripped.startswith(("#", "//")):
                continue
            for name in pending:
                name, _, severity = name.partition("@")
                findings.add((file, number, name))
                if severity:
                    severities[(file, number, name)] = severity
            pending = []
    return Expected(frozenset(findings), tuple(errors), tuple(sorted(severities.items())))


def _files_of(path: str) -> list[str]:
    if os.path.isfile(path):
        return [path]
    out = []
    for dirpath, dirnames, filenames in os.walk(path):
        dirnames.sort()
        for name in sorted(filenames):
            if name.endswith((".tf", ".tofu", ".tfvars", *FIXTURE_SUFFIXES)) and not name.endswith(SIDECAR):
                out.append(os.path.join(dirpath, name))
    return out
