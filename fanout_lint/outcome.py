"""How a run ends: its exit code, and its report written to standard output.

Shared by the commands (``cli.py``, ``check_command.py``, ``graph_command.py``), so that
none of them imports another for it.
"""

from __future__ import annotations

import errno
import os
import sys

from fanout_lint.findings import Severity

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


class StdoutError(OSError):
    """Standard output could not be written: a full disk, a closed descriptor."""


def write_stdout(text: str) -> None:
    """Write and flush, so that a full disk or a closed stdout fails here, where the caller
    can say so, and not in the interpreter's flush at exit."""
    if sys.stdout is None:
        raise StdoutError(errno.EBADF, "it is closed")
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:
        raise
    except (OSError, ValueError) as exc:
        raise StdoutError(getattr(exc, "errno", None) or errno.EIO, getattr(exc, "strerror", None) or str(exc)) from None


def discard_stdout() -> None:
    """Point standard output at the null device after a failed write: what is left in its
    buffer would fail again at exit, as an "Exception ignored" message."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(null, sys.stdout.fileno())
        finally:
            os.close(null)
    except (OSError, ValueError, AttributeError):  # no descriptor: a closed or captured stream
        pass
