"""Progress on standard error for long runs: ``fanout-lint: 812/1,600 units``.

Shown only on a terminal, only once a run has taken a few seconds (most hook runs end
well before), at most a few times a second, and erased before the report is written.
It prints counts only, never a name from the files.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Callable, TextIO

AFTER_SECONDS = 3.0
EVERY_SECONDS = 0.2


class Progress:
    def __init__(self, stream: TextIO, clock: Callable[[], float] = time.monotonic,
                 after: float | None = None):
        self.stream = stream
        self.clock = clock
        self.started = clock()
        self.after = AFTER_SECONDS if after is None else after
        self.shown_at: float | None = None
        self.width = 0

    def __call__(self, done: int, total: int) -> None:
        now = self.clock()
        if now - self.started < self.after or done >= total:
            return
        if self.shown_at is not None and now - self.shown_at < EVERY_SECONDS:
            return
        self.shown_at = now
        line = f"fanout-lint: {done:,}/{total:,} units"
        self._write("\r" + line.ljust(self.width))
        self.width = len(line)

    def close(self) -> None:
        """Erase the line, so the report starts on a clean one."""
        if self.width:
            self._write("\r" + " " * self.width + "\r")
            self.width = 0

    def _write(self, text: str) -> None:
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):
            pass  # progress is a courtesy: a closed stderr must not end the run


def wanted(stream, quiet: bool, environ) -> bool:
    """Progress goes to a terminal that can move back to the start of a line."""
    if quiet or environ.get("TERM") == "dumb":
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
