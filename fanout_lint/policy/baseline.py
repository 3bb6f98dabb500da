"""The baseline file: findings accepted for now, so a gate fails only on new ones.

The file is JSON, sorted and readable in review: each entry has the fingerprint (the only
thing matched) and, for people, the rule, file and resource it was recorded from.

``--baseline FILE`` names it on the command line; the configuration's ``baseline`` key
names it relative to the configuration file. The configuration is the repository's, which
a pull request may change, so its baseline must lie inside the repository (or the
configuration file's own directory) and pass no link, as its ``var-files`` must.
"""

from __future__ import annotations

import json
import posixpath
from dataclasses import dataclass

from fanout_lint import __version__
from fanout_lint.files import confine
from fanout_lint.files.regular_files import BASELINE_BYTES, read_bounded, write_atomic
from fanout_lint.policy.fingerprint import fingerprint, relative_path
from fanout_lint.results.records import Finding, Result

FORMAT_VERSION = 1


def config_problem(path: str, root: str, config_dir: str) -> str | None:
    """Why the configuration's ``baseline`` may not be read (one line), or None."""
    reason = confine.problem(path, root)
    if reason is not None and confine.problem(path, config_dir) is not None:
        return f"baseline: {path} is {reason}"
    return None


class BaselineError(Exception):
    """A baseline file that cannot be read; the message names the file."""


def entry(finding: Finding, root: str) -> dict[str, str]:
    """The baseline's record of ``finding``: its fingerprint, and for people what it was."""
    return {
        "fingerprint": fingerprint(finding, root),
        "rule": finding.rule,
        "name": finding.name,
        "file": relative_path(finding.loc.file, root),
        "resource": finding.cdk_path or finding.resource,
    }


def _text(entries: list[dict]) -> str:
    def order(e: dict) -> tuple:
        return tuple(str(e.get(k, "")) for k in ("file", "rule", "resource", "fingerprint"))

    document = {
        "version": FORMAT_VERSION,
        "tool": {"name": "fanout-lint", "version": __version__},
        "findings": sorted(entries, key=order),
    }
    return json.dumps(document, indent=2) + "\n"


def render(findings: list[Finding], root: str) -> str:
    entries = {}
    for f in findings:
        record = entry(f, root)
        entries[record["fingerprint"]] = record
    return _text(list(entries.values()))


def add(path: str, record: dict[str, str], write_file=write_atomic) -> bool:
    """Add ``record`` (``entry``) to the baseline at ``path``, keeping its other entries as
    they are; False when the baseline already holds it. A baseline that does not exist yet
    is created. BaselineError when it cannot be read, OSError when it cannot be written."""
    try:
        entries = list(_document(path)["findings"])
    except FileNotFoundError:
        entries = []
    if any(e["fingerprint"] == record["fingerprint"] for e in entries):
        return False
    write_file(path, _text(entries + [record]).encode("utf-8"))
    return True


def write(path: str, findings: list[Finding], root: str, write_file=write_atomic) -> None:
    """Replace the baseline at ``path`` in one step (OSError when it cannot be written)."""
    write_file(path, render(findings, root).encode("utf-8"))


def load(path: str) -> frozenset[str]:
    return frozenset(load_entries(path))


def load_entries(path: str) -> dict[str, str]:
    """The baseline's fingerprints, each with the file it was recorded in ("" when the
    entry does not say)."""
    try:
        document = _document(path)
    except FileNotFoundError as exc:
        raise BaselineError(f"{path}: cannot read baseline: {exc.strerror or exc}") from None
    return {e["fingerprint"]: e["file"] if isinstance(e.get("file"), str) else "" for e in document["findings"]}


def _document(path: str) -> dict:
    """The baseline at ``path``, checked to be one (FileNotFoundError when there is none)."""
    try:
        raw = read_bounded(path, BASELINE_BYTES)
    except FileNotFoundError:
        raise
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
    _check(path, document)
    return document


def _check(path: str, document) -> None:
    if not isinstance(document, dict) or type(document.get("version")) is not int \
            or document["version"] != FORMAT_VERSION or not isinstance(document.get("findings"), list):
        raise BaselineError(f"{path}: not a fanout-lint baseline (version {FORMAT_VERSION}); "
                            "write one with --write-baseline")
    for number, record in enumerate(document["findings"], start=1):
        # the entry itself is not quoted: it may be huge, deep, or made to mislead a reader
        if not isinstance(record, dict) or not isinstance(record.get("fingerprint"), str):
            raise BaselineError(f"{path}: baseline entry {number} of \"findings\" has no fingerprint string")


def _first_line(exc: Exception) -> str:
    text = str(exc)
    return text.splitlines()[0] if text else type(exc).__name__


def split(findings: list[Finding], known: frozenset[str], root: str) -> tuple[list[Finding], list[Finding]]:
    """(new findings, findings already in the baseline)."""
    new, old = [], []
    for f in findings:
        (old if fingerprint(f, root) in known else new).append(f)
    return new, old


def stale(entries: dict[str, str], result, paths: list[str], root: str) -> int:
    """How many baseline entries no finding of this run matches: fixed, or gone with their
    resource. Only entries in a file under the paths linted count (a run on one directory
    says nothing of the others), and not those in a file that could not be linted."""
    matched = {fingerprint(f, root) for f in result.in_baseline}
    scopes = [relative_path(p, root) for p in paths]
    broken = {relative_path(e.file, root) for e in result.errors}
    broken |= {posixpath.dirname(b) for b in broken}
    count = 0
    for key, file in entries.items():
        if key in matched or not file or file in broken or posixpath.dirname(file) in broken:
            continue
        if any(scope == "." or file == scope or file.startswith(scope.rstrip("/") + "/") for scope in scopes):
            count += 1
    return count


def stale_notice(entries: dict[str, str], result, paths: list[str], root: str, path: str) -> str:
    """The line that counts the stale entries, with how to drop them; "" when there are none."""
    count = stale(entries, result, paths, root)
    if not count:
        return ""
    entry = "entry matches" if count == 1 else "entries match"
    return (f"fanout-lint: {count} baseline {entry} no finding any more (fixed, or the resource is gone); "
            f"drop {'it' if count == 1 else 'them'} by rewriting the baseline: --write-baseline {path}")


@dataclass(frozen=True, eq=False)
class Baseline:
    """A baseline read once for a run: what a fix may touch and what a report shows both
    come from this one reading."""

    path: str
    entries: dict[str, str]  # fingerprint -> the file it was recorded in

    def new(self, findings: list[Finding], root: str) -> list[Finding]:
        """The findings the baseline does not list."""
        return split(findings, frozenset(self.entries), root)[0]

    def apply(self, result: Result, root: str) -> Result:
        """``result`` with the findings the baseline lists moved to ``in_baseline``."""
        result.findings, old = split(result.findings, frozenset(self.entries), root)
        result.in_baseline = old
        result.baselined = len(old)
        return result


def read(path: str) -> Baseline:
    """BaselineError when ``path`` is not a readable baseline."""
    return Baseline(path, load_entries(path))
