"""``--format sarif``: SARIF 2.1.0 as GitHub code scanning reads it.

Locations are relative to the repository root (``--repo-root``, default the current
directory) under the ``%SRCROOT%`` base, which is what code scanning resolves against the
checkout. Each result carries a ``partialFingerprints`` entry that ignores line numbers,
so an alert follows its resource when lines move. A finding with a fix carries it as
SARIF ``fixes`` (the replacements ``--fix`` would make), whether safe or not.

The rules about who may write to a queue (FL302) and about messages lost without a trace
(FL301, FL303) carry a ``security`` tag and a ``security-severity`` score, which code
scanning ranks security alerts by. With ``--baseline``, every result has a
``baselineState``: ``new``, or ``unchanged`` for a finding the baseline lists, which is
carried as well, marked as suppressed by the baseline, rather than dropped.
"""

from __future__ import annotations

import json
import os
import pathlib
from urllib.parse import quote

from fanout_lint import __version__
from fanout_lint.model.nodes import Loc
from fanout_lint.policy.fingerprint import VERSION as FINGERPRINT_VERSION
from fanout_lint.policy.fingerprint import fingerprint, relative_path
from fanout_lint.results.doc_links import PROJECT_URL, rule_url
from fanout_lint.results.records import Finding, FindingFix, Result, Severity
from fanout_lint.results.untrusted import clean
from fanout_lint.rule import Rule, _dedent

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
ROOT_BASE = "%SRCROOT%"
FINGERPRINT_KEY = f"fanoutLint/{FINGERPRINT_VERSION}"
LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}
# Code scanning's scale: 9.0 and above critical, 7.0 high, 4.0 medium. A queue any account
# can fill is an injection path into the consumers; a delivery SNS cannot make loses
# every message with no error anywhere.
SECURITY_SEVERITY = {
    "FL302": "8.0",  # queue-policy-without-source-arn: a foreign topic or account can write
    "FL301": "7.0",  # queue-policy-missing: SNS cannot deliver; messages are dropped silently
    "FL303": "7.0",  # the AWS-managed SQS key: SNS cannot encrypt; messages are dropped silently
}


def render(result: Result, rules: tuple[Rule, ...], severities: dict[str, Severity] | None = None,
           root: str = ".", show_suppressed: bool = False, docs_url: str | None = None,
           baseline_used: bool = False) -> str:
    """``rules``: the rules that ran; ``severities``: their effective severity by ID;
    ``docs_url``: where the rule pages are (default: this release's); ``baseline_used``:
    the run had a baseline, so results carry ``baselineState``."""
    severities = severities or {}
    index = {rule.id: i for i, rule in enumerate(rules)}
    results = [_result(f, index, root) for f in result.findings]
    if baseline_used:
        for entry in results:
            entry["baselineState"] = "new"
        for f in result.in_baseline:
            entry = _result(f, index, root)
            entry["baselineState"] = "unchanged"
            entry["suppressions"] = [{"kind": "external", "justification": "recorded in the baseline"}]
            results.append(entry)
    if show_suppressed:
        for s in result.suppressed:
            entry = _result(s.finding, index, root)
            entry["suppressions"] = [{"kind": "inSource", "justification": s.suppression.reason}]
            results.append(entry)
    notifications = [_notification("error", e.message, e.file, e.line, e.column, root) for e in result.errors]
    notifications += [
        _notification(n.level, n.message, n.loc.file, n.loc.line, n.loc.column, root) for n in result.notices
    ]
    run = {
        "tool": {"driver": {
            "name": "fanout-lint",
            "version": __version__,
            "informationUri": PROJECT_URL,
            "rules": [_descriptor(rule, severities.get(rule.id, rule.severity), docs_url) for rule in rules],
        }},
        "originalUriBaseIds": {ROOT_BASE: {"uri": pathlib.Path(root).resolve().as_uri().rstrip("/") + "/"}},
        "invocations": [{
            "executionSuccessful": not result.errors,
            "toolExecutionNotifications": notifications,
        }],
        "results": results,
        "columnKind": "unicodeCodePoints",
    }
    document = {"$schema": SCHEMA, "version": "2.1.0", "runs": [run]}
    return json.dumps(document, indent=2) + "\n"


def _descriptor(rule: Rule, severity: Severity, docs_url: str | None = None) -> dict:
    what = rule.section("What it does") or rule.summary
    why, fix = rule.section("Why is this bad?"), rule.section("How to fix")
    url = rule_url(rule.name, docs_url)
    text = "\n\n".join(part for part in (why, fix and "How to fix: " + fix, url) if part)
    properties: dict = {"tags": ["aws", "fan-out"]}
    if rule.id in SECURITY_SEVERITY:
        properties = {"tags": ["aws", "fan-out", "security"], "security-severity": SECURITY_SEVERITY[rule.id]}
    return {
        "id": rule.id,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": _plain(what)},
        "help": {"text": _plain(text), "markdown": _dedent(rule.doc)},
        "helpUri": url,
        "defaultConfiguration": {"level": LEVELS[severity]},
        "properties": properties,
    }


def _plain(markdown: str) -> str:
    return " ".join(markdown.split()) if "\n\n" not in markdown else "\n\n".join(
        " ".join(p.split()) for p in markdown.split("\n\n")
    )


def _result(f: Finding, index: dict[str, int], root: str) -> dict:
    entry = {
        "ruleId": f.rule,
        "level": LEVELS[f.severity],
        "message": {"text": f.message},
        "locations": [{
            "physicalLocation": _physical(f.loc, root),
            "logicalLocations": [{"name": f.cdk_path or f.resource, "kind": "resource"}],
        }],
        "partialFingerprints": {FINGERPRINT_KEY: fingerprint(f, root)},
    }
    if f.rule in index:
        entry["ruleIndex"] = index[f.rule]
    if f.fix is not None:
        entry["fixes"] = [_fix(f.fix, root)]
    if f.related:
        entry["relatedLocations"] = [
            {
                "id": number,
                "physicalLocation": _physical(r.loc, root),
                "message": {"text": f"{r.role}: {r.resource}" if r.role else r.resource},
            }
            for number, r in enumerate(f.related, start=1)
        ]
    return entry


def _fix(fix: FindingFix, root: str) -> dict:
    """The finding's fix as SARIF ``fix``: per file, the regions replaced and the text put
    there (an empty region inserts). Safe, unsafe or display-only is a property: SARIF has no
    word for it."""
    changes: dict[str, list[dict]] = {}
    for edit in fix.edits:
        changes.setdefault(edit.file, []).append({
            "deletedRegion": {"startLine": edit.line, "startColumn": edit.column,
                              "endLine": edit.end_line, "endColumn": edit.end_column},
            "insertedContent": {"text": edit.text},
        })
    return {
        "description": {"text": fix.title},
        # the file as the result's location shows it (edits keep the raw name --fix opens)
        "artifactChanges": [{"artifactLocation": _artifact(clean(file), root), "replacements": replacements}
                            for file, replacements in changes.items()],
        "properties": {"applicability": fix.applicability.value},
    }


def _artifact(file: str, root: str) -> dict:
    """Always relative to the repository root's base: a file outside it is reached with
    ``../`` (a relative reference, as RFC 3986 resolves it), never by the runner's
    absolute path, which names nothing on the machine that reads the report."""
    path = relative_path(file, root)
    if path.startswith("/"):  # outside the root
        try:
            path = os.path.relpath(os.path.abspath(file), os.path.abspath(root)).replace(os.sep, "/")
        except ValueError:  # another drive on Windows: no relative reference reaches it
            return {"uri": pathlib.Path(os.path.abspath(file)).as_uri()}
    return {"uri": _escape_uri(path), "uriBaseId": ROOT_BASE}


def _escape_uri(path: str) -> str:
    return quote(path, safe="/-_.~")


def _physical(loc: Loc, root: str) -> dict:
    return {
        "artifactLocation": _artifact(loc.file, root),
        "region": _region(loc),
    }


def _region(loc: Loc) -> dict:
    region = {"startLine": max(loc.line, 1), "startColumn": max(loc.column, 1)}
    if loc.has_end and (loc.end_line, loc.end_column) > (loc.line, loc.column):
        region["endLine"] = loc.end_line
        region["endColumn"] = max(loc.end_column, 1)  # exclusive, as SARIF counts it
    return region


def _notification(level: str, message: str, file: str, line: int | None, column: int | None, root: str) -> dict:
    location: dict = {"artifactLocation": _artifact(file, root)}
    if line:
        location["region"] = {"startLine": line, "startColumn": max(column or 1, 1)}
    return {"level": level, "message": {"text": message}, "locations": [{"physicalLocation": location}]}
