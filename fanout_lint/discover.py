"""Which files and directories a run lints, and how they group into units.

A CloudFormation file is one unit; a Terraform directory (all its ``*.tf``) is one unit;
a plan JSON file is one unit. Whether a YAML or JSON file is a template is decided by
its content when it is loaded, so this stage only looks at names, and at the ``module``
blocks of Terraform directories: a directory another unit of the run loads as a local
module is linted inside that unit, with its real inputs, not again on its own.
"""

from __future__ import annotations

import fnmatch
import os
from dataclasses import dataclass

from fanout_lint.module_calls import modules_of_others

SKIP_DIRS = {".git", "node_modules", ".terraform", "__pycache__", ".venv", ".tox"}
CFN_SUFFIXES = (".yaml", ".yml", ".json", ".template")


@dataclass(frozen=True)
class Candidate:
    path: str
    kind: str  # "cloudformation" (a YAML/JSON file, maybe a template or plan) | "terraform" (a directory)


@dataclass(frozen=True)
class Missing:
    path: str
    message: str


def discover(paths: list[str], exclude: tuple[str, ...] = ()) -> tuple[list[Candidate], list[Missing]]:
    candidates: dict[tuple[str, str], Candidate] = {}
    missing: list[Missing] = []
    for path in paths:
        if _excluded(path, exclude):
            continue
        if os.path.isdir(path):
            for candidate in _walk(path, exclude):
                candidates.setdefault(_key(candidate), candidate)
        elif os.path.exists(path) or os.path.islink(path):
            candidate = _classify_file(path)
            if candidate:
                candidates.setdefault(_key(candidate), candidate)
        else:
            missing.append(Missing(path, "no such file or directory"))
    terraform = [c.path for c in candidates.values() if c.kind == "terraform"]
    modules = modules_of_others(terraform) if len(terraform) > 1 else set()
    ordered = sorted(
        (c for c in candidates.values() if not (c.kind == "terraform" and c.path in modules)),
        key=lambda c: (c.path, c.kind),
    )
    return ordered, missing


def _key(candidate: Candidate) -> tuple[str, str]:
    # pre-commit passes every changed .tf file of a directory, and a user may name the same
    # place twice (`dir/`, `dir/main.tf`, `./dir`): each unit is linted once
    return (candidate.kind, os.path.normcase(os.path.abspath(candidate.path)))


def _classify_file(path: str) -> Candidate | None:
    lower = path.lower()
    if lower.endswith(".tf"):
        return Candidate(os.path.dirname(path) or ".", "terraform")
    if lower.endswith(CFN_SUFFIXES):
        return Candidate(path, "cloudformation")
    return None


def _walk(root: str, exclude: tuple[str, ...]):
    seen_dirs: set[tuple[int, int]] = set()
    for dirpath, dirnames, filenames in os.walk(root, followlinks=True):
        try:
            stat = os.stat(dirpath)
        except OSError:
            dirnames[:] = []
            continue
        # A symlink loop would walk forever: visit each real directory once.
        key = (stat.st_dev, stat.st_ino)
        if key in seen_dirs:
            dirnames[:] = []
            continue
        seen_dirs.add(key)
        dirnames[:] = sorted(
            d for d in dirnames
            if d not in SKIP_DIRS
            and not (os.path.basename(dirpath) == "cdk.out" and d.startswith("asset."))
            and not _excluded(os.path.join(dirpath, d), exclude)
        )
        has_tf = False
        for name in sorted(filenames):
            full = os.path.join(dirpath, name)
            if _excluded(full, exclude):
                continue
            if name.lower().endswith(".tf"):
                has_tf = True
            elif name.lower().endswith(CFN_SUFFIXES):
                yield Candidate(full, "cloudformation")
        if has_tf:
            yield Candidate(dirpath, "terraform")


def _excluded(path: str, patterns: tuple[str, ...]) -> bool:
    if not patterns:
        return False
    normalized = os.path.normpath(path)
    return any(
        fnmatch.fnmatch(normalized, pattern) or fnmatch.fnmatch(os.path.basename(normalized), pattern)
        for pattern in patterns
    )
