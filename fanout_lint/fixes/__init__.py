"""Fixes: a rule's ``Fix`` (set a setting to a value) as text edits in the source, and
``--fix``/``--diff`` making them.

- ``edits.py``: whether a fix can be made, and the edit that makes it; ``insert.py``,
  ``render.py``, ``positions.py``: a new entry in its siblings' style, values per syntax,
  lines and columns as the parsers count them;
- ``rounds.py``: lint, apply, lint again; ``select.py``: which fixes a round applies;
  ``apply.py``, ``sources.py``: the edited text of each file, checked unchanged since it
  was read and still parsing; ``diff.py``: ``--diff``.
"""

from __future__ import annotations

from fanout_lint.fixes.edits import Planner

__all__ = ["Planner"]
