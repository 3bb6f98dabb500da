"""The rules, registered in one explicit list. Nothing is discovered at import time.

Each rule module documents itself in its docstring and exposes ``RULE``. Adding a rule
means adding its module here; a test checks that every module in this folder is listed.
"""

from __future__ import annotations

from . import (
    async_invoke_without_failure_destination,
    batch_item_failures_off,
    batching_settings_rejected,
    consumer_cannot_decrypt,
    delivery_to_kms_managed_key,
    dlq_only_on_subscription,
    dlq_retention_not_longer,
    dlq_without_alarm,
    eventbridge_target_role_missing,
    eventbridge_target_without_dlq,
    fifo_high_throughput_partial,
    fifo_mismatch,
    filter_policy_never_matches,
    filter_policy_rejected,
    key_policy_denies_sender,
    lambda_permission_missing,
    mapping_concurrency_above_reserved,
    max_receive_count_out_of_range,
    missing_dlq,
    queue_policy_missing,
    queue_policy_without_source_arn,
    raw_delivery_off,
    recursive_delivery_loop,
    shared_dlq,
    shared_queue,
    single_subscriber_topic,
    sns_to_lambda_direct,
    stream_mapping_without_failure_handling,
    stream_retries_unbounded,
    visibility_timeout_below_function_timeout,
    visibility_timeout_headroom,
)

ALL_RULES = (
    sns_to_lambda_direct.RULE,
    raw_delivery_off.RULE,
    single_subscriber_topic.RULE,
    fifo_mismatch.RULE,
    fifo_high_throughput_partial.RULE,
    filter_policy_rejected.RULE,
    filter_policy_never_matches.RULE,
    missing_dlq.RULE,
    dlq_only_on_subscription.RULE,
    dlq_retention_not_longer.RULE,
    max_receive_count_out_of_range.RULE,
    shared_dlq.RULE,
    dlq_without_alarm.RULE,
    shared_queue.RULE,
    visibility_timeout_below_function_timeout.RULE,
    visibility_timeout_headroom.RULE,
    batch_item_failures_off.RULE,
    mapping_concurrency_above_reserved.RULE,
    batching_settings_rejected.RULE,
    queue_policy_missing.RULE,
    queue_policy_without_source_arn.RULE,
    delivery_to_kms_managed_key.RULE,
    lambda_permission_missing.RULE,
    key_policy_denies_sender.RULE,
    consumer_cannot_decrypt.RULE,
    eventbridge_target_without_dlq.RULE,
    async_invoke_without_failure_destination.RULE,
    stream_mapping_without_failure_handling.RULE,
    stream_retries_unbounded.RULE,
    recursive_delivery_loop.RULE,
    eventbridge_target_role_missing.RULE,
)

# Modules in this folder that are not rules.
SUPPORT_MODULES = ("common", "iam")
