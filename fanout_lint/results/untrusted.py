"""Untrusted text: every string taken from a linted file or its name passes ``clean`` once.

On a pull request the author controls every template, so logical IDs, Terraform labels,
property values quoted in messages and file names are untrusted. The output records
(``Finding``, ``Related``, ``LoadError``, ``Notice``, ``Suppressed`` and the topology view's
nodes, edges and clusters) clean their text fields when they are constructed, so every
renderer, stderr included, starts from text that is one line and shows no invisible
character. A renderer adds only the escaping its own syntax needs.

``clean`` keeps printable text as it is (the common case, checked at C speed by
``str.isprintable``). Otherwise a lone surrogate (from a JSON ``"\\ud800"`` or from a file
name that is not valid UTF-8, which ``os.listdir`` hands over surrogate-escaped) becomes
U+FFFD, and every other non-printable character, which is what ``isprintable`` rejects
(C0 and C1 controls, DEL, newlines, tabs, bidi and other format characters, separators
other than the ASCII space), becomes a visible escape as Python writes it: ``\\x1b``,
``\\u202e``, ``\\U000e0001``. The result encodes in UTF-8, holds no control character, and
cleaning it again changes nothing. It is for display only: the raw names stay in the
model, where rules, suppressions and fingerprints match them.
"""

from __future__ import annotations

from dataclasses import replace

from fanout_lint.model.nodes import Loc

REPLACEMENT = "\ufffd"


def clean(text: str) -> str:
    """``text`` as one printable line (see the module docstring)."""
    if text.isprintable():
        return text
    return "".join(char if char.isprintable() else _visible(char) for char in text)


def clean_optional(text: str | None) -> str | None:
    return None if text is None else clean(text)


def clean_path(path: str) -> str:
    """A file name cleaned for display, without a leading ``./`` (``./main.tf`` is shown
    ``main.tf``, as a walk of ``.`` finds it). ``findings.where`` adds one back where a
    name would otherwise start a line with ``:`` or a space."""
    while path.startswith("./") and len(path) > 2:
        path = path[2:].lstrip("/") or "."
    return clean(path)


def clean_loc(loc: Loc) -> Loc:
    """``loc`` with a cleaned file name; the same object when there was nothing to clean."""
    file = clean_path(loc.file)
    return loc if file == loc.file else replace(loc, file=file)


def _visible(char: str) -> str:
    code = ord(char)
    if 0xD800 <= code <= 0xDFFF:
        return REPLACEMENT
    if code <= 0xFF:
        return f"\\x{code:02x}"
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"
