"""Only regular files are read: a FIFO or a device named like a template must not hang a run."""

from __future__ import annotations

import errno
import os
import stat


def refuse_special(path: str) -> None:
    """Raise OSError unless ``path`` is a regular file (following links).

    Opening a FIFO blocks until something writes to it, and a device can be read forever;
    a stat blocks on neither. Call it just before opening, inside the same ``except OSError``.
    """
    if not stat.S_ISREG(os.stat(path).st_mode):
        raise OSError(errno.EINVAL, "not a regular file", path)
