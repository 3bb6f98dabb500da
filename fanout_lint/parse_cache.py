"""Parsed files kept between runs, found by the hash of their bytes.

A pre-commit run on one changed ``.tf`` file lints its whole directory; with this cache
only the changed file is parsed again. Entries live in the user's cache directory
(``$XDG_CACHE_HOME/fanout-lint``, by default ``~/.cache/fanout-lint``), which is safe to
delete at any time. They are pickles, and a pickle is only as good as the code that reads
it, so entries are never shared across versions: each lives under a directory named for
everything the parsed value depends on (``namespace``: this package's version, Python's,
the grammar, Lark, the module that shapes the tree), and a run reads only its own.
Anything wrong with an entry (missing, truncated, unreadable, of another type) is a miss;
a cache that cannot be written is no cache, never a failed run.

The cache is bounded: entries are spread over ``SHARDS`` directories by their hash, and
writing one trims its shard to ``MAX_BYTES / SHARDS``, least recently used first (a hit
refreshes an entry's time), so a write costs a listing of one small directory. A new
namespace removes the others.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

MAX_BYTES = 64 * 1024 * 1024
SHARDS = 16  # by the first hex digit of the hash
_PREFIX = "v-"  # namespace directories; nothing else under the root is touched


def user_cache_dir(environ) -> str:
    """fanout-lint's directory in the user's cache directory (XDG base directories)."""
    base = environ.get("XDG_CACHE_HOME") or ""
    if not os.path.isabs(base):  # the specification says to ignore a relative path
        base = os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "fanout-lint")


def in_ci(environ) -> bool:
    """CI services set ``CI``; a CI run starts from a fresh checkout and must not depend on
    (or leave) state outside it."""
    return environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


@dataclass(frozen=True)
class ParseCache:
    """A cache directory (passed to the loaders; picklable for worker processes)."""

    root: str

    def get(self, namespace: str, data: bytes):
        """The value stored for ``data`` in ``namespace``, or None."""
        import pickle

        path = self._entry(namespace, data)
        try:
            with open(path, "rb") as handle:
                value = pickle.load(handle)
        except FileNotFoundError:
            return None
        except Exception:  # truncated, corrupt, or written by code that no longer exists
            _remove(path)
            return None
        try:
            os.utime(path)  # recently used: trimmed last
        except OSError:
            pass
        return value

    def put(self, namespace: str, data: bytes, value) -> None:
        """Store ``value`` for ``data``; silently nothing when the cache cannot be written."""
        import pickle

        path = self._entry(namespace, data)
        shard = os.path.dirname(path)
        try:
            payload = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception:
            return
        if len(payload) > MAX_BYTES // SHARDS:
            return
        try:
            if not os.path.isdir(shard):
                self._new_namespace(namespace)
                os.makedirs(shard, exist_ok=True)
            temporary = f"{path}.{os.getpid()}.tmp"
            with open(temporary, "wb") as handle:
                handle.write(payload)
            os.replace(temporary, path)  # readers see a whole entry or none
        except OSError:
            _remove(f"{path}.{os.getpid()}.tmp")
            return
        _trim(shard, MAX_BYTES // SHARDS)

    def _entry(self, namespace: str, data: bytes) -> str:
        import hashlib

        digest = hashlib.sha256(data).hexdigest()
        return os.path.join(self.root, _PREFIX + namespace, digest[0], digest[1:])

    def _new_namespace(self, namespace: str) -> None:
        """Remove the entries of other versions: no run of this one reads them."""
        import shutil

        try:
            names = os.listdir(self.root)
        except OSError:
            return
        for name in names:
            if name.startswith(_PREFIX) and name != _PREFIX + namespace:
                shutil.rmtree(os.path.join(self.root, name), ignore_errors=True)


def open_cache(environ, disabled: bool = False) -> ParseCache | None:
    """The run's cache: None with ``--no-cache`` and in CI."""
    if disabled or in_ci(environ):
        return None
    return ParseCache(user_cache_dir(environ))


def _trim(shard: str, limit: int) -> None:
    try:
        entries = []
        with os.scandir(shard) as listing:
            for entry in listing:
                stat = entry.stat(follow_symlinks=False)
                entries.append((stat.st_mtime, stat.st_size, entry.path))
    except OSError:
        return
    total = sum(size for _, size, _ in entries)
    for _, size, path in sorted(entries):
        if total <= limit:
            break
        _remove(path)
        total -= size


def _remove(path: str) -> None:
    try:
        os.remove(path)
    except OSError:
        pass
