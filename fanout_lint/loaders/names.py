"""Literal ARNs, queue URLs and names that point at a resource of the same unit.

Templates often name a queue or topic by a literal (``arn:aws:sqs:eu-west-1:1:orders``,
``https://sqs.../1/orders``, a function name) instead of a reference. Every loader indexes
the physical names it can prove, ``(kind, name) -> node id``, and resolves literals here.
"""

from __future__ import annotations

import re

from fanout_lint.model.schema import REFERENCED

# Linear: anchored, and each ``[^:]*`` stops at the ``:`` that must follow it, so no
# input makes it try more than one way to split the text.
_ARN = re.compile(r"^arn:[^:]*:(sqs|sns|lambda):[^:]*:[^:]*:(.+)$")
_BUCKET_ARN = re.compile(r"^arn:[^:]*:s3:::([^/]+)$")  # a bucket's ARN has no Region or account


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
    bucket = _BUCKET_ARN.match(text)
    if bucket:
        return names.get(("bucket", bucket.group(1)))
    queue = queue_url_name(text)
    if queue is not None:
        return names.get(("queue", queue))
    if kind in REFERENCED:
        return names.get((kind, text))
    return None


def queue_url_name(text: str) -> str | None:
    """The queue name of ``https://sqs.<region>.amazonaws.com/<account>/<name>``, else None.

    Host: anything up to the first ``/`` that contains ``amazonaws.com``; then exactly two
    non-empty path segments. (A pattern such as ``[^/]*amazonaws\\.com[^/]*`` tries every
    place the word could start, quadratic in a long host.) A final newline stays part of
    the name, as ``$`` let it.
    """
    if not text.startswith("https://"):
        return None
    host, slash, path = text[8:].partition("/")
    if not slash or "amazonaws.com" not in host:
        return None
    account, slash, name = path.partition("/")
    if not account or not slash or not name or "/" in name:
        return None
    return name
