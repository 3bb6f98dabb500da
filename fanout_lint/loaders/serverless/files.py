"""``${file(...)}`` of a service's ``functions`` and ``resources``, read where the file is
inside the repository.

The Framework reads a file a variable names, relative to the service's directory, and
puts its content (or, with ``:a.b``, the value at that path of it) where the variable
stands. Services split this way keep their functions and resources in other files, so
without them the linter sees no events. Read here, before the variables are resolved
(``${self:}`` in the file is then resolved against the service, as the Framework does),
are the variables that are a whole value of:

- ``functions``, an item of a ``functions`` list, and one function's entry;
- ``resources``, an item of a ``resources`` list, and ``resources.Resources``,
  ``resources.Outputs``, ``resources.extensions``.

Templates are untrusted: a file is read only when its real path is inside the
repository (the git top level, else the service's directory) and no component of the
path from there is a symbolic link; else a one-line error names the variable. Each file
is read bounded like any template (``read_bounded``), at most ``MAX_FILES`` of them per
service: the entries of an included ``functions`` and the sections of an included
``resources`` may name files too (relative to the service's directory, as the Framework
reads them), and nothing deeper is followed (its value is unknown). A variable with a
fallback, or with another variable inside it, is left to the resolver (unknown), and so is a JSON file in a YAML service or a YAML
file in a JSON one (fixes are written in the service's syntax).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from fanout_lint.files import confine
from fanout_lint.files.regular_files import read_bounded
from fanout_lint.files.repository import top_level
from fanout_lint.loaders.parsing.located import loc_of
from fanout_lint.loaders.parsing.yaml_source import MAX_BYTES, ParseError, decode, parse_json, parse_yaml
from fanout_lint.model.record import Record
from fanout_lint.results.records import LoadError

if TYPE_CHECKING:
    from typing import Any

MAX_FILES = 64  # per service: past any real layout
# ${file(path)} or ${file(path):a.b}, nothing else: linear (no nested quantifiers)
# One class up to the ")" that it excludes: linear (blanks are stripped afterwards, not matched)
_FILE = re.compile(r"\$\{file\(([^()${},]*)\)(?::([A-Za-z0-9_.\-]+))?\}\Z")


@dataclass(eq=False, repr=False)
class Included(Record):
    """The files read into a service: their texts (for locations and fixes) and errors."""

    texts: dict[str, str] = field(default_factory=dict)  # path -> text
    errors: list[LoadError] = field(default_factory=list)


def include_files(data: dict, file: str, syntax: str) -> Included:
    """Replace, in place, the ``${file(...)}`` values of ``functions`` and ``resources``."""
    reader = _Reader(file, syntax)
    _expand_key(reader, data, "functions")
    functions = data.get("functions")
    for group in functions if isinstance(functions, list) else [functions]:
        if isinstance(group, dict):
            for key in list(group):
                _expand_key(reader, group, key)
    _expand_key(reader, data, "resources")
    resources = data.get("resources")
    for part in resources if isinstance(resources, list) else [resources]:
        if isinstance(part, dict):
            for key in ("Resources", "Outputs", "extensions"):
                _expand_key(reader, part, key)
    return reader.included


def _expand_key(reader: "_Reader", container: dict, key: str) -> None:
    value = container.get(key)
    if isinstance(value, list):
        for index, item in enumerate(value):
            if isinstance(item, str):
                found = reader.value(item, loc_of(value, index, None))
                if found is not _UNREAD:
                    value[index] = found
        return
    if isinstance(value, str):
        found = reader.value(value, loc_of(container, key, None))
        if found is not _UNREAD:
            container[key] = found


_UNREAD = object()


class _Reader:
    def __init__(self, file: str, syntax: str):
        self.file = file
        self.syntax = syntax
        self.directory = os.path.dirname(file) or "."
        self.root: str | None = None
        self.included = Included()
        self.read = 0

    def value(self, text: str, loc) -> Any:
        """The value a whole-string ``${file(...)}`` stands for, or _UNREAD."""
        match = _FILE.match(text.strip()) if "${file(" in text else None
        if match is None:
            return _UNREAD
        line = loc.line if loc is not None else None
        relative, address = match.group(1).strip().strip("'\""), match.group(2)
        if not relative:
            return _UNREAD
        path = os.path.normpath(os.path.join(self.directory, relative))
        if path.lower().endswith(".json") != (self.syntax == "json"):
            return _UNREAD  # fixes write in the service's syntax: a file of the other one stays unknown
        problem = self.outside(path)
        if problem is not None:
            self.included.errors.append(LoadError(self.file, line, f"${{file({relative})}}: {problem}; not read"))
            return _UNREAD
        if self.read >= MAX_FILES:
            self.included.errors.append(LoadError(
                self.file, line, f"${{file({relative})}}: more than {MAX_FILES} files included; not read"))
            return _UNREAD
        self.read += 1
        parsed = self.parse(path, relative, line)
        if parsed is _UNREAD or not address:
            return parsed
        for step in address.split("."):
            if not isinstance(parsed, dict) or step not in parsed:
                return _UNREAD  # the Framework's null: left unknown
            parsed = parsed[step]
        return parsed

    def parse(self, path: str, relative: str, line) -> Any:
        try:
            text = decode(read_bounded(path, MAX_BYTES, follow=False))
            if path.lower().endswith(".json"):
                parsed = parse_json(text, path)
            else:
                parsed = parse_yaml(text, path)
        except OSError as exc:
            self.included.errors.append(LoadError(
                self.file, line, f"${{file({relative})}}: cannot read: {exc.strerror or exc}"))
            return _UNREAD
        except ParseError as exc:
            self.included.errors.append(LoadError(path, exc.line, exc.message, exc.column))
            return _UNREAD
        self.included.texts[path] = text
        return parsed

    def outside(self, path: str) -> str | None:
        """Why the path may not be read (the one rule of confine.py: inside the repository,
        through no symbolic link), or None."""
        if self.root is None:
            self.root = top_level(self.directory) or self.directory
        return confine.problem(path, self.root)
