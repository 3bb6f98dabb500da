"""Writing the report to standard output, where a full disk or a closed pipe is said, not raised."""

from __future__ import annotations

import errno
import os
import sys


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
