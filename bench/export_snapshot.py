"""Export a commit of a local bare clone into a directory, file by file.

Usage: python bench/export_snapshot.py GIT_DIR COMMIT DEST [GLOB ...]

``git archive`` stops at the first blob a partial snapshot lacks; the shakedown only needs
the templates, so this writes every blob of the tree that matches one of the globs (all,
when none is given; ``*`` matches across ``/``, as in ``fnmatch``), skips the blobs the
clone does not hold and says how many. Symbolic links and submodules are not written.
It never fetches: GIT_DIR is a clone already on disk.
"""

from __future__ import annotations

import fnmatch
import os
import subprocess
import sys
from dataclasses import dataclass


@dataclass(frozen=True)
class Entry:
    path: str
    sha: str


@dataclass(frozen=True)
class Exported:
    written: int
    missing: int


def tree_blobs(git_dir: str, commit: str, globs: list[str]) -> list[Entry]:
    listing = subprocess.run(
        ["git", "--git-dir", git_dir, "ls-tree", "-r", "-z", commit], capture_output=True, check=True
    ).stdout
    entries = []
    for record in listing.split(b"\0"):
        if not record:
            continue
        meta, raw_path = record.split(b"\t", 1)
        mode, kind, sha = meta.split()
        if kind != b"blob" or mode == b"120000":
            continue
        path = raw_path.decode("utf-8", "surrogateescape")
        if globs and not any(fnmatch.fnmatchcase(path, pattern) for pattern in globs):
            continue
        entries.append(Entry(path, sha.decode()))
    return entries


def export(git_dir: str, commit: str, dest: str, globs: list[str]) -> Exported:
    entries = tree_blobs(git_dir, commit, globs)
    root = os.path.realpath(dest)
    written = missing = 0
    with subprocess.Popen(
        ["git", "--git-dir", git_dir, "cat-file", "--batch"], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    ) as batch:
        assert batch.stdin is not None and batch.stdout is not None
        for entry in entries:
            batch.stdin.write(entry.sha.encode() + b"\n")
            batch.stdin.flush()
            header = batch.stdout.readline().split()
            if header[-1] == b"missing":
                missing += 1
                continue
            data = batch.stdout.read(int(header[2]))
            batch.stdout.read(1)  # the newline after each object
            target = os.path.realpath(os.path.join(root, entry.path))
            if not target.startswith(root + os.sep):  # git refuses such paths; be sure anyway
                continue
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "wb") as handle:
                handle.write(data)
            written += 1
        batch.stdin.close()
    return Exported(written, missing)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) < 3:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    git_dir, commit, dest, *globs = args
    result = export(git_dir, commit, dest, globs)
    print(f"{dest}: {result.written} files written, {result.missing} missing from the clone")
    return 0


if __name__ == "__main__":
    sys.exit(main())
