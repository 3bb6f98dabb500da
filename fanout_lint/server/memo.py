"""What the server keeps between the lints of a folder: the link facts of its templates,
and the bytes they were read from.

A lint of a template named in a repository looks at every template of the repository for
the exports, imports and nested stacks that link it (``run/link_plan.plan``); reading
those facts is most of the time of a lint of one file. Those of a template that nests
no stack depend only on the file's path, its bytes and its place (the CDK stack name, the
repository), all in the key, so a change re-reads the facts of the file that changed, and
a template changed on disk is a new key; a template that nests stacks is read every time
(whether its children are there is the disk's). The memo holds at most ``MAX_BYTES`` of the templates' bytes, least recently
used first out.

Reading every template's bytes to see whether it changed is then most of a change's
time, so the bytes (and what is derived from them alone, such as the words that may link
them) are kept too, by the file's ``regular_files.signature``: its inode, size and
modification and change times, which every write changes. A file whose signature
changed is read afresh; an unsaved buffer has no signature and is never kept. At most
``MAX_FILE_BYTES`` are kept this way, least recently used first out."""

from __future__ import annotations

from collections import OrderedDict
from typing import Callable

from fanout_lint.files.regular_files import signature

MAX_BYTES = 64 * 1024 * 1024
MAX_FILE_BYTES = 64 * 1024 * 1024


class FactsMemo:
    """A bounded mapping for ``run/link_plan.plan``'s ``memo``: ``get`` and item assignment."""

    def __init__(self, max_bytes: int = MAX_BYTES, max_file_bytes: int = MAX_FILE_BYTES):
        self.max_bytes = max_bytes
        self._kept: OrderedDict = OrderedDict()
        self._bytes = 0
        self.max_file_bytes = max_file_bytes
        # path -> (signature, bytes, what was derived from the bytes alone)
        self._files: OrderedDict[str, tuple[tuple, bytes, dict]] = OrderedDict()
        self._file_bytes = 0

    def file(self, path: str, read: Callable[[str], bytes]) -> tuple[bytes, dict]:
        """The bytes of ``path`` (``read`` when they are not kept or the file changed),
        and a dict for what the caller derives from those bytes alone."""
        sign = signature(path)
        if sign is None:
            return read(path), {}
        kept = self._files.get(path)
        if kept is not None and kept[0] == sign:
            self._files.move_to_end(path)
            return kept[1], kept[2]
        data = read(path)
        if kept is not None:
            self._file_bytes -= len(kept[1])
            del self._files[path]
        derived: dict = {}
        if len(data) <= self.max_file_bytes:
            self._files[path] = (sign, data, derived)
            self._file_bytes += len(data)
            while self._file_bytes > self.max_file_bytes:
                _, (_, dropped, _) = self._files.popitem(last=False)
                self._file_bytes -= len(dropped)
        return data, derived

    def __len__(self) -> int:
        return len(self._kept)

    def get(self, key):
        found = self._kept.get(key)
        if found is not None:
            self._kept.move_to_end(key)
        return found

    def __setitem__(self, key, value) -> None:
        size = len(key[-1])  # the key ends with the file's bytes
        if size > self.max_bytes:
            return
        if key in self._kept:
            self._kept.move_to_end(key)
            self._kept[key] = value
            return
        self._kept[key] = value
        self._bytes += size
        while self._bytes > self.max_bytes:
            dropped, _ = self._kept.popitem(last=False)
            self._bytes -= len(dropped[-1])
