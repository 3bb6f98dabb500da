"""``--format gitlab``: GitLab's Code Quality report, which merge requests show inline.

A JSON array of issues, each with the fields GitLab reads: ``description``,
``check_name``, ``fingerprint`` (unique in the report), ``severity`` (``info``, ``minor``,
``major``, ``critical`` or ``blocker``) and ``location`` (``path`` relative to the
repository root, ``lines.begin``). Findings keep the fingerprint the baseline and SARIF
use, so GitLab follows an issue across moved lines; files that could not be linted are
issues too (``check_name`` ``fanout-lint/cannot-lint``), so a broken template shows in
the merge request instead of only in the job log. The records' text is already one
printable line; ``json`` escapes the rest.
"""

from __future__ import annotations

import hashlib
import json

from fanout_lint.policy.fingerprint import fingerprint, relative_path
from fanout_lint.results.records import Result, Severity

SEVERITIES = {Severity.ERROR: "major", Severity.WARNING: "minor", Severity.INFO: "info"}
LOAD_ERROR_CHECK = "fanout-lint/cannot-lint"
LOAD_ERROR_SEVERITY = "critical"  # nothing in the file was checked


def render(result: Result, root: str = ".") -> str:
    issues = [_finding(f, root) for f in result.findings]
    issues += [_error(e, root) for e in result.errors]
    return json.dumps(_unique(issues), indent=2) + "\n"


def _finding(f, root: str) -> dict:
    return {
        "description": f"{f.rule} {f.message} ({f.cdk_path or f.resource})",
        "check_name": f"{f.rule}/{f.name}",
        "fingerprint": fingerprint(f, root),
        "severity": SEVERITIES[f.severity],
        "location": {"path": relative_path(f.loc.file, root), "lines": {"begin": max(f.loc.line, 1)}},
    }


def _error(e, root: str) -> dict:
    path = relative_path(e.file, root)
    key = "\x1f".join(("load", path, e.message)).encode("utf-8", "surrogatepass")
    return {
        "description": f"cannot lint: {e.message}",
        "check_name": LOAD_ERROR_CHECK,
        "fingerprint": hashlib.sha256(key).hexdigest()[:32],
        "severity": LOAD_ERROR_SEVERITY,
        "location": {"path": path, "lines": {"begin": max(e.line or 1, 1)}},
    }


def _unique(issues: list[dict]) -> list[dict]:
    """GitLab shows one issue per fingerprint: two findings that share one (one rule on one
    resource, reported for two settings) get it numbered, in report order."""
    seen: dict[str, int] = {}
    for issue in issues:
        key = issue["fingerprint"]
        if key in seen:
            seen[key] += 1
            issue["fingerprint"] = hashlib.sha256(f"{key}/{seen[key]}".encode()).hexdigest()[:32]
        else:
            seen[key] = 0
    return issues
