"""The rules, registered in one explicit list. Nothing is discovered at import time.

Each rule module documents itself in its docstring and exposes ``RULE``. Adding a rule
means adding its module here; a test checks that every module in this folder is listed.
"""

from __future__ import annotations

from . import (
    dlq_only_on_subscription,
    dlq_retention_not_longer,
    missing_dlq,
    raw_delivery_off,
    shared_queue,
    sns_to_lambda_direct,
    visibility_timeout_below_function_timeout,
)

ALL_RULES = (
    sns_to_lambda_direct.RULE,
    raw_delivery_off.RULE,
    missing_dlq.RULE,
    dlq_only_on_subscription.RULE,
    dlq_retention_not_longer.RULE,
    shared_queue.RULE,
    visibility_timeout_below_function_timeout.RULE,
)

# Modules in this folder that are not rules.
SUPPORT_MODULES = ("common",)
