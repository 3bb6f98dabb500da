"""When the lints of each workspace folder run: after a quiet spell (the debounce), one
at a time per folder, in a thread of their own so that the event loop keeps answering,
and time-boxed.

A change that arrives while a lint runs makes that lint stale: its result is dropped and
the folder is linted again when it ends. A lint past its time box is cut: the server
says so in one line, keeps the diagnostics it has, and lints again on the next change.
A Python thread cannot be stopped from outside, so a cut lint runs on in the background
until the engine's budgets end it (budget.py), as a command-line run would; its result
is dropped, and it holds nothing the next lint waits for."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(eq=False)
class _Folder:
    """One folder's lints: the latest request, the lint that runs, its timers."""

    generation: int = 0  # of the latest request
    running: int | None = None  # the generation of the lint that runs, if one does
    again: bool = False  # a request came while it ran
    timer: asyncio.TimerHandle | None = None
    deadline: asyncio.TimerHandle | None = None


class Scheduler:
    """``run(folder, snapshot(folder))`` in a thread, the snapshot taken on the loop (so
    the lint reads no state the loop changes); ``publish(folder, outcome)`` on the loop
    with the result of the latest request; ``say(line)`` when a lint fails or is cut."""

    def __init__(self, loop: asyncio.AbstractEventLoop, run: Callable[[str, Any], Any],
                 publish: Callable[[str, Any], None], say: Callable[[str], None],
                 debounce: float, time_box: float, snapshot: Callable[[str], Any] = lambda folder: None):
        self.loop = loop
        self.run = run
        self.snapshot = snapshot
        self.publish = publish
        self.say = say
        self.debounce = debounce
        self.time_box = time_box
        self._folders: dict[str, _Folder] = {}

    def request(self, folder: str) -> None:
        """Lint ``folder`` after the debounce; a request before then replaces this one."""
        state = self._folders.setdefault(folder, _Folder())
        state.generation += 1
        if state.timer is not None:
            state.timer.cancel()
            state.timer = None
        if self.debounce <= 0:
            self._start(folder)
        else:
            state.timer = self.loop.call_later(self.debounce, self._start, folder)

    def forget(self, folder: str) -> None:
        state = self._folders.pop(folder, None)
        if state is not None and state.timer is not None:
            state.timer.cancel()

    def _start(self, folder: str) -> None:
        state = self._folders.get(folder)
        if state is None:
            return
        state.timer = None
        if state.running is not None:
            state.again = True
            return
        generation = state.running = state.generation
        thread = threading.Thread(target=self._work, args=(folder, generation, self.snapshot(folder)), daemon=True,
                                  name=f"fanout-lint lint {generation}")
        thread.start()
        state.deadline = self.loop.call_later(self.time_box, self._cut, folder, generation)

    def _work(self, folder: str, generation: int, snapshot) -> None:
        try:
            outcome, failure = self.run(folder, snapshot), None
        except Exception as exc:  # one line to the editor, never a dead server
            outcome, failure = None, f"{type(exc).__name__}: {exc}"
        try:
            self.loop.call_soon_threadsafe(self._done, folder, generation, outcome, failure)
        except RuntimeError:  # the loop is closed: the server is exiting
            pass

    def _done(self, folder: str, generation: int, outcome, failure: str | None) -> None:
        state = self._folders.get(folder)
        if state is None or state.running != generation:
            return  # cut, or the folder was removed
        state.running = None
        if state.deadline is not None:
            state.deadline.cancel()
        if failure is not None:
            self.say(f"fanout-lint: internal error linting {folder}: {failure}")
        elif generation == state.generation:
            self.publish(folder, outcome)
        self._next(folder, state)

    def _cut(self, folder: str, generation: int) -> None:
        state = self._folders.get(folder)
        if state is None or state.running != generation:
            return
        state.running = None
        self.say(f"fanout-lint: the lint of {folder} took over {self.time_box:g} s and was cut; "
                 "its diagnostics are from the last lint that finished")
        self._next(folder, state)

    def _next(self, folder: str, state: _Folder) -> None:
        if state.again:
            state.again = False
            self._start(folder)
