"""Suppressions written as comments: ``fanout-lint: ignore=ID-or-name[,other]
[until=YYYY-MM-DD] [-- reason]``, in a Terraform comment, a ``"//"`` property of
Terraform's JSON syntax, or a YAML comment of a Serverless Framework service.

Kept apart from the loaders that find the comments, so that reading one needs no parser.
"""

from __future__ import annotations

import re

from fanout_lint.model.nodes import Loc, Suppression

# Linear on one line of text: the rule list's runs are separated by commas they cannot
# contain, and the rest (``.*`` up to the end) always matches, so nothing is tried twice.
# (A newline would let ``$`` fail after ``.*`` and make the list give back characters one
# by one, each time rescanning the rest; comments have none, and such text is refused.)
MARKER = "fanout-lint:"  # how every suppression comment starts: a text without it has none
_IGNORE = re.compile("^" + re.escape(MARKER) + r"\s*ignore\s*=\s*([\w.-]+(?:\s*,\s*[\w.-]+)*)(.*)\Z")
_UNTIL = re.compile(r"\buntil\s*=\s*(\d{4}-\d{2}-\d{2})")


def parse_suppression(text: str, loc: Loc) -> list[Suppression]:
    """``fanout-lint: ignore=ID-or-name[,other] [until=YYYY-MM-DD] [-- reason]``."""
    text = text.strip()
    if "\n" in text:
        return []
    match = _IGNORE.match(text)
    if not match:
        return []
    rules = [r.strip() for r in match.group(1).split(",") if r.strip()]
    rest = match.group(2)
    until_match = _UNTIL.search(rest)
    until = until_match.group(1) if until_match else None
    rest = _UNTIL.sub("", rest)
    reason = rest.split("--", 1)[1].strip() if "--" in rest else ""
    return [Suppression(rule=r, reason=reason, until=until, loc=loc, syntax="comment") for r in rules]
