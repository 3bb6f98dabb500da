"""Literal ARNs, queue URLs and names that point at a resource of the same unit.

Templates often name a queue or topic by a literal (``arn:aws:sqs:eu-west-1:1:orders``,
``https://sqs.../1/orders``, a function name) instead of a reference. Every loader indexes
the physical names it can prove, ``(kind, name) -> node id``, and resolves literals here.
"""

from __future__ import annotations

import re

KINDS = ("queue", "topic", "function")

_ARN = re.compile(r"^arn:[^:]*:(sqs|sns|lambda):[^:]*:[^:]*:(.+)$")
_QUEUE_URL = re.compile(r"^https://(?:sqs\.)?[^/]*amazonaws\.com[^/]*/[^/]+/([^/]+)$")


def named_resource(text: str, kind: str | None, names: dict[tuple[str, str], str]) -> str | None:
    """The node an ARN, queue URL or (for ``kind``) plain name names; None otherwise."""
    match = _ARN.match(text)
    if match:
        service, rest = match.groups()
        if service == "lambda":
            parts = rest.split(":")
            if len(parts) >= 2 and parts[0] == "function":
                return names.get(("function", parts[1]))
            return None
        return names.get(("queue" if service == "sqs" else "topic", rest))
    match = _QUEUE_URL.match(text)
    if match:
        return names.get(("queue", match.group(1)))
    if kind in KINDS:
        return names.get((kind, text))
    return None
