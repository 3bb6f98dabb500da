"""``fanout-lint check --stdin-filename PATH -``: lint the text on standard input as PATH.

Editors lint the buffer being edited, which is not saved yet: they send its text on
standard input and name the file it is. The text replaces that file's content for the
whole run (``regular_files.read_bounded`` returns it for that file), so the file is linted
where it lies: a template links with the templates of its repository, a ``.tf`` file is
linted in its directory, with its modules and tfvars, and findings name PATH.

PATH must be an existing file inside the repository (the git top level, else
``--repo-root``, else the current directory), as a pull request's file is. The text is
held to the size limit of a file of its kind, read at most one byte past it. ``--fix``
would write the text over the file on disk, and is refused; ``--diff`` shows what it
would change.
"""

from __future__ import annotations

import os
import stat
from contextlib import contextmanager

from fanout_lint.files import confine, regular_files
from fanout_lint.files.regular_files import HCL_FILE_BYTES, TEMPLATE_BYTES, describe_size

HCL_SUFFIXES = (".tf", ".tofu", ".tfvars")  # their JSON forms are read as JSON, under TEMPLATE_BYTES


class StdinError(Exception):
    """Standard input cannot be linted as asked; the message is one line."""


def limit_for(path: str) -> int:
    """The size limit of a file named ``path``."""
    return HCL_FILE_BYTES if path.endswith(HCL_SUFFIXES) else TEMPLATE_BYTES


def check_request(paths: list[str], filename: str | None, root: str, fix: bool) -> str:
    """The file standard input stands for; StdinError when the request cannot run."""
    if filename is None:
        raise StdinError("reading standard input (-) needs --stdin-filename PATH: the file the text is")
    if paths != ["-"]:
        raise StdinError("--stdin-filename lints standard input: give - as the only path")
    if fix:
        raise StdinError("--fix would write standard input's text over the file; use --diff to see the fixes")
    try:
        mode = os.stat(filename).st_mode
    except OSError as exc:
        raise StdinError(f"--stdin-filename: {filename}: {exc.strerror or exc}") from None
    if not stat.S_ISREG(mode):
        raise StdinError(f"--stdin-filename: {filename} is not a regular file")
    reason = confine.problem(filename, root)
    if reason is not None:
        raise StdinError(f"--stdin-filename: {filename} is {reason}")
    return filename


def read(stream, path: str) -> bytes:
    """At most the limit of ``path``'s kind from the binary ``stream``; StdinError above it."""
    if stream is None:
        raise StdinError("standard input is closed: there is no text to lint")
    limit = limit_for(path)
    data = stream.read(limit + 1)
    if len(data) > limit:
        raise StdinError(f"{path}: standard input is larger than {describe_size(limit)}, the limit for this file")
    return data


@contextmanager
def substituted(path: str, data: bytes):
    """For the block, ``data`` is the content of the file ``path``."""
    with regular_files.overlaid({os.path.realpath(path): data}):
        yield

