"""``per-file-ignores``: rules not reported for the files a glob matches, as ruff has them.

    [tool.fanout-lint.per-file-ignores]
    "legacy/**" = ["FL201"]
    "*.tfvars.json" = ["FL1"]

A pattern is matched against the path of the file a finding points into, relative to the
directory of the configuration file that says it (the project), with forward slashes; a
pattern without a ``/`` is also matched against the file name. ``*`` matches within a
name and across ``/`` alike (as ``exclude`` does), so ``legacy/**`` and ``legacy/*`` both
match every file below ``legacy``, and a leading ``**/`` also matches at the top.
"""

from __future__ import annotations

import fnmatch
import os
import posixpath
from dataclasses import dataclass

from fanout_lint.model.record import ValueRecord


@dataclass(frozen=True, eq=False, repr=False)
class FileIgnore(ValueRecord):
    """One entry: the glob, and the rule IDs it ignores."""

    pattern: str
    rules: tuple[str, ...]


def ignored(file: str, rule: str, entries: tuple[FileIgnore, ...], base: str) -> bool:
    """Whether a finding of ``rule`` in ``file`` is ignored by ``entries`` (patterns
    relative to ``base``)."""
    if not entries:
        return False
    path = _relative(file, base)
    return any(rule in entry.rules and matches(entry.pattern, path) for entry in entries)


def matches(pattern: str, path: str) -> bool:
    """``path`` (relative, forward slashes) matches the glob ``pattern``."""
    pattern = pattern.replace("\\", "/").removeprefix("./")
    # fnmatch's translation is free of catastrophic backtracking (Python 3.9+): the
    # patterns come from a configuration file a pull request may change
    if fnmatch.fnmatchcase(path, pattern):
        return True
    if pattern.startswith("**/") and fnmatch.fnmatchcase(path, pattern[3:]):
        return True
    return "/" not in pattern and fnmatch.fnmatchcase(posixpath.basename(path), pattern)


def _relative(file: str, base: str) -> str:
    absolute = os.path.abspath(file)
    try:
        relative = os.path.relpath(absolute, os.path.abspath(base or "."))
    except ValueError:  # another drive on Windows
        return absolute.replace(os.sep, "/")
    return relative.replace(os.sep, "/")
