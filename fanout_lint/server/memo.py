"""What the server keeps between the lints of a folder: the link facts of its templates.

A lint of a template named in a repository looks at every template of the repository for
the exports, imports and nested stacks that link it (``applications.plan``); reading
those facts is most of the time of a lint of one file. Those of a template that nests
no stack depend only on the file's path, its bytes and its place (the CDK stack name, the
repository), all in the key, so a change re-reads the facts of the file that changed, and
a template changed on disk is a new key; a template that nests stacks is read every time
(whether its children are there is the disk's). The memo holds at most ``MAX_BYTES`` of the templates' bytes, least recently
used first out."""

from __future__ import annotations

from collections import OrderedDict

MAX_BYTES = 64 * 1024 * 1024


class FactsMemo:
    """A bounded mapping for ``applications.plan``'s ``memo``: ``get`` and item assignment."""

    def __init__(self, max_bytes: int = MAX_BYTES):
        self.max_bytes = max_bytes
        self._kept: OrderedDict = OrderedDict()
        self._bytes = 0

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
