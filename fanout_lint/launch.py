"""The process's entry point (the ``fanout-lint`` script, ``python -m fanout_lint``):
what it does before the package is imported, then the command line.

``dataclasses`` imports ``inspect``, and with it ``ast``, ``dis``, ``tokenize`` and
``linecache``, for one thing: the docstring of a class written without one, which it
makes from the class's signature. Every class of fanout-lint has its own
(``test_startup.py`` holds it), so a run never uses ``inspect``, and importing it is
about 7 ms of a one-template run of about 80. So the entry point puts a stand-in for
``inspect`` in ``sys.modules`` before anything imports it: the first name read from the
stand-in imports the real module, and every later read finds the real module's names,
so code that does use it (a plugin, a debugger, a dataclass without a docstring) works
as before. And the process ends without the interpreter's teardown (``exit_now``).
Only the process's own entry point does either: a program that imports fanout-lint, or
calls ``cli.main``, keeps its imports and its exit as they are.
"""

from __future__ import annotations

import os
import sys
import types

DEFERRED = ("inspect",)


def main() -> int:
    """Run the command line of this process, and end the process."""
    for name in DEFERRED:
        defer(name)
    from fanout_lint.cli import main as run

    code = run()
    exit_now(code)
    return code


def exit_now(code: int) -> None:
    """End the process with ``code`` without the interpreter's teardown, which frees
    every module and object one at a time (a few milliseconds of a one-file run) and has
    nothing left to do: every file fanout-lint writes is closed by then, the output is
    flushed here, and fanout-lint registers no exit handlers. Not after a parallel run,
    whose pool has exit handlers of its own, nor when a stream cannot be flushed: the
    interpreter's exit then, as before."""
    if "multiprocessing" in sys.modules or "concurrent.futures" in sys.modules:
        return
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
    except (OSError, ValueError):
        return
    os._exit(code)


def defer(name: str) -> None:
    """Put a stand-in for module ``name`` in ``sys.modules``, unless it is imported
    already. The first name read from it imports the real module, whose names the
    stand-in then holds too, for whoever imported the stand-in."""
    if name in sys.modules:
        return
    stand_in = types.ModuleType(name, f"Stands in for {name} until one of its names is read.")

    def __getattr__(attribute: str):
        if sys.modules.get(name) is stand_in:
            del sys.modules[name]  # so that the import below finds and runs the real module
        import importlib

        real = importlib.import_module(name)
        vars(stand_in).update(vars(real))
        return getattr(real, attribute)

    stand_in.__getattr__ = __getattr__
    sys.modules[name] = stand_in
