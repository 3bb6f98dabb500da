"""The files fixes edit: read as the loaders read them, and proved unchanged before a write.

A loader decodes a file as UTF-8 without its byte order mark (``source.decode``) and locates
everything in that text. The engine records a digest of the text each fix was planned
on; ``--fix`` reads the file again, refuses it when the digest differs (the file changed
since it was linted: the edits would land in the wrong place), and writes the edited
text back with the mark the file had.
"""

from __future__ import annotations

import binascii
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

from fanout_lint.files.regular_files import HCL_FILE_BYTES, TEMPLATE_BYTES, read_bounded
from fanout_lint.fixes.positions import is_hcl
from fanout_lint.model.record import ValueRecord
from fanout_lint.results.records import Finding

if TYPE_CHECKING:
    from typing import Iterable

BOM = b"\xef\xbb\xbf"
STALE = ""  # the digest of a file two units read with different contents


def digest(text: str) -> str:
    """A check value of the text: its length and CRC-32. It tells a file that changed
    since it was read (an editor saved it, a formatter ran) from one that did not; it is
    no defence against whoever writes the file, who can write anything anyway. Every
    linted file with a fixable finding is digested, so it costs no import (hashlib's
    is a few milliseconds of every run)."""
    data = text.encode("utf-8", "surrogatepass")
    return f"{len(data)}:{binascii.crc32(data):08x}"


def planned_on(sources: dict[str, str], findings: Iterable[Finding]) -> dict[str, str]:
    """file -> digest of the text the findings' fixes were planned on."""
    files = {edit.file for f in findings if f.fix is not None for edit in f.fix.edits}
    return {file: digest(sources[file]) for file in files if file in sources}


def merge(into: dict[str, str], other: dict[str, str]) -> None:
    """Digests of several units: a file read twice with different contents is stale."""
    for file, value in other.items():
        if into.get(file, value) != value:
            into[file] = STALE
        else:
            into[file] = value


class SourceError(Exception):
    """A file fixes cannot be written to; the message says why, in one line."""


@dataclass(eq=False, repr=False)
class Source(ValueRecord):
    """A file fixes are planned on: its text as read, and whether it began with a BOM."""

    path: str
    text: str
    bom: bool

    def encoded(self, text: str) -> bytes:
        return (BOM if self.bom else b"") + text.encode("utf-8", "surrogatepass")


def read_source(path: str, expected: str | None) -> Source:
    """The file as the loader read it, when it still is what the fixes were planned on."""
    if os.path.islink(path):
        raise SourceError("is a symbolic link; not edited")
    try:
        data = read_bounded(path, HCL_FILE_BYTES if is_hcl(path) else TEMPLATE_BYTES, follow=False)
    except OSError as exc:
        raise SourceError(f"cannot read: {exc.strerror or exc}") from None
    bom = data.startswith(BOM)
    try:
        text = data[len(BOM):].decode("utf-8") if bom else data.decode("utf-8")
    except UnicodeDecodeError:
        raise SourceError("changed since it was read (no longer UTF-8); not fixed") from None
    if expected is None or expected == STALE or digest(text) != expected:
        raise SourceError("changed since it was read; not fixed")
    return Source(path, text, bom)
