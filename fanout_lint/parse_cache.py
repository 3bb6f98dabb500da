"""Parsed files kept within a run and between runs, found by the hash of their bytes.

Within a run, a local module called from several places is parsed once, not once per
call. A pre-commit run on one changed ``.tf`` file lints its whole directory; with the
cache directory only the changed file is parsed again. Entries live in the user's cache directory
(``$XDG_CACHE_HOME/fanout-lint``, by default ``~/.cache/fanout-lint``), which is safe to
delete at any time. They are pickles, and a pickle is only as good as the code that reads
it, so entries are never shared across versions: each lives under a directory named for
everything the parsed value depends on (``namespace``: this package's version, Python's,
the grammar, Lark, the module that shapes the tree), and a run reads only its own.
Anything wrong with an entry (missing, truncated, unreadable, of another type) is a miss;
a directory that cannot be written is no cache, never a failed run. ``--no-cache`` and
CI (``CI=true``) keep only the memory part: nothing is read from or written to disk.

The cache is bounded: entries are spread over ``SHARDS`` directories by their hash, and
writing one trims its shard to ``MAX_BYTES / SHARDS``, least recently used first (a hit
refreshes an entry's time), so a write costs a listing of one small directory. A new
namespace removes the others.
"""

from __future__ import annotations

import os
from collections import OrderedDict

MAX_BYTES = 64 * 1024 * 1024  # on disk
MEMORY_BYTES = 4 * 1024 * 1024  # of source text, in memory (see ParseCache)
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


class ParseCache:
    """Parsed files of this run in memory, and of earlier runs in ``root`` (None: none).

    Within a run the same file is often loaded many times: a module called from several
    places, or from each of a repository's examples, is read once per call. The memory
    part keeps the most recently parsed files, at most ``MEMORY_BYTES`` of their text
    (parsed, a file holds about 65 times its size: the bound of one unit's files, see
    ``regular_files.HCL_UNIT_BYTES``). Passed to the loaders through the settings; a
    worker process gets its own, empty.
    """

    def __init__(self, root: str | None = None):
        self.root = root
        self._memory: OrderedDict = OrderedDict()  # (kind, bytes) -> value
        self._memory_bytes = 0

    def __repr__(self) -> str:
        return f"ParseCache({self.root!r})"

    def __eq__(self, other) -> bool:
        return isinstance(other, ParseCache) and other.root == self.root

    __hash__ = None

    def __getstate__(self) -> dict:
        return {"root": self.root}  # the memory stays in this process

    def __setstate__(self, state: dict) -> None:
        self.__init__(state["root"])

    def get(self, kind: str, data: bytes, version):
        """The value stored for ``data`` (of ``kind``, say "hcl"), or None. ``version()``
        names what the value depends on (see the module's docstring); it is asked only
        when the directory is read, as is the hash of ``data``: a run without a directory
        needs neither (OpenSSL alone takes milliseconds to load)."""
        kept = self._memory.get((kind, data))
        if kept is not None:
            self._memory.move_to_end((kind, data))
            return kept
        if self.root is None:
            return None
        value = self._read(self._entry(f"{kind}-{version()}", data))
        if value is not None:
            self._remember(kind, data, value)
        return value

    def put(self, kind: str, data: bytes, version, value) -> None:
        """Store ``value`` for ``data``; only in memory when the directory cannot be
        written."""
        self._remember(kind, data, value)
        if self.root is not None:
            namespace = f"{kind}-{version()}"
            self._write(namespace, self._entry(namespace, data), value)

    def _remember(self, kind: str, data: bytes, value) -> None:
        size = len(data)
        if size > MEMORY_BYTES:
            return
        self._memory[(kind, data)] = value  # the bytes are the key: hashed once, by Python
        self._memory_bytes += size
        while self._memory_bytes > MEMORY_BYTES:
            (_, dropped), _ = self._memory.popitem(last=False)
            self._memory_bytes -= len(dropped)

    def _read(self, path: str):
        import pickle

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

    def _write(self, namespace: str, path: str, value) -> None:
        import pickle

        shard = os.path.dirname(path)
        try:
            payload = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception:
            return
        if len(payload) > MAX_BYTES // SHARDS:
            return
        temporary = f"{path}.{os.getpid()}.tmp"
        try:
            if not os.path.isdir(shard):
                self._new_namespace(namespace)
                os.makedirs(shard, exist_ok=True)
            with open(temporary, "wb") as handle:
                handle.write(payload)
            os.replace(temporary, path)  # readers see a whole entry or none
        except OSError:
            _remove(temporary)
            return
        _trim(shard, MAX_BYTES // SHARDS)

    def _entry(self, namespace: str, data: bytes) -> str:
        digest = _digest(data)
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


def open_cache(environ, disabled: bool = False) -> ParseCache:
    """The run's cache: in memory only with ``--no-cache`` and in CI."""
    if disabled or in_ci(environ):
        return ParseCache(None)
    return ParseCache(user_cache_dir(environ))


def _digest(data: bytes) -> str:
    import hashlib  # OpenSSL: only when there is something to look up

    return hashlib.sha256(data).hexdigest()


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
