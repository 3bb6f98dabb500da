"""Where a command line's options end and its paths begin.

File names are the author's: a committed file named ``--output=package.json`` must never
become an option. ``--`` ends the options of every command: everything after it is a
path, whatever it looks like (a second ``--`` included). argparse is handed only what
comes before it, so the rule does not depend on how one Python version of argparse
treats ``--`` among subcommands.

The pre-commit hook runs ``fanout-lint check --pre-commit``, then the hook's ``args``,
then the file names. Its default ``args`` are ``["--"]``; a configuration that sets its
own ``args`` must end them with ``--``. Without one, the hook cannot tell an option the
user wrote from a file name that looks like one, so a run with ``--pre-commit``, no
``--`` and any argument that starts with ``-`` is refused (exit 2) instead of guessing.
"""

from __future__ import annotations

from dataclasses import dataclass

END_OF_OPTIONS = "--"
HOOK_FLAG = "--pre-commit"


class ArgumentsError(Exception):
    """A command line that cannot be read safely; the message is one line."""


@dataclass(eq=False, repr=False)
class CommandLine:
    """A command line split at its first ``--``."""

    options: list[str]  # for argparse: options and the paths written among them
    paths: list[str]  # after ``--``: paths only


def split(argv: list[str]) -> CommandLine:
    """``argv`` (the command first) split at its first ``--``; ArgumentsError for a
    pre-commit hook's command line without one whose file names could read as options."""
    if END_OF_OPTIONS in argv:
        at = argv.index(END_OF_OPTIONS)
        return CommandLine(options=argv[:at], paths=argv[at + 1:])
    if HOOK_FLAG in argv:
        after = argv[argv.index(HOOK_FLAG) + 1:]
        if any(word.startswith("-") for word in after):
            raise ArgumentsError(
                "with --pre-commit the file names follow `--`: end the hook's `args:` in "
                ".pre-commit-config.yaml with \"--\" (for example args: [--baseline, baseline.json, --])")
    return CommandLine(options=list(argv), paths=[])


def paths_of(given: list[str] | None, after: list[str]) -> list[str]:
    """The paths of a run: those among the options, then those after ``--``; ``.`` when
    there are none."""
    return [*(given or []), *after] or ["."]
