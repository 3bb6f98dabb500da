"""Which fixes one round applies: the applicable ones that do not overlap.

Fixes are taken in finding order. One whose edits are the same as a fix already taken
(two rules raising one visibility timeout to the same value) is a duplicate: its finding
is fixed by the other. One that overlaps a fix already taken (the same span, or an
insertion at the same place) waits: the next round lints the edited files again, and
plans it on the new text if the finding is still there.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field

from fanout_lint.model.record import Record
from fanout_lint.results.records import Edit, Finding


def applicable(finding: Finding, unsafe: bool) -> bool:
    """``--fix`` applies the finding's fix (unsafe ones only with ``--unsafe-fixes``)."""
    return finding.fix is not None and finding.fix.applies(unsafe)


@dataclass(eq=False, repr=False)
class Selection(Record):
    """The findings of one round of fixes: fixed now, fixed by another's fix, or left for the next round."""

    chosen: list[Finding] = field(default_factory=list)  # their fixes are applied
    duplicates: list[Finding] = field(default_factory=list)  # fixed by a chosen fix
    waiting: list[Finding] = field(default_factory=list)  # overlap a chosen fix: next round

    @property
    def fixed(self) -> int:
        return len(self.chosen) + len(self.duplicates)

    def edits_by_file(self) -> dict[str, list[Edit]]:
        out: dict[str, list[Edit]] = {}
        for finding in self.chosen:
            for edit in finding.fix.edits:
                out.setdefault(edit.file, []).append(edit)
        return out


def select(findings: list[Finding], unsafe: bool) -> Selection:
    selection = Selection()
    taken: dict[str, _Taken] = {}
    seen: set[tuple[Edit, ...]] = set()
    for finding in findings:
        if not applicable(finding, unsafe):
            continue
        edits = finding.fix.edits
        if edits in seen:
            selection.duplicates.append(finding)
        elif any(taken[edit.file].overlaps(edit) for edit in edits if edit.file in taken):
            selection.waiting.append(finding)
        else:
            seen.add(edits)
            for edit in edits:
                taken.setdefault(edit.file, _Taken()).add(edit)
            selection.chosen.append(finding)
    return selection


class _Taken:
    """The edits taken in one file, sorted by start: they do not overlap, so an edit can
    only overlap its neighbours in that order (a file may hold thousands of fixes)."""

    def __init__(self) -> None:
        self.starts: list[tuple[int, int]] = []
        self.edits: list[Edit] = []

    def overlaps(self, edit: Edit) -> bool:
        at = bisect.bisect_left(self.starts, (edit.line, edit.column))
        return any(overlaps(edit, self.edits[i]) for i in range(max(at - 1, 0), min(at + 2, len(self.edits))))

    def add(self, edit: Edit) -> None:
        at = bisect.bisect_left(self.starts, (edit.line, edit.column))
        self.starts.insert(at, (edit.line, edit.column))
        self.edits.insert(at, edit)


def overlaps(a: Edit, b: Edit) -> bool:
    """The spans intersect, or touch where one of them inserts (two insertions at one
    place would each create what the other creates, ``Properties`` say)."""
    a_start, a_end = (a.line, a.column), (a.end_line, a.end_column)
    b_start, b_end = (b.line, b.column), (b.end_line, b.end_column)
    if a_start == a_end or b_start == b_end:
        return a_start <= b_end and b_start <= a_end
    return a_start < b_end and b_start < a_end
