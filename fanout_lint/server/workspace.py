"""The folders of the workspace and the buffers the editor has open in them."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from fanout_lint.files.regular_files import resolved_path


@dataclass(eq=False)
class Buffer:
    """An open document: its text as the editor holds it, and the editor's version. A
    change makes a new one, so a lint's snapshot stays whole."""

    uri: str
    path: str  # absolute
    text: str
    version: int | None = None


@dataclass(eq=False)
class Workspace:
    """The workspace folders (absolute paths) and the open buffers, by path."""

    folders: list[str] = field(default_factory=list)
    buffers: dict[str, Buffer] = field(default_factory=dict)

    def folder_of(self, path: str) -> str | None:
        """The innermost folder holding ``path``; None for a file outside every folder."""
        best = None
        for folder in self.folders:
            inside = path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)
            if inside and (best is None or len(folder) > len(best)):
                best = folder
        return best

    def open_in(self, folder: str) -> list[Buffer]:
        """The open buffers of ``folder`` (not those of a folder nested in it), by path."""
        return [b for p, b in sorted(self.buffers.items()) if self.folder_of(p) == folder]

    def add_folder(self, path: str) -> None:
        path = os.path.abspath(path)
        if path not in self.folders:
            self.folders.append(path)

    def remove_folder(self, path: str) -> None:
        path = os.path.abspath(path)
        if path in self.folders:
            self.folders.remove(path)


def overlay(buffers: list[Buffer]) -> dict[str, bytes]:
    """Resolved path -> the buffer's bytes, for the buffers of files that exist on disk
    (a buffer never saved has no place in the repository yet)."""
    laid: dict[str, bytes] = {}
    for buffer in buffers:
        resolved = resolved_path(buffer.path)
        if resolved is not None:
            laid[resolved] = buffer.text.encode("utf-8", "surrogatepass")
    return laid
