"""Code actions: a diagnostic's fix as a quick fix, the file's safe fixes as one "fix
all" (``source.fixAll.fanout-lint``), "suppress here" in the format's own syntax, and "add
to baseline" where the configuration names a baseline (a command the server carries out:
the baseline is its file, not an open text).

A display-only fix is a suggestion: it is listed, disabled, with no edit to apply."""

from __future__ import annotations

import re

from lsprotocol import types

FIX_ALL = "source.fixAll.fanout-lint"
ADD_TO_BASELINE = "fanout-lint.addToBaseline"
SAFE, DISPLAY_ONLY = "safe", "display-only"  # a fix's applicability, as the diagnostic's data says it
REASON = "TODO: why this is intended"
_TF_BLOCK = re.compile(r'[ \t]*(resource|module|data)[ \t]+"')


def _edit(change: dict) -> types.TextDocumentEdit:
    return types.TextDocumentEdit(
        text_document=types.OptionalVersionedTextDocumentIdentifier(uri=change["uri"], version=change["version"]),
        edits=[types.TextEdit(range=_range(e["range"]), new_text=e["newText"]) for e in change["edits"]],
    )


def _range(data: dict) -> types.Range:
    return types.Range(start=types.Position(**data["start"]), end=types.Position(**data["end"]))


def quick_fixes(diagnostic: types.Diagnostic) -> list[types.CodeAction]:
    """The fix the diagnostic carries; a safe one is the preferred action, an unsafe one says
    so, a display-only one is shown disabled."""
    data = diagnostic.data if isinstance(diagnostic.data, dict) else {}
    fix = data.get("fix")
    if not isinstance(fix, dict):
        return []
    title = f"{fix['title']} ({data.get('name', '')})"
    if fix["applicability"] == DISPLAY_ONLY:
        disabled = types.CodeActionDisabled(reason="a suggestion: fanout-lint does not apply it")
        return [types.CodeAction(title=title, kind=types.CodeActionKind.QuickFix, diagnostics=[diagnostic],
                                 disabled=disabled)]
    if fix["applicability"] != SAFE:
        title += " (unsafe: check the change)"
    return [types.CodeAction(
        title=title, kind=types.CodeActionKind.QuickFix, diagnostics=[diagnostic],
        is_preferred=fix["applicability"] == SAFE,
        edit=types.WorkspaceEdit(document_changes=[_edit(c) for c in fix["changes"]]),
    )]


def add_to_baseline(diagnostic: types.Diagnostic) -> list[types.CodeAction]:
    """Record the diagnostic's finding in its configured baseline; the server finds the
    entry and the file by the fingerprint, so the editor names neither."""
    data = diagnostic.data if isinstance(diagnostic.data, dict) else {}
    key, where = data.get("fingerprint"), data.get("baseline")
    if not isinstance(key, str) or not isinstance(where, str):
        return []
    title = f"Add this {data.get('name', 'finding')} finding to the baseline ({where})"
    return [types.CodeAction(title=title, kind=types.CodeActionKind.QuickFix, diagnostics=[diagnostic],
                             command=types.Command(title=title, command=ADD_TO_BASELINE, arguments=[key]))]


def fix_all(uri: str, diagnostics: list[types.Diagnostic]) -> list[types.CodeAction]:
    """Every safe fix of the file's diagnostics whose edits do not overlap one taken before."""
    taken: list[tuple[tuple[int, int], tuple[int, int]]] = []
    changes: dict[str, dict] = {}
    for diagnostic in diagnostics:
        data = diagnostic.data if isinstance(diagnostic.data, dict) else {}
        fix = data.get("fix")
        if not isinstance(fix, dict) or fix["applicability"] != SAFE:
            continue
        spans = [((e["range"]["start"]["line"], e["range"]["start"]["character"]),
                  (e["range"]["end"]["line"], e["range"]["end"]["character"]))
                 for c in fix["changes"] for e in c["edits"]]
        if any(a < d and c < b or a == c for a, b in spans for c, d in taken):
            continue
        taken.extend(spans)
        for change in fix["changes"]:
            kept = changes.setdefault(change["uri"], {"uri": change["uri"], "version": change["version"], "edits": []})
            kept["edits"].extend(change["edits"])
    if not changes:
        return []
    return [types.CodeAction(title="fanout-lint: fix all safe fixes", kind=FIX_ALL,
                             edit=types.WorkspaceEdit(document_changes=[_edit(c) for c in changes.values()]))]


def suppress_here(uri: str, path: str, text: str, diagnostic: types.Diagnostic) -> list[types.CodeAction]:
    """The inline suppression of the diagnostic's rule on its resource: a Terraform comment
    above the resource's block, or ``Metadata: fanout-lint`` on a CloudFormation resource in
    YAML that has no ``Metadata`` yet; nothing where neither can be written."""
    data = diagnostic.data if isinstance(diagnostic.data, dict) else {}
    name, line = data.get("name"), data.get("line")
    if not isinstance(name, str) or not isinstance(line, int):
        return []
    lines = text.splitlines()
    if path.endswith((".tf", ".tofu")):
        insert = _terraform(lines, line, name)
    elif path.endswith((".yaml", ".yml", ".template")):
        insert = _yaml(lines, line, name, str(data.get("resource", "")))
    else:
        insert = None
    if insert is None:
        return []
    row, new_text = insert
    where = types.Position(line=row, character=0)
    edit = types.TextEdit(range=types.Range(start=where, end=where), new_text=new_text)
    return [types.CodeAction(title=f"Suppress {name} here (fanout-lint, with a reason to fill in)",
                             kind=types.CodeActionKind.QuickFix, diagnostics=[diagnostic],
                             edit=types.WorkspaceEdit(changes={uri: [edit]}))]


def _terraform(lines: list[str], line: int, name: str) -> tuple[int, str] | None:
    for row in range(min(line, len(lines)) - 1, -1, -1):
        if _TF_BLOCK.match(lines[row]):
            indent = lines[row][:len(lines[row]) - len(lines[row].lstrip())]
            return row, f"{indent}# fanout-lint: ignore={name} -- {REASON}\n"
    return None


def _indent(text: str) -> int:
    return len(text) - len(text.lstrip(" "))


def _yaml(lines: list[str], line: int, name: str, resource: str) -> tuple[int, str] | None:
    """After the header ``Resource:`` of the resource holding ``line``, at its properties' indent."""
    header = None
    for row in range(min(line, len(lines)) - 1, -1, -1):
        stripped = lines[row].strip()
        if stripped.rstrip(":").strip("'\"") == resource and stripped.endswith(":"):
            header = row
            break
    if header is None:
        return None
    base = _indent(lines[header])
    child = None
    for row in range(header + 1, len(lines)):
        if not lines[row].strip() or lines[row].lstrip().startswith("#"):
            continue
        if _indent(lines[row]) <= base:
            break
        child = _indent(lines[row]) if child is None else child
        if _indent(lines[row]) == child and lines[row].strip().startswith("Metadata:"):
            return None  # a second Metadata key would be a duplicate: left to the author
    if child is None:
        return None
    pad = " " * child
    step = " " * max(child - base, 2)
    return header + 1, (f"{pad}Metadata:\n{pad}{step}fanout-lint:\n{pad}{step}{step}ignore:\n"
                        f"{pad}{step}{step}  - {{rule: {name}, reason: \"{REASON}\"}}\n")
