"""Fixes: a rule's ``Fix`` (set a setting to a value) as text edits in the source, and
``--fix``/``--diff`` applying them.

- ``plan.py``: whether a fix can be made and the edit that makes it;
- ``insert.py``, ``render.py``, ``positions.py``: writing a new entry in the style of its
  siblings, values per syntax, lines and columns as the parsers count them;
- ``select.py``, ``apply.py``, ``rounds.py``: which fixes a run applies, the edits made
  to each file, and the rounds of linting and fixing.
"""

from __future__ import annotations

from fanout_lint.fixes.plan import Planner, plan_fix

__all__ = ["Planner", "plan_fix"]
