"""The baseline file: findings accepted for now, so a gate fails only on new ones.

The file is JSON, sorted and readable in review: each entry has the fingerprint (the only
thing matched) and, for people, the rule, file and resource it was recorded from.
"""

from __future__ import annotations

import json

from fanout_lint import __version__
from fanout_lint.findings import Finding
from fanout_lint.fingerprint import fingerprint, relative_path
from fanout_lint.regular_files import BASELINE_BYTES, read_bounded, write_atomic

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


def write(path: str, findings: list[Finding], root: str, write_file=write_atomic) -> None:
    """Replace the baseline at ``path`` in one step (OSError when it cannot be written)."""
    write_file(path, render(findings, root).encode("utf-8"))


def load(path: str) -> frozenset[str]:
    try:
        raw = read_bounded(path, BASELINE_BYTES)
    except OSError as exc:
        raise BaselineError(f"{path}: cannot read baseline: {exc.strerror or exc}") from None
    try:
        document = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise BaselineError(f"{path}:{line}: baseline is not valid UTF-8") from None
    except json.JSONDecodeError as exc:
        raise BaselineError(f"{path}:{exc.lineno}: baseline is not valid JSON: {exc.msg}") from None
    except RecursionError:
        raise BaselineError(f"{path}: baseline is not a fanout-lint baseline: nested too deep") from None
    except ValueError as exc:  # a number of more digits than Python converts, say
        raise BaselineError(f"{path}: baseline is not valid JSON: {_first_line(exc)}") from None
    return _fingerprints(path, document)


def _fingerprints(path: str, document) -> frozenset[str]:
    if not isinstance(document, dict) or type(document.get("version")) is not int \
            or document["version"] != FORMAT_VERSION or not isinstance(document.get("findings"), list):
        raise BaselineError(f"{path}: not a fanout-lint baseline (version {FORMAT_VERSION}); "
                            "write one with --write-baseline")
    keys = set()
    for number, entry in enumerate(document["findings"], start=1):
        # the entry itself is not quoted: it may be huge, deep, or made to mislead a reader
        if not isinstance(entry, dict) or not isinstance(entry.get("fingerprint"), str):
            raise BaselineError(f"{path}: baseline entry {number} of \"findings\" has no fingerprint string")
        keys.add(entry["fingerprint"])
    return frozenset(keys)


def _first_line(exc: Exception) -> str:
    text = str(exc)
    return text.splitlines()[0] if text else type(exc).__name__


def split(findings: list[Finding], known: frozenset[str], root: str) -> tuple[list[Finding], list[Finding]]:
    """(new findings, findings already in the baseline)."""
    new, old = [], []
    for f in findings:
        (old if fingerprint(f, root) in known else new).append(f)
    return new, old
