"""Which files and directories a run lints, and how they group into units.

A CloudFormation or Serverless Framework file is one unit; a Terraform directory (all its
``*.tf``, ``*.tf.json``, and OpenTofu's ``*.tofu`` and ``*.tofu.json``: see
``terraform_files.py``) is one unit; a plan JSON file is one unit. Whether a YAML or JSON file is a template is decided by
its content when it is loaded, so this stage only looks at names, and at the ``module``
blocks of Terraform directories: a directory another unit of the run loads as a local
module is linted inside that unit, with its real inputs, not again on its own.
"""

from __future__ import annotations

import fnmatch
import os
from dataclasses import dataclass

from fanout_lint.module_calls import modules_of_others
from fanout_lint.regular_files import resolved_path
from fanout_lint.terraform_files import suffix_of

# Real repositories stay below 30 levels (deep Java packages reach about 20); a tree
# deeper than this is generated or hostile, and its paths approach PATH_MAX anyway.
MAX_WALK_DEPTH = 100
SKIP_DIRS = {".git", "node_modules", ".terraform", "__pycache__", ".venv", ".tox"}
CFN_SUFFIXES = (".yaml", ".yml", ".json", ".template")


@dataclass(frozen=True)
class Candidate:
    path: str
    # "cloudformation" (a YAML/JSON file: maybe a template, a plan or a Serverless service)
    # | "terraform" (a directory)
    kind: str


@dataclass(frozen=True)
class PathError:
    """A path named or walked that could not be looked at: missing, unreadable, too deep."""

    path: str
    message: str


def discover(paths: list[str], exclude: tuple[str, ...] = ()) -> tuple[list[Candidate], list[PathError]]:
    """The units under ``paths``, and one-line errors for paths that could not be read."""
    candidates: dict[tuple[str, str], Candidate] = {}
    missing: list[PathError] = []
    for path in paths:
        if _excluded(path, exclude):
            continue
        if os.path.isdir(path):
            found, problems = _walk(path, exclude)
            for candidate in found:
                candidates.setdefault(_key(candidate), candidate)
            missing.extend(problems)
        elif os.path.exists(path) or os.path.islink(path):
            candidate = _classify_file(path)
            if candidate:
                candidates.setdefault(_key(candidate), candidate)
        else:
            missing.append(PathError(path, "no such file or directory"))
    terraform = [c.path for c in candidates.values() if c.kind == "terraform"]
    modules = modules_of_others(terraform) if len(terraform) > 1 else set()
    ordered = sorted(
        (c for c in candidates.values() if not (c.kind == "terraform" and c.path in modules)),
        key=lambda c: (c.path, c.kind),
    )
    return ordered, missing


def walk_templates(root: str, exclude: tuple[str, ...] = ()) -> list[str]:
    """The YAML/JSON files below ``root`` that may be templates, as the walk finds them
    (for linking a named template with the rest of its repository; what cannot be
    walked is skipped silently: it is no unit of the run)."""
    found, _ = _walk(root, exclude)
    return [c.path for c in found if c.kind == "cloudformation"]


def _key(candidate: Candidate) -> tuple[str, str]:
    # pre-commit passes every changed configuration file of a directory, and a user may name the same
    # place twice (`dir/`, `dir/main.tf`, `./dir`): each unit is linted once
    return (candidate.kind, os.path.normcase(os.path.abspath(candidate.path)))


def _classify_file(path: str) -> Candidate | None:
    lower = path.lower()
    if suffix_of(os.path.basename(lower)):  # before .json: main.tf.json is Terraform
        return Candidate(os.path.dirname(path) or ".", "terraform")
    if lower.endswith(CFN_SUFFIXES):
        return Candidate(path, "cloudformation")
    return None


def _walk(root: str, exclude: tuple[str, ...]) -> tuple[list[Candidate], list[PathError]]:
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
            full = os.path.join(directory, entry.name)
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
