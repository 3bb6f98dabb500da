"""What an ARN says about the resource it names, read from its text alone.

A rule that sees only an ARN (an ``External`` node's label: a queue of another stack, an
ARN built from variables) can still tell the service it names, when that segment is
written literally.
"""

from __future__ import annotations

import re

# The service of an ARN, literal or written as a template (``arn:${AWS::Partition}:sqs:...``,
# Terraform's ``${var.region}``): the partition may be one interpolation, the service must
# be literal. Linear: anchored, and the two alternatives start apart and stop at the first
# ``:`` or ``}``.
_ARN_SERVICE = re.compile(r"arn:(?:[^:$]*|\$\{[^{}]*\}):([a-z0-9-]+):")


def arn_service(text: str) -> str | None:
    """The literal service segment of an ARN or ARN template ("sqs"), else None; a
    CloudFormation ``Fn::Sub`` is labelled ``Sub <template>``."""
    match = _ARN_SERVICE.match(text[4:] if text.startswith("Sub ") else text)
    return match.group(1) if match else None
