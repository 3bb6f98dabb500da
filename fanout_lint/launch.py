"""The process's entry point (the ``fanout-lint`` script, ``python -m fanout_lint``):
what it does before the package is imported, then the command line, then the exit.

Up to Python 3.11, ``dataclasses`` imports ``inspect`` (and with it ``ast``, ``dis``,
``tokenize`` and ``linecache``) for one thing: the docstring of a class written without
one, which it makes from the class's signature. Every class of fanout-lint has its own
(``test_startup.py`` holds it), so a run never uses ``inspect``, and importing it is
about 7 ms of a one-template run of about 80. So on those versions the entry point puts
a stand-in for ``inspect`` in ``sys.modules`` before anything imports it; every name
read from the stand-in is read from the real module, imported at the first read, so code
that does use it (lark, a dataclass without a docstring) works as before. From 3.12
``dataclasses`` reads ``inspect`` for every class, and nothing is deferred.

The process then ends without the interpreter's teardown (``exit_now``), unless
something else is watching it. Only the process's own entry point does either: a
program that imports fanout-lint, or calls ``cli.main``, keeps its imports and its exit
as they are.
"""

from __future__ import annotations

import os
import sys
import types

DEFERRED = ("inspect",) if sys.version_info < (3, 12) else ()


def main() -> int:
    """Run the command line of this process, and end the process."""
    for name in DEFERRED:
        defer(name)
    from fanout_lint.cli import main as run

    code = run()
    if not watched():
        exit_now(code)
    return code


def defer(name: str) -> None:
    """Put a stand-in for module ``name`` in ``sys.modules``, unless it is imported
    already. Every name read from the stand-in is read from the real module, which the
    first read imports (once, whichever thread reads first)."""
    if name in sys.modules:
        return
    import _thread

    stand_in = types.ModuleType(name, f"Stands in for {name} until one of its names is read.")
    real: list[types.ModuleType] = []
    lock = _thread.RLock()

    def __getattr__(attribute: str):
        with lock:
            if not real:
                if sys.modules.get(name) is stand_in:
                    del sys.modules[name]  # so that the import below finds and runs the real module
                import importlib

                real.append(importlib.import_module(name))
        return getattr(real[0], attribute)

    stand_in.__getattr__ = __getattr__
    sys.modules[name] = stand_in


def watched() -> bool:
    """Whether something else than fanout-lint needs the interpreter's own exit: a
    worker pool (its exit handlers join its threads), a profiler, tracer, debugger or
    coverage tool (they write their results when the program returns, or at exit), the
    development mode (its warnings at teardown), or exit handlers of anyone but
    ``logging`` (lark imports it; its handler only flushes streams flushed here)."""
    import atexit

    if "multiprocessing" in sys.modules or "concurrent.futures" in sys.modules or "bdb" in sys.modules:
        return True
    if sys.gettrace() is not None or sys.getprofile() is not None or sys.flags.dev_mode:
        return True
    monitoring = getattr(sys, "monitoring", None)  # 3.12: how coverage and debuggers may watch
    if monitoring is not None and any(monitoring.get_tool(tool) is not None for tool in range(6)):
        return True
    handlers = getattr(atexit, "_ncallbacks", None)
    return handlers is None or handlers() > ("logging" in sys.modules)


def exit_now(code: int) -> None:
    """End the process with ``code`` without the interpreter's teardown, which frees
    every module and object one at a time (a few milliseconds of a one-file run) and has
    nothing left to do: every file fanout-lint writes is closed by then, and the output
    is flushed here. When a stream cannot be flushed, the interpreter's exit, as
    before."""
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
    except (OSError, ValueError):
        return
    os._exit(code)
