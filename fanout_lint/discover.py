"""Which files and directories a run lints, and how they group into units.

A CloudFormation or Serverless Framework file is one unit; a Terraform directory (all its
``*.tf``, ``*.tf.json``, and OpenTofu's ``*.tofu`` and ``*.tofu.json``: see
``terraform_files.py``) is one unit; a plan JSON file is one unit. Whether a YAML or JSON file is a template is decided by
its content when it is loaded, so this stage only looks at names, and at the ``module``
blocks of Terraform directories: a directory another unit of the run loads as a local
module is linted inside that unit, with its real inputs, not again on its own.

A ``.tf`` file or an automatically loaded tfvars file named on the command line (as
pre-commit names changed files) stands for its directory; when that directory is a
local module of the repository, for the root directories that call it. Files passed
over are returned with the reason (``unsupported.py``).
"""

from __future__ import annotations

import fnmatch
import os
from dataclasses import dataclass

from fanout_lint import unsupported
from fanout_lint.findings import Skipped
from fanout_lint.model.record import ValueRecord
from fanout_lint.regular_files import resolved_path
from fanout_lint.terraform_files import suffix_of

# Real repositories stay below 30 levels (deep Java packages reach about 20); a tree
# deeper than this is generated or hostile, and its paths approach PATH_MAX anyway.
MAX_WALK_DEPTH = 100
SKIP_DIRS = {".git", "node_modules", ".terraform", "__pycache__", ".venv", ".tox"}
CFN_SUFFIXES = (".yaml", ".yml", ".json", ".template")


@dataclass(eq=False, repr=False)
class Candidate(ValueRecord):
    """One unit to lint: a file that may be a template, or a Terraform directory."""

    path: str
    # "cloudformation" (a YAML/JSON file: maybe a template, a plan or a Serverless service)
    # | "terraform" (a directory)
    kind: str


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


def discover(paths: list[str], exclude: tuple[str, ...] = ()) -> tuple[list[Candidate], list[PathError]]:
    """The units under ``paths``, and one-line errors for paths that could not be read."""
    found = find_units(paths, exclude)
    return found.candidates, found.missing


def find_units(paths: list[str], exclude: tuple[str, ...] = (), root: str | None = None) -> Discovery:
    """The units under ``paths``, the paths that could not be read, and the files passed
    over. ``root``: the repository, searched for the callers of a module whose file is
    named (None: a named module file stands for its own directory)."""
    candidates: dict[tuple[str, str], Candidate] = {}
    missing: list[PathError] = []
    skipped: list[Skipped] = []
    from_files: list[Candidate] = []  # Terraform directories named by one of their files
    for path in paths:
        if _excluded(path, exclude):
            continue
        if os.path.isdir(path):
            found, problems = _walk(path, exclude, skipped)
            for candidate in found:
                candidates.setdefault(_key(candidate), candidate)
            missing.extend(problems)
        elif os.path.exists(path) or os.path.islink(path):
            candidate = _classify_file(path, skipped)
            if candidate:
                candidates.setdefault(_key(candidate), candidate)
                if candidate.kind == "terraform":
                    from_files.append(candidate)
        else:
            missing.append(PathError(path, "no such file or directory"))
    if root is not None and from_files:
        _to_module_roots(candidates, from_files, root, exclude)
    _skip_plans_beside_terraform(candidates, skipped)
    terraform = [c.path for c in candidates.values() if c.kind == "terraform"]
    modules = set()
    if len(terraform) > 1:  # module calls are read only when there are directories to call
        from fanout_lint.module_calls import modules_of_others

        modules = modules_of_others(terraform)
    ordered = sorted(
        (c for c in candidates.values() if not (c.kind == "terraform" and c.path in modules)),
        key=lambda c: (c.path, c.kind),
    )
    return Discovery(ordered, missing, skipped)


def _to_module_roots(candidates: dict, from_files: list[Candidate], root: str, exclude: tuple[str, ...]) -> None:
    """Replace each directory named by a file with the repository's root directories that
    load it as a local module: alone it would be linted with its variable defaults, under
    other addresses than its callers give it, and their baselines would not match."""
    from fanout_lint.module_calls import roots_calling

    found, _ = _walk(os.path.relpath(root), exclude, [])  # relative, as the run shows paths
    directories = [c.path for c in found if c.kind == "terraform"]
    for candidate in from_files:
        roots = roots_calling(candidate.path, directories)
        if roots:
            candidates.pop(_key(candidate), None)
            for directory in roots:
                unit = Candidate(_tidy(directory), "terraform")
                candidates.setdefault(_key(unit), unit)


def _skip_plans_beside_terraform(candidates: dict, skipped: list[Skipped]) -> None:
    """A plan JSON in a Terraform directory of the run is that directory's plan: its
    findings would repeat the ones of the .tf files, so only the .tf files are linted."""
    directories = {_key(c)[1] for c in candidates.values() if c.kind == "terraform"}
    if not directories:
        return
    for key, candidate in list(candidates.items()):
        if candidate.kind != "cloudformation" or not candidate.path.lower().endswith(".json"):
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


def walk_templates(root: str, exclude: tuple[str, ...] = ()) -> list[str]:
    """The YAML/JSON files below ``root`` that may be templates, as the walk finds them
    (for linking a named template with the rest of its repository; what cannot be
    walked is skipped silently: it is no unit of the run)."""
    found, _ = _walk(root, exclude, [])
    return [c.path for c in found if c.kind == "cloudformation"]


def _key(candidate: Candidate) -> tuple[str, str]:
    # pre-commit passes every changed configuration file of a directory, and a user may name the same
    # place twice (`dir/`, `dir/main.tf`, `./dir`): each unit is linted once
    return (candidate.kind, os.path.normcase(os.path.abspath(candidate.path)))


def _classify_file(path: str, skipped: list[Skipped]) -> Candidate | None:
    """The unit a file named on the command line stands for, or None (and why, in ``skipped``)."""
    lower = path.lower()
    directory = os.path.dirname(path) or "."
    if suffix_of(os.path.basename(lower)):  # before .json: main.tf.json is Terraform
        return Candidate(directory, "terraform")
    reason = unsupported.not_read_yet(path)
    if reason is None and unsupported.is_tfvars(path):
        if not unsupported.is_auto_tfvars(path):
            reason = unsupported.TFVARS_NOT_AUTO
        elif not _has_tf(directory):
            reason = unsupported.TFVARS_WITHOUT_TF
        else:
            return Candidate(directory, "terraform")  # it sets the directory's variables
    if reason is None and lower.endswith(CFN_SUFFIXES):
        return Candidate(path, "cloudformation")
    skipped.append(Skipped(path, reason or "not a template, Terraform or OpenTofu file (by its name)"))
    return None


def _has_tf(directory: str) -> bool:
    try:
        with os.scandir(directory) as listing:
            return any(suffix_of(e.name.lower()) for e in listing)
    except OSError:
        return False


def _walk(root: str, exclude: tuple[str, ...], skipped: list[Skipped]) -> tuple[list[Candidate], list[PathError]]:
    """The candidates under ``root``, and one-line errors for what could not be walked.

    Iterative, so any depth is safe; directories deeper than ``MAX_WALK_DEPTH`` below
    ``root`` are an error each, not walked. A symlink to a directory is followed only
    when it resolves inside ``root`` (a link to ``/`` or ``..`` would walk the machine),
    and each real directory is visited once, so links within the tree cannot loop.
    """
    found: list[Candidate] = []
    problems: list[PathError] = []
    top = resolved_path(root)
    if top is None:
        return found, [PathError(root, "cannot read directory")]
    seen: set[tuple[int, int]] = set()
    pending = [(root, 0)]
    while pending:
        directory, depth = pending.pop()
        try:
            info = os.stat(directory)
        except OSError as exc:
            problems.append(PathError(directory, f"cannot read directory: {exc.strerror or exc}"))
            continue
        key = (info.st_dev, info.st_ino)
        if key in seen:
            continue
        seen.add(key)
        if depth > MAX_WALK_DEPTH:
            problems.append(PathError(directory, f"directory more than {MAX_WALK_DEPTH} levels below {root}: not linted"))
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
            kind = _entry_kind(entry, full, top)
            if kind == "outside" or _excluded(full, exclude):
                continue
            if kind == "directory":
                if entry.name not in SKIP_DIRS and not (
                    os.path.basename(directory) == "cdk.out" and entry.name.startswith("asset.")
                ):
                    subdirectories.append(full)
            elif suffix_of(entry.name.lower()):
                has_tf = True
            elif (reason := unsupported.not_read_yet(entry.name)) is not None:
                skipped.append(Skipped(full, reason))
            elif entry.name.lower().endswith(CFN_SUFFIXES):
                found.append(Candidate(full, "cloudformation"))
        if has_tf:
            found.append(Candidate(directory, "terraform"))
        # in reverse, so that directories are visited in name order, as a recursive walk would
        pending.extend((sub, depth + 1) for sub in reversed(subdirectories))
    return found, problems


def _entry_kind(entry: os.DirEntry, full: str, top: str) -> str:
    """What a directory entry is to the walk: ``directory`` (walked), ``file`` (anything
    else, judged by its name) or ``outside`` (a symlink to a directory outside the tree,
    not followed)."""
    try:
        if entry.is_dir(follow_symlinks=False):
            return "directory"
        if not (entry.is_symlink() and entry.is_dir()):
            return "file"
    except OSError:  # a link loop or an unreadable link is not a directory to walk
        return "file"
    target = resolved_path(full)
    if target is None or not _inside(target, top):
        return "outside"
    return "directory"


def _inside(path: str, top: str) -> bool:
    path, top = os.path.normcase(path), os.path.normcase(top)
    return path == top or path.startswith(top.rstrip(os.sep) + os.sep)


def _excluded(path: str, patterns: tuple[str, ...]) -> bool:
    if not patterns:
        return False
    normalized = os.path.normpath(path)
    return any(
        fnmatch.fnmatch(normalized, pattern) or fnmatch.fnmatch(os.path.basename(normalized), pattern)
        for pattern in patterns
    )
