"""The edits of one round made to each file's text, checked before anything is written.

Each file is read again and must still be the text its fixes were planned on
(``sources.read_source``). Its edits, which do not overlap (``select.py``), are made from
the end of the text backwards, and the edited text must still parse: a fix never leaves
a template its own loader rejects. Only the edited spans change; every other byte
(comments, order, quoting, indentation, line ends) stays as it was.
"""

from __future__ import annotations

from dataclasses import dataclass

from fanout_lint.fixes.positions import Lines, is_hcl
from fanout_lint.fixes.sources import Source, SourceError, read_source
from fanout_lint.loaders.parsing.yaml_source import ParseError, parse_json, parse_yaml
from fanout_lint.model.record import ValueRecord
from fanout_lint.results.records import Edit, LoadError


@dataclass(eq=False, repr=False)
class FileChange(ValueRecord):
    """A file and the text the fixes make of it."""

    source: Source
    text: str  # the edited text

    @property
    def path(self) -> str:
        return self.source.path


def edited(text: str, file: str, edits: list[Edit]) -> str:
    """``text`` with the edits made (they do not overlap)."""
    lines = Lines.of(text, file)
    changes = []
    for edit in edits:
        start = lines.offset(edit.line, edit.column)
        end = lines.offset(edit.end_line, edit.end_column)
        if start is None or end is None or end < start:
            raise SourceError("changed since it was read (an edit falls outside it); not fixed")
        changes.append((start, end, edit.text))
    out = []
    position = len(text)
    for start, end, new in sorted(changes, reverse=True):
        out.append(text[end:position])
        out.append(new)
        position = start
    out.append(text[:position])
    return "".join(reversed(out))


def prepare(edits_by_file: dict[str, list[Edit]], digests: dict[str, str]) -> tuple[list[FileChange], list[LoadError]]:
    """Each file's change, or a one-line error for a file that cannot take it."""
    changes, errors = [], []
    for path in sorted(edits_by_file):
        try:
            source = read_source(path, digests.get(path))
            text = edited(source.text, path, edits_by_file[path])
            problem = parse_problem(path, text)
            if problem is not None:
                raise SourceError(f"the fixes would make it unparseable ({problem}); not fixed")
        except SourceError as exc:
            errors.append(LoadError(path, None, str(exc)))
            continue
        if text != source.text:
            changes.append(FileChange(source, text))
    return changes, errors


def parse_problem(path: str, text: str) -> str | None:
    """Why the loader would reject the text, or None when it parses."""
    if is_hcl(path):
        from fanout_lint.loaders.terraform.hcl.syntax import HclError, parse_hcl

        try:
            parse_hcl(text, path)
        except HclError as exc:
            return exc.message
        return None

    json_syntax = path.lower().endswith(".json") or text.lstrip().startswith("{")
    try:
        (parse_json if json_syntax else parse_yaml)(text, path)
    except ParseError as exc:
        return exc.message
    return None
