"""Whether a file may spell a word only through an escape, so that looking for the word in
its bytes cannot say "no".

The run decides cheaply which files to parse by looking for words in their text
(``Resources``, ``ImportValue``, ...). A parser turns some escapes into letters: YAML's
``\\x``, ``\\u`` and ``\\U`` and escaped line breaks in double quotes (``"Re\\x73ources"``,
``"Re\\`` then ``sources"`` on the next line), JSON's ``\\u``, and in a tag libyaml's
``%``-escapes (``!Import%56alue`` is ``!ImportValue``) and ``%TAG`` handles. No other
escape makes a letter (``\\n``, ``\\t``, ``\\"`` ... do not), and YAML's line folding
puts a space where it joins lines. So a file that holds none of these says in its text
every word its parsed data holds; one that holds any is parsed before anything is
decided about it. Each pattern is linear: a literal, then at most one character, or a
run of a class that excludes the characters that start a match.
"""

from __future__ import annotations

import re

# A backslash, then an escape of an ASCII character (every word looked for is ASCII:
# ``\u00e9`` cannot make one). A match is an escape when the backslashes before it are
# pairs (``\\x41`` is a backslash and "x41"); past ``_LOOKS`` matches, or a longer run
# than ``_RUN``, the answer is "maybe".
_ESCAPE = re.compile("\\\\(?:x|u00|U000000)[0-7][0-9A-Fa-f]")
_ESCAPE_BYTES = re.compile(b"\\\\(?:x|u00|U000000)[0-7][0-9A-Fa-f]")
# A backslash, a line break (libyaml's: LF, CR, NEL, LS, PS) and the next line's blanks,
# joined inside a double-quoted scalar: a word is split so only when a character of one
# (letters, "_", ":") is on both sides. A shell script's continuation (`` \`` at a line's
# end, in a block scalar, where a backslash escapes nothing) has a blank before it.
_JOIN = re.compile("\\\\(?:\r\n?|[\n\x85\u2028\u2029])[ \t]*[A-Za-z_:]")
_JOIN_BYTES = re.compile(b"\\\\(?:\r\n?|\n|\xc2\x85|\xe2\x80[\xa8\xa9])[ \t]*[A-Za-z_:]")
_WORD = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_:")
_WORD_BYTES = frozenset(character.encode() for character in _WORD)
_LOOKS = 16
_RUN = 64
# Any escape at all: a file name may be any text (``caf\u00e9.yaml``).
_ANY_ESCAPE_BYTES = re.compile(b"\\\\(?:[xuU]|[\r\n]|\xc2\x85|\xe2\x80[\xa8\xa9])")
# a %-escape inside a tag (and a %TAG directive, looked for as a literal)
_TAG = re.compile(r"![^\s!%]*%[0-9A-Fa-f]{2}")
_TAG_BYTES = re.compile(rb"![^\s!%]*%[0-9A-Fa-f]{2}")


def may_hide_words(text: str) -> bool:
    """Whether ``text`` holds an escape that its parser may turn into a word's letters."""
    if "\\" in text and (_escaped(_ESCAPE, text, "\\") or _joined(_JOIN, text, _WORD)):
        return True
    return "%" in text and ("%TAG" in text or _TAG.search(text) is not None)


def may_hide_words_in_bytes(data: bytes) -> bool:
    """``may_hide_words`` of UTF-8 bytes."""
    if b"\\" in data and (_escaped(_ESCAPE_BYTES, data, b"\\") or _joined(_JOIN_BYTES, data, _WORD_BYTES)):
        return True
    return b"%" in data and (b"%TAG" in data or _TAG_BYTES.search(data) is not None)


def _escaped(pattern: re.Pattern, text, backslash) -> bool:
    """Whether a match of ``pattern`` follows an even number of backslashes (or may)."""
    for looks, match in enumerate(pattern.finditer(text)):
        at = match.start() - 1
        stop = max(at - _RUN, -1)
        while at > stop and text[at:at + 1] == backslash:
            at -= 1
        if looks == _LOOKS or (at == stop >= 0) or (match.start() - 1 - at) % 2 == 0:
            return True
    return False


def _joined(pattern: re.Pattern, text, word) -> bool:
    """Whether a match of ``pattern`` follows a character of a word (or may)."""
    for looks, match in enumerate(pattern.finditer(text)):
        start = match.start()
        if looks == _LOOKS or (start > 0 and text[start - 1:start] in word):
            return True
    return False


def may_hide_text_in_bytes(data: bytes) -> bool:
    """Whether UTF-8 ``data`` holds any escape a parser may decode (of any character: for
    names, such as a nested template's file name, which need not be ASCII)."""
    return b"\\" in data and _ANY_ESCAPE_BYTES.search(data) is not None
