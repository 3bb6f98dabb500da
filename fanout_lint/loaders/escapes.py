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

# a backslash, then what starts an escape that can make a letter, or a line break
# (libyaml's: LF, CR, NEL, LS, PS)
_BACKSLASH = re.compile("\\\\[xuU\r\n\x85\u2028\u2029]")
_BACKSLASH_BYTES = re.compile(b"\\\\(?:[xuU\r\n]|\xc2\x85|\xe2\x80[\xa8\xa9])")
# a %-escape inside a tag, or a %TAG directive
_TAG = re.compile(r"![^\s!%]*%[0-9A-Fa-f]{2}|^%TAG", re.MULTILINE)
_TAG_BYTES = re.compile(rb"![^\s!%]*%[0-9A-Fa-f]{2}|^%TAG", re.MULTILINE)


def may_hide_words(text: str) -> bool:
    """Whether ``text`` holds an escape that its parser may turn into a word's letters."""
    return ("\\" in text and _BACKSLASH.search(text) is not None) or (
        "%" in text and _TAG.search(text) is not None)


def may_hide_words_in_bytes(data: bytes) -> bool:
    """``may_hide_words`` of UTF-8 bytes."""
    return (b"\\" in data and _BACKSLASH_BYTES.search(data) is not None) or (
        b"%" in data and _TAG_BYTES.search(data) is not None)
