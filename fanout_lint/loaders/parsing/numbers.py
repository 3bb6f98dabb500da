"""Number literals too long to read, told apart from a parser's crash.

Python refuses to turn a decimal text of more than ``sys.get_int_max_str_digits()``
digits (4,300 by default) into an ``int``: ``json`` raises a bare ``ValueError`` for
one, without the line, and so does ``int()`` of a YAML scalar. No setting a rule reads
has more than a handful of digits, so such a literal is bad input: one error with the
file and the line of the number, found only once a parse has failed.
"""

from __future__ import annotations

import re
import sys

from fanout_lint.loaders.parsing.located import ParseError

_DIGITS = re.compile(r"[0-9]+")  # greedy, one match per run of digits: linear


def max_digits() -> int:
    """The most digits ``int()`` converts (0: no limit, as Python then has none)."""
    return getattr(sys, "get_int_max_str_digits", lambda: 0)()


def too_long(digits: int) -> str:
    return f"number literal too long ({digits:,} digits; at most {max_digits():,} are read)"


def long_number_error(text: str, syntax: str) -> ParseError:
    """The error for the first run of digits in ``text`` too long to convert (``syntax``:
    "JSON" or "YAML", named in the message)."""
    limit = max_digits()
    for match in _DIGITS.finditer(text):
        if limit and match.end() - match.start() > limit:
            line = text.count("\n", 0, match.start()) + 1
            column = match.start() - (text.rfind("\n", 0, match.start()) + 1) + 1
            return ParseError(f"invalid {syntax}: {too_long(match.end() - match.start())}", line, column)
    return ParseError(f"invalid {syntax}: number literal too long")
