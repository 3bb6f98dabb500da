"""The baseline file: findings accepted for now, so a gate fails only on new ones.

The file is JSON, sorted and readable in review: each entry has the fingerprint (the only
thing matched) and, for people, the rule, file and resource it was recorded from.
"""

from __future__ import annotations

import json
import os

from fanout_lint import __version__
from fanout_lint.findings import Finding
from fanout_lint.fingerprint import fingerprint, relative_path

FORMAT_VERSION = 1


class BaselineError(Exception):
    """A baseline file that cannot be read; the message names the file."""


def render(findings: list[Finding], root: str) -> str:
    entries = {}
    for f in findings:
        key = fingerprint(f, root)
        entries[key] = {
            "fingerprint": key,
            "rule": f.rule,
            "name": f.name,
            "file": relative_path(f.loc.file, root),
            "resource": f.cdk_path or f.resource,
        }
    document = {
        "version": FORMAT_VERSION,
        "tool": {"name": "fanout-lint", "version": __version__},
        "findings": sorted(entries.values(), key=lambda e: (e["file"], e["rule"], e["resource"], e["fingerprint"])),
    }
    return json.dumps(document, indent=2) + "\n"


def write(path: str, findings: list[Finding], root: str) -> None:
    directory = os.path.dirname(path)
    if directory:
        os.makedirs(directory, exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(render(findings, root))


def load(path: str) -> frozenset[str]:
    try:
        with open(path, encoding="utf-8") as handle:
            document = json.load(handle)
    except OSError as exc:
        raise BaselineError(f"{path}: cannot read baseline: {exc.strerror or exc}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        line = getattr(exc, "lineno", None)
        where = f"{path}:{line}" if line else path
        raise BaselineError(f"{where}: baseline is not valid JSON: {getattr(exc, 'msg', exc)}") from None
    if not isinstance(document, dict) or document.get("version") != FORMAT_VERSION \
            or not isinstance(document.get("findings"), list):
        raise BaselineError(f"{path}: not a fanout-lint baseline (version {FORMAT_VERSION}); "
                            "write one with --write-baseline")
    keys = set()
    for entry in document["findings"]:
        if not isinstance(entry, dict) or not isinstance(entry.get("fingerprint"), str):
            raise BaselineError(f"{path}: baseline entry without a fingerprint: {entry!r}"[:300])
        keys.add(entry["fingerprint"])
    return frozenset(keys)


def split(findings: list[Finding], known: frozenset[str], root: str) -> tuple[list[Finding], list[Finding]]:
    """(new findings, findings already in the baseline)."""
    new, old = [], []
    for f in findings:
        (old if fingerprint(f, root) in known else new).append(f)
    return new, old
