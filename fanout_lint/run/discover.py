"""Which files and directories a run lints, and how they group into units.

A CloudFormation or Serverless Framework file is one unit; a Terraform directory (all its
``*.tf``, ``*.tf.json``, and OpenTofu's ``*.tofu`` and ``*.tofu.json``: see
``loaders/terraform/files.py``) is one unit; a plan JSON file is one unit. Whether a YAML or JSON file is a template is decided by
its content when it is loaded, so this stage only looks at names, and at the ``module``
blocks of Terraform directories: a directory another unit of the run loads as a local
module is linted inside that unit, with its real inputs, not again on its own.

A ``.tf`` file or an automatically loaded tfvars file named on the command line (as
pre-commit names changed files) stands for its directory; when that directory is a
local module of the repository, for the root directories that call it. Files passed
over are returned with the reason (``unsupported.py``).

Every path is confined to its repository (``confine.py``): a named path outside it, or
reached through a symbolic link, is an error and is not looked into; the walk follows no
symbolic link. A link it meets that would matter (to a directory, or named as a template
or Terraform file) is a notice when its target is inside the repository (the target is
linted where it is) and an error when it points outside.
"""

from __future__ import annotations

import fnmatch
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from fanout_lint.files.confine import NOT_FOLLOWED, Roots, is_inside, outside
from fanout_lint.files.regular_files import resolved_path
from fanout_lint.files.repository import repo_root
from fanout_lint.loaders.candidate import Candidate
from fanout_lint.loaders.terraform.files import suffix_of
from fanout_lint.loaders.terraform.module_calls import modules_of_others, roots_calling
from fanout_lint.model.format import Format
from fanout_lint.model.nodes import Loc
from fanout_lint.results.records import Notice, Skipped
from fanout_lint.run import unsupported

if TYPE_CHECKING:
    from typing import Callable

    # globs, or a function of the path (each directory's configuration: hierarchy.py)
    Exclude = tuple[str, ...] | Callable[[str, bool], bool]

# Real repositories stay below 30 levels (deep Java packages reach about 20); a tree
# deeper than this is generated or hostile, and its paths approach PATH_MAX anyway.
MAX_WALK_DEPTH = 100
SKIP_DIRS = {".git", "node_modules", ".terraform", "__pycache__", ".venv", ".tox"}
CFN_SUFFIXES = (".yaml", ".yml", ".json", ".template")


@dataclass(eq=False, repr=False)
class PathError:
    """A path named or walked that could not be looked at: missing, unreadable, too deep."""

    path: str
    message: str


@dataclass(eq=False, repr=False)
class Discovery:
    """What a walk of the paths found: units, paths that could not be read, files passed over."""

    candidates: list[Candidate]
    missing: list[PathError]
    skipped: list[Skipped]
    notices: list[Notice] = field(default_factory=list)  # symbolic links inside the repository, not followed


def discover(paths: list[str], exclude: tuple[str, ...] = ()) -> tuple[list[Candidate], list[PathError]]:
    """The units under ``paths``, and one-line errors for paths that could not be read."""
    found = find_units(paths, exclude)
    return found.candidates, found.missing


def find_units(paths: list[str], exclude: Exclude = (), root: str | None = None,
               root_given: bool = False, exclude_elsewhere: Exclude | None = None) -> Discovery:
    """The units under ``paths``, the paths that could not be read, and the files passed
    over. ``root``: the repository, searched for the callers of a module whose file is
    named (None: a named module file stands for its own directory), and the root every
    path is confined to (None: the repository of the current directory); ``root_given``:
    it is ``--repo-root``, and a path outside it is refused; ``exclude_elsewhere``: what
    that search of the repository leaves out (default: ``exclude``)."""
    roots = Roots(root if root is not None else repo_root(None, os.getcwd()), root_given)
    candidates: dict[tuple[str, str], Candidate] = {}
    missing: list[PathError] = []
    skipped: list[Skipped] = []
    notices: list[Notice] = []
    from_files: list[Candidate] = []  # Terraform directories named by one of their files
    for path in paths:
        if _excluded(path, exclude, named=True):
            continue
        confined, refused = roots.confine(path)
        if refused is not None:  # nothing is looked at there, not even whether it exists
            missing.append(PathError(path, f"not read: {refused}"))
            continue
        if not os.path.lexists(path):
            missing.append(PathError(path, "no such file or directory"))
            continue
        if os.path.isdir(path):
            found, problems = _walk(path, exclude, skipped, confined, notices)
            for candidate in found:
                candidates.setdefault(_key(candidate), candidate)
            missing.extend(problems)
        else:
            candidate = _classify_file(path, skipped, confined)
            if candidate:
                candidates.setdefault(_key(candidate), candidate)
                if candidate.format is Format.TERRAFORM:
                    from_files.append(candidate)
    if root is not None and from_files:
        _to_module_roots(candidates, from_files, root, exclude if exclude_elsewhere is None else exclude_elsewhere)
    _skip_plans_beside_terraform(candidates, skipped)
    terraform = [c.path for c in candidates.values() if c.format is Format.TERRAFORM]
    modules = set()
    if len(terraform) > 1:  # module calls are read only when there are directories to call
        modules = modules_of_others(terraform, {c.path: c.root for c in candidates.values() if c.format is Format.TERRAFORM})
    ordered = sorted(
        (c for c in candidates.values() if not (c.format is Format.TERRAFORM and c.path in modules)),
        key=lambda c: (c.path, c.format),
    )
    return Discovery(ordered, missing, skipped, sorted(notices, key=Notice.sort_key))


def _to_module_roots(candidates: dict, from_files: list[Candidate], root: str, exclude: Exclude) -> None:
    """Replace each directory named by a file with the repository's root directories that
    load it as a local module: alone it would be linted with its variable defaults, under
    other addresses than its callers give it, and their baselines would not match."""
    found, _ = _walk(os.path.relpath(root), exclude, [], root, [])  # relative, as the run shows paths
    directories = [c.path for c in found if c.format is Format.TERRAFORM]
    for candidate in from_files:
        roots = roots_calling(candidate.path, directories, root)
        if roots:
            candidates.pop(_key(candidate), None)
            for directory in roots:
                unit = Candidate(_tidy(directory), Format.TERRAFORM, root)
                candidates.setdefault(_key(unit), unit)


def _skip_plans_beside_terraform(candidates: dict, skipped: list[Skipped]) -> None:
    """A plan JSON in a Terraform directory of the run is that directory's plan: its
    findings would repeat the ones of the .tf files, so only the .tf files are linted."""
    directories = {_key(c)[1] for c in candidates.values() if c.format is Format.TERRAFORM}
    if not directories:
        return
    for key, candidate in list(candidates.items()):
        if candidate.format is not Format.CLOUDFORMATION or not candidate.path.lower().endswith(".json"):
            continue
        directory = os.path.dirname(candidate.path) or "."
        if os.path.normcase(os.path.abspath(directory)) in directories and unsupported.looks_like_plan(candidate.path):
            del candidates[key]
            skipped.append(Skipped(candidate.path, unsupported.PLAN_BESIDE_TF.format(directory=_tidy(directory))))


def _tidy(path: str) -> str:
    """``path`` without leading ``./``, as the report shows it."""
    while path.startswith("./") and len(path) > 2:
        path = path[2:].lstrip("/") or "."
    return path


def walk_templates(root: str, exclude: Exclude = ()) -> list[str]:
    """The YAML/JSON files below ``root`` that may be templates, as the walk finds them
    (for linking a named template with the rest of its repository; what cannot be
    walked is skipped silently: it is no unit of the run)."""
    found, _ = _walk(root, exclude, [], root, [])
    return [c.path for c in found if c.format is Format.CLOUDFORMATION]


def _key(candidate: Candidate) -> tuple[str, str]:
    # pre-commit passes every changed configuration file of a directory, and a user may name the same
    # place twice (`dir/`, `dir/main.tf`, `./dir`): each unit is linted once
    return (candidate.format, os.path.normcase(os.path.abspath(candidate.path)))


def _classify_file(path: str, skipped: list[Skipped], root: str) -> Candidate | None:
    """The unit a file named on the command line stands for, or None (and why, in ``skipped``)."""
    lower = path.lower()
    directory = os.path.dirname(path) or "."
    if suffix_of(os.path.basename(lower)):  # before .json: main.tf.json is Terraform
        return Candidate(directory, Format.TERRAFORM, root)
    reason = unsupported.not_read_yet(path)
    if reason is None and unsupported.is_tfvars(path):
        if not unsupported.is_auto_tfvars(path):
            reason = unsupported.TFVARS_NOT_AUTO
        elif not _has_tf(directory):
            reason = unsupported.TFVARS_WITHOUT_TF
        else:
            return Candidate(directory, Format.TERRAFORM, root)  # it sets the directory's variables
    if reason is None and lower.endswith(CFN_SUFFIXES):
        return Candidate(path, Format.CLOUDFORMATION, root)
    skipped.append(Skipped(path, reason or "not a template, Terraform or OpenTofu file (by its name)"))
    return None


def _has_tf(directory: str) -> bool:
    try:
        with os.scandir(directory) as listing:
            return any(suffix_of(e.name.lower()) for e in listing)
    except OSError:
        return False


def _walk(top: str, exclude: Exclude, skipped: list[Skipped], root: str,
          notices: list[Notice]) -> tuple[list[Candidate], list[PathError]]:
    """The candidates under ``top`` (confined to ``root``), and one-line errors for what
    could not be walked.

    Iterative, so any depth is safe; directories deeper than ``MAX_WALK_DEPTH`` below
    ``top`` are an error each, not walked. No symbolic link is followed (``confine.py``),
    so the walk cannot leave the tree or loop: a link that would matter (``_link_met``)
    is a notice or an error; a Terraform file that is a link makes its directory a unit,
    whose loader refuses the link.
    """
    found: list[Candidate] = []
    problems: list[PathError] = []
    seen: set[tuple[int, int]] = set()
    pending = [(top, 0)]
    while pending:
        directory, depth = pending.pop()
        try:
            info = os.stat(directory)
        except OSError as exc:
            problems.append(PathError(directory, f"cannot read directory: {exc.strerror or exc}"))
            continue
        key = (info.st_dev, info.st_ino)
        if key in seen:  # a bind mount inside the tree
            continue
        seen.add(key)
        if depth > MAX_WALK_DEPTH:
            problems.append(PathError(directory, f"directory more than {MAX_WALK_DEPTH} levels below {top}: not linted"))
            continue
        try:
            with os.scandir(directory) as listing:
                entries = sorted(listing, key=lambda e: e.name)
        except OSError as exc:
            problems.append(PathError(directory, f"cannot read directory: {exc.strerror or exc}"))
            continue
        subdirectories = []
        has_tf = False
        for entry in entries:
            full = _tidy(os.path.join(directory, entry.name))
            if _excluded(full, exclude):
                continue
            try:
                link = entry.is_symlink()
                is_directory = not link and entry.is_dir(follow_symlinks=False)
            except OSError:
                link = is_directory = False
            skipped_dir = entry.name in SKIP_DIRS or (
                os.path.basename(directory) == "cdk.out" and entry.name.startswith("asset."))
            if link:
                if suffix_of(entry.name.lower()):
                    has_tf = True
                elif not skipped_dir:
                    _link_met(full, entry.name, root, problems, notices)
            elif is_directory:
                if not skipped_dir:
                    subdirectories.append(full)
            elif suffix_of(entry.name.lower()):
                has_tf = True
            elif (reason := unsupported.not_read_yet(entry.name)) is not None:
                skipped.append(Skipped(full, reason))
            elif entry.name.lower().endswith(CFN_SUFFIXES):
                found.append(Candidate(full, Format.CLOUDFORMATION, root))
        if has_tf:
            found.append(Candidate(directory, Format.TERRAFORM, root))
        # in reverse, so that directories are visited in name order, as a recursive walk would
        pending.extend((sub, depth + 1) for sub in reversed(subdirectories))
    return found, problems


def _link_met(path: str, name: str, root: str, problems: list[PathError], notices: list[Notice]) -> None:
    """A symbolic link the walk met and does not follow: when it would matter (it names a
    directory, or is named as a template), a notice if its target is inside ``root``
    (linted where it is, when the run reaches it) and an error if it is outside. A link
    that resolves to nothing names nothing to read."""
    target = resolved_path(path)
    if target is None:
        return
    if not (os.path.isdir(target) or name.lower().endswith(CFN_SUFFIXES)):
        return  # a link to a README, a script: no template would be read through it
    top = resolved_path(root)
    if top is not None and is_inside(target, top):
        notices.append(Notice(Loc(path, 1), f"a symbolic link: not followed ({NOT_FOLLOWED}); "
                                            "lint its target where it is"))
    else:
        problems.append(PathError(path, f"not read: a symbolic link to {outside(root)}"))


def _excluded(path: str, patterns: Exclude, named: bool = False) -> bool:
    """``patterns``: globs, or a function of the path (``hierarchy.Hierarchy.excluder``:
    each directory's own configuration's); ``named``: the path is one the run names."""
    if callable(patterns):
        return patterns(path, named)
    return matches_exclude(path, patterns)


def matches_exclude(path: str, patterns: tuple[str, ...]) -> bool:
    """``path`` (or its name) matches one of the globs ``patterns``."""
    if not patterns:
        return False
    normalized = os.path.normpath(path)
    return any(
        fnmatch.fnmatch(normalized, pattern) or fnmatch.fnmatch(os.path.basename(normalized), pattern)
        for pattern in patterns
    )
