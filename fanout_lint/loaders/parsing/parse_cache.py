"""Parsed files kept within a run and between runs, found by the hash of their bytes.

Within a run, a local module called from several places is parsed once, not once per
call. A pre-commit run on one changed ``.tf`` file lints its whole directory; with the
cache directory only the changed file is parsed again. Entries live in the user's cache directory
(``$XDG_CACHE_HOME/fanout-lint``, by default ``~/.cache/fanout-lint``), never in the
installed package, and the directory is safe to delete at any time.

An entry is data, not code: a header line, then JSON of plain lists, strings and numbers
(``hcl_tree_data`` turns a parsed file into that and back, checking every item), so
whatever sits at an entry's path, reading it can run nothing. The header is the entry's
key: a hash of the format, the namespace (``namespace``: everything the parsed value
depends on, the package's version, Python's, the grammar, Lark, the modules that shape
the tree) and the hash of the source bytes, checked before the JSON is read. Entries of
other versions live under other namespace directories, and a new namespace removes the
others. Anything wrong with an entry (missing, not a regular file, too large, another
key, truncated, not JSON, not a tree) is a miss, and the entry is written again after
the parse; an entry is opened without following a symbolic link and without blocking
(a FIFO is refused after ``fstat``, never read). Writes go to a temporary file of mode
0600 in the entry's directory, then a rename: readers see a whole entry or none.

Whoever can write the directory decides what a run reads from it, so it must be the
user's own: owned by them and writable by nobody else (as the namespace and shard
directories under it, which are made with mode 0700). Otherwise ``open_cache`` turns the
directory off with one warning. A directory that cannot be written is no cache, never a
failed run. ``--no-cache`` and CI (``CI=true``) keep only the memory part: nothing is
read from or written to disk.

The cache is bounded: entries are spread over ``SHARDS`` directories by their hash, and
writing one trims its shard to ``MAX_BYTES / SHARDS``, least recently used first (a hit
refreshes an entry's time), so a write costs a listing of one small directory. No entry
is larger than a shard's share.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from collections import OrderedDict

MAX_BYTES = 64 * 1024 * 1024  # on disk
MEMORY_BYTES = 4 * 1024 * 1024  # of source text, in memory (see ParseCache)
SHARDS = 16  # by the first hex digit of the hash
FORMAT = "fanout-lint-parse-cache/1"  # what an entry's bytes mean: part of its key and its directory
_PREFIX = "v-"  # namespace directories; nothing else under the root is touched
_SUFFIX = ".1"  # of namespace directories: the format (the pickles of earlier versions are under others)

_READ_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NOFOLLOW", 0)  # a symbolic link at an entry's path is not followed
    | getattr(os, "O_NONBLOCK", 0)  # a FIFO opens without waiting for a writer, then fstat refuses it
    | getattr(os, "O_NOCTTY", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)
_WRITE_FLAGS = (
    os.O_WRONLY | os.O_CREAT | os.O_EXCL
    | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
)


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


def directory_problem(path: str, follow: bool = True) -> str | None:
    """Why ``path`` cannot hold the cache (None: it can, or does not exist yet): it must
    be a directory of the current user that nobody else can write. ``follow``: the root
    may be a symbolic link the user made; the directories under it are ours, never links."""
    try:
        info = os.stat(path) if follow else os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"cannot be read ({exc.strerror or exc})"
    if not stat.S_ISDIR(info.st_mode):
        return "is not a directory"
    owner = getattr(os, "geteuid", None)
    if owner is not None and info.st_uid != owner():
        return "is not owned by you"
    if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return "is writable by group or others (chmod go-w, or remove it)"
    return None


def _as_is(value):
    return value


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
        self._trusted: dict[str, bool] = {}  # directory -> whether it passed directory_problem

    def __repr__(self) -> str:
        return f"ParseCache({self.root!r})"

    def __eq__(self, other) -> bool:
        return isinstance(other, ParseCache) and other.root == self.root

    __hash__ = None

    def __getstate__(self) -> dict:
        return {"root": self.root}  # the memory stays in this process

    def __setstate__(self, state: dict) -> None:
        self.__init__(state["root"])

    def get(self, kind: str, data: bytes, version, decode=_as_is):
        """The value stored for ``data`` (of ``kind``, say "hcl"), or None. ``version()``
        names what the value depends on (see the module's docstring); it is asked only
        when the directory is read, as is the hash of ``data``: a run without a directory
        needs neither (OpenSSL alone takes milliseconds to load). ``decode`` makes the
        value of an entry's JSON, raising on anything it would not have written."""
        kept = self._memory.get((kind, data))
        if kept is not None:
            self._memory.move_to_end((kind, data))
            return kept
        if self.root is None:
            return None
        path, key = self._entry(f"{kind}-{version()}", data)
        value = self._read(path, key, decode)
        if value is not None:
            self._remember(kind, data, value)
        return value

    def put(self, kind: str, data: bytes, version, value, encode=_as_is) -> None:
        """Store ``value`` for ``data``; only in memory when the directory cannot be
        written. ``encode`` makes plain data of it for ``json``."""
        self._remember(kind, data, value)
        if self.root is not None:
            namespace = f"{kind}-{version()}"
            path, key = self._entry(namespace, data)
            self._write(namespace, path, key, value, encode)

    def _remember(self, kind: str, data: bytes, value) -> None:
        size = len(data)
        if size > MEMORY_BYTES:
            return
        self._memory[(kind, data)] = value  # the bytes are the key: hashed once, by Python
        self._memory_bytes += size
        while self._memory_bytes > MEMORY_BYTES:
            (_, dropped), _ = self._memory.popitem(last=False)
            self._memory_bytes -= len(dropped)

    def _read(self, path: str, key: bytes, decode):
        if not self._safe(os.path.dirname(path)):
            return None
        raw = _read_entry(path, MAX_BYTES // SHARDS)
        if raw is None:
            return None
        header, _, payload = raw.partition(b"\n")
        if header != key:  # another format, version or source, or damaged
            return None
        try:
            value = decode(json.loads(payload))
        except Exception:  # truncated, corrupt, or not what this version writes: a miss
            return None
        try:
            os.utime(path, follow_symlinks=False)  # recently used: trimmed last
        except (OSError, NotImplementedError):
            pass
        return value

    def _write(self, namespace: str, path: str, key: bytes, value, encode) -> None:
        shard = os.path.dirname(path)
        try:
            payload = key + b"\n" + json.dumps(encode(value), separators=(",", ":"), check_circular=False).encode()
        except (TypeError, ValueError, RecursionError):  # not data this cache can hold
            return
        if len(payload) > MAX_BYTES // SHARDS:
            return
        temporary = os.path.join(shard, f".{os.path.basename(path)}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
        try:
            if not os.path.isdir(shard):
                self._new_namespace(namespace)
                _make_private(shard, self.root)
            if not self._safe(shard):
                return
            fd = os.open(temporary, _WRITE_FLAGS, 0o600)
            try:
                with os.fdopen(fd, "wb") as handle:
                    handle.write(payload)
            except BaseException:
                _remove(temporary)
                raise
            os.replace(temporary, path)  # readers see a whole entry or none; a FIFO there is replaced
        except OSError:
            _remove(temporary)
            return
        _trim(shard, MAX_BYTES // SHARDS)

    def _safe(self, shard: str) -> bool:
        """Whether the root, the namespace directory and ``shard`` are the user's alone;
        each is checked once per process (a worker checks again)."""
        namespace = os.path.dirname(shard)
        for directory, follow in ((self.root, True), (namespace, False), (shard, False)):
            trusted = self._trusted.get(directory)
            if trusted is None:
                if not os.path.isdir(directory):
                    return False  # not there (yet): nothing to read, and not remembered
                trusted = self._trusted[directory] = directory_problem(directory, follow) is None
            if not trusted:
                return False
        return True

    def _entry(self, namespace: str, data: bytes) -> tuple[str, bytes]:
        """The entry's path and its key (its first line)."""
        digest = _digest(data)
        key = f"{FORMAT} {_digest(chr(0).join((FORMAT, namespace, digest)).encode())}".encode()
        return os.path.join(self.root, _PREFIX + namespace + _SUFFIX, digest[0], digest[1:]), key

    def _new_namespace(self, namespace: str) -> None:
        """Remove the entries of other versions: no run of this one reads them."""
        import shutil  # it imports zlib, bz2 and lzma: only when a new version starts its cache

        try:
            names = os.listdir(self.root)
        except OSError:
            return
        for name in names:
            if name.startswith(_PREFIX) and name != _PREFIX + namespace + _SUFFIX:
                shutil.rmtree(os.path.join(self.root, name), ignore_errors=True)


def open_cache(environ, disabled: bool = False, warn=None) -> ParseCache:
    """The run's cache: in memory only with ``--no-cache``, in CI, and when the directory
    is not the user's alone (then ``warn`` is told why, in one line)."""
    if disabled or in_ci(environ):
        return ParseCache(None)
    root = user_cache_dir(environ)
    problem = directory_problem(root)
    if problem is not None:
        if warn is not None:
            warn(f"the parse cache is off: {root} {problem}")
        return ParseCache(None)
    return ParseCache(root)


def _make_private(directory: str, root: str) -> None:
    """``directory`` and those above it up to ``root``, made with mode 0700 (``makedirs``
    gives the ones above the last the umask's default, often group-writable)."""
    os.makedirs(os.path.dirname(root), exist_ok=True)
    for path in (root, os.path.dirname(directory), directory):
        try:
            os.mkdir(path, 0o700)
        except FileExistsError:
            pass


def _read_entry(path: str, limit: int) -> bytes | None:
    """The bytes of the regular file at ``path``, or None: not there, a link, a FIFO, a
    device, a directory, another user's, or larger than ``limit``."""
    try:
        fd = os.open(path, _READ_FLAGS)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        owner = getattr(os, "geteuid", None)
        if not stat.S_ISREG(info.st_mode) or info.st_size > limit or (owner is not None and info.st_uid != owner()):
            return None
        chunks = []
        total = 0
        while total <= limit:
            chunk = os.read(fd, limit + 1 - total)
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
    except OSError:
        return None
    finally:
        os.close(fd)
    return None if total > limit else b"".join(chunks)


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _trim(shard: str, limit: int) -> None:
    try:
        entries = []
        with os.scandir(shard) as listing:
            for entry in listing:
                stat_result = entry.stat(follow_symlinks=False)
                entries.append((stat_result.st_mtime, stat_result.st_size, entry.path))
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
