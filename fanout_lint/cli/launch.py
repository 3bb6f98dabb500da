"""The process's entry point (the ``fanout-lint`` script, ``python -m fanout_lint``):
the command line, and its exit code."""

from __future__ import annotations

from fanout_lint.cli.main import main as run


def main() -> int:
    """Run the command line of this process; its exit code."""
    return run()
