"""The server's code actions on their own: "suppress here" in each format's syntax, and
"fix all" taking each safe fix once."""

from __future__ import annotations

import pytest

pytest.importorskip("pygls")

from lsprotocol import types  # noqa: E402

from fanout_lint.server.actions import FIX_ALL, fix_all, quick_fixes, suppress_here  # noqa: E402
from lsp_client import apply  # noqa: E402

HERE = types.Range(start=types.Position(line=0, character=0), end=types.Position(line=0, character=1))


def _diagnostic(line: int, resource: str, fix: dict | None = None) -> types.Diagnostic:
    data = {"rule": "FL202", "name": "visibility-timeout-below-function-timeout", "resource": resource, "line": line}
    if fix is not None:
        data["fix"] = fix
    return types.Diagnostic(range=HERE, message="m", code="FL202", source="fanout-lint", data=data)


def _text(action: types.CodeAction, uri: str, text: str) -> str:
    edits = action.edit.changes[uri]
    return apply(text, [{"range": {"start": {"line": e.range.start.line, "character": e.range.start.character},
                                   "end": {"line": e.range.end.line, "character": e.range.end.character}},
                         "newText": e.new_text} for e in edits])


def test_terraform_gets_the_comment_above_the_resources_block_at_its_indent():
    text = 'locals {}\n\n  resource "aws_sqs_queue" "orders" {\n    visibility_timeout_seconds = 30\n  }\n'
    [action] = suppress_here("file:///m.tf", "/m.tf", text, _diagnostic(4, "aws_sqs_queue.orders"))
    assert _text(action, "file:///m.tf", text) == (
        'locals {}\n\n  # fanout-lint: ignore=visibility-timeout-below-function-timeout -- TODO: why this is intended\n'
        '  resource "aws_sqs_queue" "orders" {\n    visibility_timeout_seconds = 30\n  }\n')


def test_a_yaml_resource_with_metadata_already_gets_no_second_key():
    text = "Resources:\n  Q:\n    Type: AWS::SQS::Queue\n    Metadata: {a: b}\n    Properties:\n      X: 1\n"
    assert suppress_here("file:///t.yaml", "/t.yaml", text, _diagnostic(6, "Q")) == []


def test_json_templates_get_no_suppression_action():
    assert suppress_here("file:///t.json", "/t.json", '{"Resources": {}}', _diagnostic(1, "Q")) == []


def _fix(line: int, applicability: str = "safe") -> dict:
    where = {"line": line, "character": 0}
    return {"title": f"Set X to {line}", "applicability": applicability, "changes": [{"uri": "file:///t.yaml", "version": 4, "edits": [
        {"range": {"start": where, "end": {"line": line, "character": 1}}, "newText": "Z"}]}]}


def test_fix_all_takes_safe_fixes_once_and_leaves_unsafe_ones_to_their_quick_fix():
    diagnostics = [_diagnostic(1, "A", _fix(0)), _diagnostic(1, "B", _fix(0)), _diagnostic(2, "C", _fix(1)),
                   _diagnostic(3, "D", _fix(2, "unsafe"))]
    [action] = fix_all("file:///t.yaml", diagnostics)
    assert action.kind == FIX_ALL
    [change] = action.edit.document_changes
    assert change.text_document.version == 4
    assert [e.range.start.line for e in change.edits] == [0, 1]
    [unsafe] = quick_fixes(diagnostics[3])
    assert unsafe.is_preferred is False and "unsafe" in unsafe.title


def test_columns_count_in_the_agreed_encoding():
    from fanout_lint.model.nodes import Loc
    from fanout_lint.server.positions import span

    lines = ["  Q\U0001F600: x  # note"]
    # character column 7 is the "x" after an astral character: 7 UTF-16 units, 6 code points
    assert span(lines, Loc("t", 1, 7), "utf-16").start.character == 7
    assert span(lines, Loc("t", 1, 7), "utf-32").start.character == 6
    assert span(lines, Loc("t", 1, 7), "utf-8").start.character == 9
    assert span(lines, Loc("t", 1, 7), "utf-32").end.character == 7  # to the end of the token "x"
    whole = span(lines, Loc("t", 1, 3, 1, 5), "utf-32")
    assert (whole.start.character, whole.end.character) == (2, 4)
    beyond = span(lines, Loc("t", 9, 1), "utf-16")  # a line the text no longer has
    assert beyond.start.line == 8 and beyond.start.character == 0
