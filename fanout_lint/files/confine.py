"""The one rule for every path fanout-lint reads or writes: inside the repository, through
no symbolic link.

A pull request's author controls every file and directory of the checkout, symbolic
links included, and every path a template names (a Terraform module ``source``, a nested
stack's ``TemplateURL``). So a path the run reads or writes must lie inside the
repository root, and no component of it *below* that root may be a symbolic link: a
committed ``link -> /home/runner`` must not let a run read a file out there, show its
content in a finding, edit it with ``--fix`` or write a report into it. What lies above
the root (``/tmp`` on macOS, say) is the operator's, and not looked at.

*The repository root* (``Roots.root``) is ``--repo-root`` when given, else the git top
level above the current directory, else the current directory (``repository.repo_root``,
where report paths and fingerprints start too). A path the operator names that lies
outside it (``fanout-lint ../other``) is confined to the git top level above that path
(no link's target is asked for ``.git``), else to the directory named (a named file's
directory); with ``--repo-root`` given, such a path is refused instead. Paths found
inside (walked files, module sources, nested templates) keep the root of the path they
were found from.

Writes (``--output``, ``--report``, ``--write-baseline``, ``--fix``) follow the same rule
inside a repository (the run's, or the git top level above the path): a committed link
at the written path or above it is refused, and the file is written without following
one (``write_atomic(streams=False)``). A write outside every repository (``$RUNNER_TEMP``,
``/dev/stdout``) passes no component a pull request controls and is made as given (a
link at the path itself is replaced, not written through).

A path that breaks the rule raises ``Refused`` (an ``OSError``, so the usual handlers make
it one line naming the path) and nothing is read or written there.
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass, field

from fanout_lint.files.regular_files import read_bounded, resolved_path, write_atomic

NOT_FOLLOWED = "fanout-lint follows no symbolic link inside a repository"


class Refused(OSError):
    """A path outside the repository or through a symbolic link; ``strerror`` says which."""

    def __init__(self, path: str, reason: str):
        super().__init__(errno.EACCES, reason, path)


def outside(root: str) -> str:
    return f"outside the repository ({root})"


def through_link(component: str) -> str:
    return f"reached through the symbolic link {component} ({NOT_FOLLOWED})"


def is_inside(path: str, top: str) -> bool:
    """Whether ``path`` is ``top`` or below it, by their spelling (both absolute or both relative)."""
    path, top = os.path.normcase(path), os.path.normcase(top)
    return path == top or path.startswith(top.rstrip(os.sep) + os.sep)


def problem(path: str, root: str, checked: set[str] | None = None, target: str | None = None,
            spelled_root: str | None = None) -> str | None:
    """Why ``path`` breaks the rule for ``root`` (None when it keeps it): it must lie inside
    ``root``, and no component below ``root`` that exists may be a symbolic link (the
    final one included; what does not exist yet, a report to create, is fine). A ``..``
    must resolve where its spelling says. ``checked``: directories already found free of
    links, to skip (filled by this call); ``target`` and ``spelled_root``: the path and
    the root made absolute, when the caller has them."""
    target = target if target is not None else os.path.abspath(path)
    return _links(path, root, target, _below(target, root, spelled_root), checked)


def _links(path: str, root: str, target: str, below: tuple[str, list[str]] | None,
           checked: set[str] | None) -> str | None:
    """``problem``, once ``target`` (``path`` made absolute) is found ``below`` the root or not."""
    if below is None:
        return outside(root)
    _, parts = below
    pending = []  # the components below the root not yet known to be free of links, deepest first
    current = target
    for _ in parts:
        if checked is not None and current in checked:
            break
        pending.append(current)
        current = os.path.dirname(current)
    for current in reversed(pending):
        try:
            info = os.lstat(current)
        except FileNotFoundError:
            break  # the rest is to be created
        except (OSError, ValueError):
            break  # cannot be looked at (too long, no permission): reading it fails too
        if stat.S_ISLNK(info.st_mode):
            return f"a symbolic link ({NOT_FOLLOWED})" if current == target else through_link(_shown(current))
        if checked is not None and stat.S_ISDIR(info.st_mode):
            checked.add(current)
    return _dotdot_problem(path, root) if ".." in path else None


def _below(target: str, root: str, spelled: str | None = None) -> tuple[str, list[str]] | None:
    """(the root as ``target`` spells it, the components of ``target`` below it), or None
    when ``target`` is not inside ``root``. The root may be spelled another way than the
    path (``/tmp`` for ``/private/tmp``, a symlinked checkout): then the shortest prefix
    of the path that is the root's directory is its spelling."""
    spelled = spelled if spelled is not None else os.path.abspath(root)
    for top in (spelled, None):  # the root as spelled, then (only when needed) resolved
        if top is None:
            top = resolved_path(root)
            if top is None or top == spelled:
                break
        if is_inside(target, top):
            rest = target[len(top.rstrip(os.sep)):].lstrip(os.sep)
            return top, [p for p in rest.split(os.sep) if p]
    try:
        wanted = os.stat(root)
    except (OSError, ValueError):
        return None
    parts = [p for p in target.split(os.sep) if p]
    prefix = target[: len(target) - len(target.lstrip(os.sep))] or os.sep
    for index in range(len(parts) + 1):
        here = os.path.join(prefix, *parts[:index])
        try:
            info = os.stat(here)
        except (OSError, ValueError):
            return None
        if (info.st_dev, info.st_ino) == (wanted.st_dev, wanted.st_ino):
            return here, parts[index:]
    return None


def _dotdot_problem(path: str, root: str) -> str | None:
    """A ``..`` is resolved by the system after the links before it: ``a/link/../b`` is
    not ``a/b``. The path up to its last ``..`` must resolve where its spelling does."""
    parts = path.split(os.sep)
    if ".." not in parts:
        return None
    last = len(parts) - 1 - parts[::-1].index("..")
    spelled = os.sep.join(parts[: last + 1]) or os.sep
    real = resolved_path(spelled)
    if real is None or real != resolved_path(os.path.normpath(spelled)):
        return through_link(spelled)
    return None


def _shown(current: str) -> str:
    """A component as the user would spell it: relative when it is below the current directory."""
    here = os.getcwd()
    return os.path.relpath(current, here) if is_inside(current, here) else current


def check(path: str, root: str, checked: set[str] | None = None) -> None:
    """Raise ``Refused`` when ``path`` breaks the rule for ``root``."""
    reason = problem(path, root, checked)
    if reason is not None:
        raise Refused(path, reason)


def read(path: str, root: str, limit: int, checked: set[str] | None = None) -> bytes:
    """The bytes of ``path`` (``regular_files.read_bounded``), once it keeps the rule;
    the file itself is opened without following a link."""
    check(path, root, checked)
    return read_bounded(path, limit, follow=False)


def is_link(path: str) -> bool:
    try:
        return os.path.islink(path)
    except (OSError, ValueError):
        return False


def lexists(path: str) -> bool:
    try:
        return os.path.lexists(path)
    except (OSError, ValueError):
        return False


@dataclass(eq=False, repr=False)
class Roots:
    """A run's repository root, and how a path the operator names finds its root."""

    root: str = "."
    given: bool = False  # --repo-root: every path read must be inside it
    checked: set[str] = field(default_factory=set)  # directories found free of links
    spelled: str = ""  # the root made absolute (a run does not change directory)

    def __post_init__(self) -> None:
        self.spelled = os.path.abspath(self.root)

    def _inside(self, target: str) -> bool:
        return _below(target, self.root, self.spelled) is not None

    def of(self, path: str) -> str:
        """The root ``path`` (named by the operator) is confined to."""
        return self.confine(path)[0]

    def confine(self, path: str) -> tuple[str, str | None]:
        """The root the operator-named ``path`` is confined to, and why it may not be read
        (None: it may)."""
        target = os.path.abspath(path)
        below = _below(target, self.root, self.spelled)
        if self.given or below is not None:
            return self.root, _links(path, self.root, target, below, self.checked)
        root = own_root(path)
        return root, problem(path, root, self.checked, target)

    def read_problem(self, path: str) -> str | None:
        """Why the operator-named ``path`` may not be read (None: it may)."""
        return self.confine(path)[1]

    def _write_root(self, path: str) -> str | None:
        """The repository a written ``path`` lies in, or None when it lies in none."""
        return self.root if self._inside(os.path.abspath(path)) else _git_root(path)

    def write_problem(self, path: str) -> str | None:
        """Why ``path`` may not be written (None: it may). Outside every repository it may."""
        root = self._write_root(path)
        return None if root is None else problem(path, root, self.checked)

    def write(self, path: str, data: bytes) -> None:
        """Write ``path`` atomically (``regular_files.write_atomic``) once it keeps the
        rule; inside a repository no link is followed and no stream opened."""
        root = self._write_root(path)
        reason = None if root is None else problem(path, root, self.checked)
        if reason is not None:
            raise Refused(path, reason)
        write_atomic(path, data, streams=root is None)


def own_root(path: str) -> str:
    """The root of a path outside the run's repository: the git top level above it, else
    the directory named (a file's own directory)."""
    found = _git_root(path)
    if found is not None:
        return found
    try:
        directory = stat.S_ISDIR(os.lstat(path).st_mode)
    except (OSError, ValueError):
        directory = False
    return path if directory else (os.path.dirname(path) or ".")


def _git_root(path: str) -> str | None:
    """The nearest directory at or above ``path`` that holds ``.git``, not looked for
    through a symbolic link: a link's target is not asked for ``.git`` (a committed
    ``link -> /other/checkout`` must not make itself a root), and the search goes on
    above it, so that ``problem`` refuses the link below the root found there."""
    current = os.path.abspath(path)
    if is_link(current) or not os.path.isdir(current):
        current = os.path.dirname(current)
    while True:
        if not is_link(current) and lexists(os.path.join(current, ".git")):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent
