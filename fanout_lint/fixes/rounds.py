"""``--fix`` and ``--diff``: lint, apply the fixes that do not overlap, lint again.

A round lints the paths, selects the applicable fixes of the findings that gate (not
suppressed, not in the baseline), and writes each edited file atomically. Fixes that
overlap one already taken are planned again on the new text by the next round, up to
``MAX_ROUNDS``; the last lint is the report, so a run's report and exit code are those
of the fixed files. ``--diff`` computes one round and writes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from fanout_lint.files.confine import Roots
from fanout_lint.fixes.apply import FileChange, prepare
from fanout_lint.fixes.select import applicable, select
from fanout_lint.model.record import Record
from fanout_lint.results.records import Finding, LoadError

if TYPE_CHECKING:
    from typing import Callable

    from fanout_lint.results.records import Result

# Rounds only repeat for fixes that overlap another in one place (two rules inserting
# into one body that has no Properties yet): real templates need two at most.
MAX_ROUNDS = 4


@dataclass(eq=False, repr=False)
class Outcome(Record):
    """What rounds of fixes did (or, with ``--diff``, would do), and the last lint's result."""

    result: "Result"  # the last lint: the report
    fixed: int = 0  # findings fixed (or, with --diff, that would be)
    files: set[str] = field(default_factory=set)  # files written (or that would be)
    changes: list[FileChange] = field(default_factory=list)  # --diff: what would be written
    errors: list[LoadError] = field(default_factory=list)  # files that could not be fixed
    waiting: int = 0  # --diff: fixes that overlap another and need a round of --fix after it
    unsafe: int = 0  # findings only --unsafe-fixes would fix


def run(lint: Callable[[], "Result"], gating: Callable[["Result"], list[Finding]], unsafe: bool,
        write: bool, roots: "Roots | None" = None) -> Outcome:
    """``roots``: the repository the fixed files must keep to (``confine.py``; None: the
    current one)."""
    roots = roots if roots is not None else Roots()
    outcome = Outcome(lint())
    refused: set[str] = set()  # files that could not take their fixes: left alone from then on
    made: set[tuple] = set()  # fixes written: one planned again did not take, and is not repeated
    for _ in range(MAX_ROUNDS if write else 1):
        findings = [f for f in gating(outcome.result)
                    if f.fix is None or (_key(f) not in made and not any(e.file in refused for e in f.fix.edits))]
        selection = select(findings, unsafe)
        outcome.waiting = len(selection.waiting)
        if not selection.chosen:
            break
        edits = selection.edits_by_file()
        changes, errors = prepare(edits, outcome.result.fix_sources)
        outcome.errors.extend(errors)
        changed = _write(changes, outcome, roots) if write else {change.path for change in changes}
        refused.update(path for path in edits if path not in changed)  # raw paths, as the edits name them
        done = [f for f in selection.chosen + selection.duplicates if all(e.file in changed for e in f.fix.edits)]
        outcome.fixed += len(done)
        made.update(_key(f) for f in done)
        outcome.files |= changed
        if not write:
            outcome.changes = changes
            break
        if not changed:
            break
        outcome.result = lint()
    if not unsafe:
        # a display-only fix is no more applied with --unsafe-fixes than without
        outcome.unsafe = sum(1 for f in gating(outcome.result)
                             if f.fix is not None and not applicable(f, False) and applicable(f, True))
    return outcome


def _key(finding: Finding) -> tuple:
    return (finding.rule, finding.unit, finding.resource, finding.fix.description)


def _write(changes: list[FileChange], outcome: Outcome, roots: Roots) -> set[str]:
    written = set()
    for change in changes:
        try:
            roots.write(change.path, change.source.encoded(change.text))
        except OSError as exc:
            outcome.errors.append(LoadError(change.path, None, f"cannot write the fixes: {exc.strerror or exc}"))
            continue
        written.add(change.path)
    return written
