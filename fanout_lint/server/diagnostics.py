"""Findings as the protocol's diagnostics, for every open file they touch.

A finding is a diagnostic on its own setting (the span of ``Finding.loc``) with the rule
ID as its code, the rule's page as its description, and the other resources of the
finding (the consumer function, the subscription) as related information, wherever
they are written. In an open file that holds only one of those other resources, the
finding is also shown there, as information pointing back to the setting, so a
producer's queue shows in the consumer's stack too. A fix travels in the diagnostic's
``data`` as edits of the texts the lint read, with their versions (``actions.py``)."""

from __future__ import annotations

import os

from lsprotocol import types
from pygls.uris import from_fs_path

from fanout_lint.cli.standard_input import limit_for
from fanout_lint.files.regular_files import read_bounded
from fanout_lint.model.nodes import Loc
from fanout_lint.policy.baseline import entry
from fanout_lint.results.doc_links import rule_url
from fanout_lint.results.records import Finding, LoadError, Notice, Severity
from fanout_lint.results.untrusted import clean
from fanout_lint.server.linting import Outcome
from fanout_lint.server.positions import span, split_lines

SOURCE = "fanout-lint"
_SEVERITY = {
    Severity.ERROR: types.DiagnosticSeverity.Error,
    Severity.WARNING: types.DiagnosticSeverity.Warning,
    Severity.INFO: types.DiagnosticSeverity.Information,
}


def absolute(file: str) -> str:
    """A finding's file as a path: the engine names files as they were opened."""
    return file if os.path.isabs(file) else os.path.abspath(file)


def uri_of(path: str) -> str:
    return from_fs_path(path) or f"file://{path}"


class Texts:
    """The lines of the files a lint read: the buffers it linted, else the disk (bounded)."""

    def __init__(self, texts: dict[str, str]):
        self._lines = {path: split_lines(text) for path, text in texts.items()}

    def lines(self, path: str) -> list[str]:
        if path not in self._lines:
            try:
                text = read_bounded(path, limit_for(path)).decode("utf-8", "replace")
            except OSError:
                text = ""
            self._lines[path] = split_lines(text)
        return self._lines[path]


def publishable(outcome: Outcome, open_paths: list[str], encoding: str) -> dict[str, list[types.Diagnostic]]:
    """Each open path's diagnostics (an empty list clears a file's)."""
    texts = Texts(outcome.texts)
    shown: dict[str, list[types.Diagnostic]] = {path: [] for path in open_paths}
    for finding in outcome.result.findings:
        primary = absolute(finding.loc.file)
        if primary in shown:
            shown[primary].append(_diagnostic(finding, outcome, texts, encoding))
        elsewhere = {absolute(r.loc.file) for r in finding.related} - {primary}
        for path in sorted(elsewhere & shown.keys()):
            shown[path].extend(_echoes(finding, path, outcome, texts, encoding))
    for error in outcome.result.errors:
        path = absolute(error.file)
        if path in shown:
            shown[path].append(_error(error, texts, encoding))
    for notice in outcome.result.notices:
        path = absolute(notice.loc.file)
        if path in shown and not notice.kind:
            shown[path].append(_notice(notice, texts, encoding))
    return shown


def _location(loc: Loc, texts: Texts, encoding: str) -> types.Location:
    path = absolute(loc.file)
    return types.Location(uri=uri_of(path), range=span(texts.lines(path), loc, encoding))


def _description(finding: Finding, outcome: Outcome) -> types.CodeDescription:
    return types.CodeDescription(href=rule_url(finding.name, outcome.docs_url))


def _diagnostic(finding: Finding, outcome: Outcome, texts: Texts, encoding: str) -> types.Diagnostic:
    path = absolute(finding.loc.file)
    related = [types.DiagnosticRelatedInformation(location=_location(r.loc, texts, encoding),
                                                  message=f"{r.role or 'related'}: {r.resource}")
               for r in finding.related]
    data: dict = {"rule": finding.rule, "name": finding.name, "resource": finding.resource,
                  "line": finding.loc.line}
    if finding.fix is not None:
        data["fix"] = _fix(finding, outcome, texts, encoding)
    key = entry(finding, outcome.root)["fingerprint"] if outcome.baselinable else None
    if key in outcome.baselinable:
        data["fingerprint"] = key  # "add to baseline" names the finding by it
        # the configuration names the file: a pull request's text, shown in the editor's menu
        data["baseline"] = clean(os.path.basename(outcome.baselinable[key][0]))
    return types.Diagnostic(
        range=span(texts.lines(path), finding.loc, encoding),
        message=f"{finding.message} [{finding.name}]",
        severity=_SEVERITY[finding.severity],
        code=finding.rule,
        code_description=_description(finding, outcome),
        source=SOURCE,
        related_information=related or None,
        data=data,
    )


def _echoes(finding: Finding, path: str, outcome: Outcome, texts: Texts, encoding: str) -> list[types.Diagnostic]:
    """The finding in a file that holds another of its resources."""
    back = [types.DiagnosticRelatedInformation(location=_location(finding.loc, texts, encoding),
                                               message=f"{finding.resource}: {finding.message}")]
    echoes = []
    for related in finding.related:
        if absolute(related.loc.file) != path:
            continue
        echoes.append(types.Diagnostic(
            range=span(texts.lines(path), related.loc, encoding),
            message=f"{related.resource} ({related.role or 'related'}) is part of a finding on "
                    f"{finding.resource}: {finding.message} [{finding.name}]",
            severity=types.DiagnosticSeverity.Information,
            code=finding.rule,
            code_description=_description(finding, outcome),
            source=SOURCE,
            related_information=back,
        ))
    return echoes


def _fix(finding: Finding, outcome: Outcome, texts: Texts, encoding: str) -> dict:
    fix = finding.fix
    by_file: dict[str, list[dict]] = {}
    for edit in fix.edits:
        path = absolute(edit.file)
        lines = texts.lines(path)
        start = span(lines, Loc(path, edit.line, edit.column), encoding).start
        end = span(lines, Loc(path, edit.end_line, edit.end_column), encoding).start
        by_file.setdefault(path, []).append({
            "range": {"start": {"line": start.line, "character": start.character},
                      "end": {"line": end.line, "character": end.character}},
            "newText": edit.text,
        })
    return {"title": fix.title, "applicability": fix.applicability.value,
            "changes": [{"uri": uri_of(path), "version": outcome.versions.get(path), "edits": edits}
                        for path, edits in sorted(by_file.items())]}


def _error(error: LoadError, texts: Texts, encoding: str) -> types.Diagnostic:
    path = absolute(error.file)
    loc = Loc(path, error.line or 1, error.column or 1)
    return types.Diagnostic(range=span(texts.lines(path), loc, encoding), message=error.message,
                            severity=types.DiagnosticSeverity.Error, source=SOURCE)


def _notice(notice: Notice, texts: Texts, encoding: str) -> types.Diagnostic:
    path = absolute(notice.loc.file)
    return types.Diagnostic(range=span(texts.lines(path), notice.loc, encoding), message=notice.message,
                            severity=types.DiagnosticSeverity.Warning, source=SOURCE)
