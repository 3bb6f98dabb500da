"""The repository a run is in: its top level is where report paths and fingerprints start.

Found by looking for ``.git`` (a directory, or a file in a worktree or submodule) from
the current directory upward, as git does, without starting git: a hook run pays no
process for it.
"""

from __future__ import annotations

import os


def top_level(start: str) -> str | None:
    """The nearest directory at or above ``start`` holding ``.git``, or None."""
    directory = os.path.abspath(start)
    while True:
        if os.path.exists(os.path.join(directory, ".git")):
            return directory
        parent = os.path.dirname(directory)
        if parent == directory:
            return None
        directory = parent


def repo_root(given: str | None, cwd: str) -> str:
    """``--repo-root`` when given, else the git top level, else the current directory."""
    if given:
        return given
    found = top_level(cwd)
    if found is None:
        return "."
    # relative when it is the current directory, so paths stay as short as before
    return "." if os.path.samefile(found, cwd) else found
