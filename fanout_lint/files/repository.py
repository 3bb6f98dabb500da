"""The repository a run is in: its top level is where report paths and fingerprints start.

Found by looking for ``.git`` (a directory, or a file in a worktree or submodule) from
the current directory upward, as git does, without starting git: a hook run pays no
process for it.
"""

from __future__ import annotations

import os


def top_level(start: str, known: dict[str, str | None] | None = None) -> str | None:
    """The nearest directory at or above ``start`` holding ``.git``, or None.

    ``known``: directory -> its answer, from earlier calls, and filled by this one for
    every directory it passes: a run that asks for thousands of templates' directories
    looks at each directory above them once."""
    directory = os.path.abspath(start)
    passed = []
    while known is None or directory not in known:
        if os.path.exists(os.path.join(directory, ".git")):
            found: str | None = directory
            break
        passed.append(directory)
        parent = os.path.dirname(directory)
        if parent == directory:
            found = None
            break
        directory = parent
    else:
        found = known[directory]
    if known is not None:
        for directory in passed:
            known[directory] = found
    return found


def repo_root(given: str | None, cwd: str) -> str:
    """``--repo-root`` when given, else the git top level, else the current directory."""
    if given:
        return given
    found = top_level(cwd)
    if found is None:
        return "."
    # relative when it is the current directory, so paths stay as short as before
    return "." if os.path.samefile(found, cwd) else found
