"""Reading and writing files a pull request may have planted: bounded, regular, atomic.

Every file the linter reads goes through ``read_bounded``: its kind and size are checked
before a byte is read, so a FIFO named ``template.yaml`` cannot hang a run, ``/dev/zero``
cannot fill memory, and a 3 GB sparse file costs two system calls. Reports and
baselines are written with ``write_atomic``, so a full disk never leaves half a file.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from types import MappingProxyType

KIB = 1024
MIB = 1024 * KIB

# The limits are set from the peak memory a parse takes per byte of input (measured with
# getrusage in a fresh process, Python 3.11, on the worst shapes: lists and maps of
# one-character items), so that one unit stays within a few hundred MB.
#
# YAML and JSON: realistic templates and plans hold 11-28x their size, one huge block
# scalar 5x, but a flow list of one-character items about 90x. CloudFormation itself
# refuses templates over 1 MB; plans are the large files. So the limit is set for large
# plans (about 700 MB at 64 MiB); the dense worst case (about 6 GB) needs a bound on the
# number of nodes in the parser, which bytes alone cannot give.
TEMPLATE_BYTES = 64 * MIB
# HCL: python-hcl2's Lark tree costs about 120x for realistic files and up to 850x for a
# list of small objects, and parses at 20-40 s per MB. 512 KiB is far beyond hand-written
# Terraform and peaks near 450 MB; what stays after a parse is ~65x, and the unit total
# (root, local modules each time they are loaded, tfvars) bounds that and the time: a
# unit of eight worst-case 512 KiB files peaked at 730 MB and took two minutes.
HCL_FILE_BYTES = 512 * KIB
HCL_UNIT_BYTES = 4 * MIB
# Configuration files are a few KB; tomllib holds about 120x on the worst 1 MiB tested.
CONFIG_BYTES = 1 * MIB
# A baseline entry is about 250 bytes, so this is over 100,000 recorded findings;
# json.loads holds at most ~25x.
BASELINE_BYTES = 32 * MIB

_READ_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)  # a FIFO swapped in after the stat opens without a writer
    | getattr(os, "O_NOCTTY", 0)
    | getattr(os, "O_BINARY", 0)
)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CHUNK = 1 * MIB
# Text that stands in for files' content on disk, by each file's resolved path: what an
# editor sends on standard input with ``--stdin-filename``, or the unsaved buffers of the
# language server. Scoped to one block of one thread (``overlaid``): a context variable is
# each thread's own, so the server's lints and the command line never see each other's.
_NO_OVERLAY: Mapping[str, bytes] = MappingProxyType({})  # read-only: a shared default cannot be changed
_OVERLAY: ContextVar[Mapping[str, bytes]] = ContextVar("fanout_lint_overlay", default=_NO_OVERLAY)


@contextmanager
def overlaid(overlay: Mapping[str, bytes]) -> Iterator[None]:
    """For the block, in this thread, ``overlay[resolved path]`` is that file's content.

    The keys are resolved paths (``resolved_path``); the mapping is read, never changed.
    Worker processes do not inherit it: a run under an overlay is serial (jobs 1)."""
    token = _OVERLAY.set(overlay)
    try:
        yield
    finally:
        _OVERLAY.reset(token)


class FileTooLarge(OSError):
    """A regular file above the limit for its kind; ``size`` and ``limit`` in bytes."""

    def __init__(self, path: str, size: int, limit: int):
        super().__init__(errno.EFBIG, f"file is larger than {describe_size(limit)}", path)
        self.size = size
        self.limit = limit


def describe_size(size: int) -> str:
    if size >= MIB and size % MIB == 0:
        return f"{size // MIB} MiB"
    if size >= KIB and size % KIB == 0:
        return f"{size // KIB} KiB"
    return f"{size:,} bytes"


def read_bounded(path: str, limit: int, follow: bool = True) -> bytes:
    """The bytes of the regular file ``path``; ``OSError`` for anything else or above ``limit``.

    The kind is checked with a stat before opening (opening some devices has effects, a
    FIFO blocks) and again on the opened descriptor, in case the path changed in between.
    At most ``limit + 1`` bytes are read, so a file that grows after the check is still
    refused, not read to its end. ``follow`` False: a symbolic link at ``path`` is refused,
    and the file is opened without following one (``confine.py``). A file whose content
    came on standard input, or an unsaved buffer of the server (``overlaid``), is that
    content, under the same limit.
    """
    overlay = _OVERLAY.get()
    if overlay:
        data = _substitute(overlay, path)
        if data is not None:
            if len(data) > limit:
                raise FileTooLarge(path, len(data), limit)
            return data
    if follow:
        _require_regular(os.stat(path), path)
    else:
        info = os.lstat(path)
        if stat.S_ISLNK(info.st_mode):
            raise OSError(errno.ELOOP, "is a symbolic link (fanout-lint reads no path through one)", path)
        _require_regular(info, path)
    fd = os.open(path, _READ_FLAGS if follow else _READ_FLAGS | _NOFOLLOW)
    try:
        info = os.fstat(fd)
        _require_regular(info, path)
        if info.st_size > limit:
            raise FileTooLarge(path, info.st_size, limit)
        chunks: list[bytes] = []
        total = 0
        expected = info.st_size + 1  # one byte more than stat says shows a growing file
        while total <= limit:
            want = min(limit + 1 - total, max(expected - total, _CHUNK))
            chunk = os.read(fd, want)
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
    finally:
        os.close(fd)
    if total > limit:
        raise FileTooLarge(path, total, limit)
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def signature(path: str) -> tuple[int, int, int, int, int] | None:
    """What changes whenever the regular file ``path`` (not followed) is written: its
    device, inode, size and modification and change times, in nanoseconds. None for
    anything else, for a path that cannot be looked at, and for an overlaid path (its
    content is not the disk's)."""
    try:
        info = os.lstat(path)
    except (OSError, ValueError):
        return None
    if not stat.S_ISREG(info.st_mode):
        return None  # a link too: what it names is looked at when it is read
    overlay = _OVERLAY.get()
    if overlay:
        name = os.path.basename(path)
        if any(key.endswith(name) for key in overlay) and _substitute(overlay, path) is not None:
            return None
    return info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns


def _substitute(overlay: Mapping[str, bytes], path: str) -> bytes | None:
    # Resolving costs a system call per component of the path: a run that reads a whole
    # repository under an overlay resolves only what may be an overlaid file, one of the
    # same name, or a link (a link to a file may name it otherwise)
    name = os.path.basename(path)
    if not any(key.endswith(name) for key in overlay) and not os.path.islink(path):
        return None
    resolved = resolved_path(path)
    return overlay.get(resolved) if resolved is not None else None


def _require_regular(info: os.stat_result, path: str) -> None:
    if not stat.S_ISREG(info.st_mode):
        raise OSError(errno.EINVAL, "not a regular file", path)


def write_atomic(path: str, data: bytes, streams: bool = True) -> None:
    """Replace ``path`` with ``data`` in one step: the old file stays whole if writing fails.

    The bytes go to a temporary file in the same directory (so that ``os.replace`` is a
    rename on one file system), flushed to disk so that a full disk fails here, then
    renamed over ``path``. A symlink at ``path`` is replaced, not written through: a
    pull request cannot point the report at another file. A stream (``/dev/stdout``, a
    pipe, ``/dev/null``) is written to directly, as there is nothing to replace; with
    ``streams`` False (a path inside a repository: ``confine.py``) no link is followed to
    find one, and a link at ``path`` is replaced whatever it names.
    """
    try:
        info = os.stat(path) if streams else os.lstat(path)
    except FileNotFoundError:
        info = None
    if info is not None and not streams and stat.S_ISLNK(info.st_mode):
        info = None  # replaced: the temporary file is renamed over the link itself
    if info is not None and not stat.S_ISREG(info.st_mode):
        if streams and stat.S_ISCHR(info.st_mode) or stat.S_ISFIFO(info.st_mode) or stat.S_ISSOCK(info.st_mode):
            with open(path, "wb") as stream:
                stream.write(data)
            return
        raise OSError(errno.EISDIR if stat.S_ISDIR(info.st_mode) else errno.EINVAL, "not a regular file", path)
    directory = os.path.dirname(path)
    if directory:
        os.makedirs(directory, exist_ok=True)
    temp, fd = _create_temp(directory or ".", os.path.basename(path))
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if info is not None:
            os.chmod(temp, stat.S_IMODE(info.st_mode))  # keep the mode of the file replaced
        os.replace(temp, path)
    except BaseException:
        try:
            os.unlink(temp)
        except OSError:
            pass
        raise


def _create_temp(directory: str, name: str) -> tuple[str, int]:
    # Created like open() would (mode 0o666 less the umask), unlike tempfile's 0o600,
    # so that the report keeps the permissions a plain write gave it.
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    for attempt in range(100):
        temp = os.path.join(directory, f".{name}.{os.getpid()}.{attempt}.tmp")
        try:
            return temp, os.open(temp, flags, 0o666)
        except FileExistsError:
            continue
    raise OSError(errno.EEXIST, "cannot create a temporary file", directory)


def resolved_path(path: str) -> str | None:
    """``os.path.realpath`` of an existing path, or None when the system cannot resolve it.

    Python's realpath recurses once per symlink in a chain, so a chain of a few thousand
    links would raise RecursionError; the kernel refuses chains over 40 links (ELOOP), so
    a path that stats resolves in bounded depth.
    """
    try:
        os.stat(path)
    except (OSError, ValueError):
        return None
    try:
        return os.path.realpath(path)
    except (OSError, ValueError, RecursionError):
        return None
