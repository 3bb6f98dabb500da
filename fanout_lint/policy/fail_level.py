"""The fail level: which findings fail the run (and a JUnit test), and the exit code.

The one place the exit rule lives: the commands and the JUnit report read it from here.
"""

from __future__ import annotations

from fanout_lint.results.records import Severity

EXIT_OK, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


def exit_code(result, fail_on: Severity | None) -> int:
    """``fail_on`` None (``--fail-on none``, ``--exit-zero``): findings never fail the run;
    a file that could not be linted still does."""
    if result.errors:
        return EXIT_ERROR
    if any(fails(f, fail_on) for f in result.findings):
        return EXIT_FINDINGS
    return EXIT_OK


def fails(finding, fail_on: Severity | None) -> bool:
    """The finding is at or above the fail level of the settings that produced it (its
    own configuration file's, ``Finding.fail_on``; else the run's ``fail_on``): it fails
    the run (and a JUnit test)."""
    own = getattr(finding, "fail_on", "")
    if own:
        level = None if own == "none" else Severity(own)
    else:
        level = fail_on
    return level is not None and finding.severity.rank >= level.rank
