"""EventBridge pipes as consumers and as callers of their targets, and what the rules say
of them in each format's words."""

from __future__ import annotations

import os

from fanout_lint.run.engine import lint_paths
from fanout_lint.model.nodes import Pipe, RoleTarget
from fanout_lint.rules import ALL_RULES
from fanout_lint.policy.settings import Settings
from repo_paths import TESTS

FIXTURES = os.path.join(TESTS, "fixtures")


def messages(path: str, rule: str) -> list[str]:
    result = lint_paths([os.path.join(FIXTURES, path)], ALL_RULES, Settings())
    return [f.message for f in result.findings if f.name == rule]


def test_a_pipe_is_named_beside_the_function_it_shares_a_queue_with():
    [cfn] = messages("shared-queue/cfn_pipe_fires.yaml", "shared-queue")
    assert "read by 2 consumers (function EmailFunction, pipe AuditPipe)" in cfn
    [tf] = messages("shared-queue/tf_pipe_fires", "shared-queue")
    assert "(function aws_lambda_function.email, pipe aws_pipes_pipe.audit)" in tf


def test_functions_alone_keep_their_message():
    [message] = messages("shared-queue/cfn_fires.yaml", "shared-queue")
    assert message.startswith("Queue OrdersQueue is read by 2 functions (EmailFunction, StockFunction): ")
    assert message.endswith("give each consumer its own queue subscribed to the topic")


def test_filter_criteria_on_a_shared_queue_is_said_in_each_format():
    [cfn] = messages("shared-queue/cfn_filter_fires.yaml", "shared-queue")
    assert "; EmailMapping has FilterCriteria: Lambda deletes from the queue every message a filter leaves out" in cfn
    [tf] = messages("shared-queue/tf_filter_fires", "shared-queue")
    assert "; aws_lambda_event_source_mapping.email has filter_criteria: Lambda deletes" in tf


def test_stream_pipes_and_kafka_mappings_speak_of_their_own_settings():
    cfn = messages("stream-mapping-without-failure-handling/cfn_kafka_pipe_fires.yaml",
                   "stream-mapping-without-failure-handling")
    assert any("reads topics of an Amazon MSK cluster" in m and "blocks its partition" in m for m in cfn)
    assert any("set SourceParameters.KinesisStreamParameters.DeadLetterConfig.Arn" in m for m in cfn)
    tf = messages("stream-retries-unbounded/tf_fires", "stream-retries-unbounded")
    assert any("set source_parameters.dynamodb_stream_parameters.maximum_retry_attempts or" in m for m in tf)
    assert any("topics of a self-managed Apache Kafka cluster" in m for m in tf)


def test_role_missing_names_the_service_and_the_setting():
    tf = messages("eventbridge-target-role-missing/tf_fires", "eventbridge-target-role-missing")
    assert any("to Step Functions state machine aws_sfn_state_machine.orders without role_arn" in m for m in tf)
    assert any("to Batch job queue arn:aws:batch:" in m for m in tf)
    assert any("set target_parameters.step_function_state_machine_parameters.invocation_type to FIRE_AND_FORGET"
               in m for m in tf)
    cfn = messages("eventbridge-target-role-missing/cfn_fires.yaml", "eventbridge-target-role-missing")
    assert any("InvocationType REQUEST_RESPONSE (default)" in m for m in cfn)


def graph_of(path: str):
    result = lint_paths([os.path.join(FIXTURES, path)], ALL_RULES, Settings(), keep_graphs=True)
    [graph] = result.graphs
    return graph


def test_the_builder_reads_pipes_and_state_machines_alike_in_both_formats():
    for path, pipe_id, machine_id in (
        ("eventbridge-target-role-missing/cfn_silent.yaml", "QuickPipe", "QuickWorkflow"),
        ("eventbridge-target-role-missing/tf_silent", "aws_pipes_pipe.quick", "aws_sfn_state_machine.quick"),
    ):
        graph = graph_of(path)
        pipe, machine = graph.get(pipe_id), graph.get(machine_id)
        assert isinstance(pipe, Pipe) and pipe.target == machine_id, path
        assert isinstance(machine, RoleTarget) and machine.service == "states" and machine.machine_type.value == "EXPRESS"
        assert pipe.invocation_type.value == "REQUEST_RESPONSE" and pipe.invocation_type.origin == "default"
        assert [p.id for p in graph.pipes_reading(pipe.source)] == [pipe_id]


def test_a_pipes_stream_settings_are_read_per_source_service():
    graph = graph_of("stream-retries-unbounded/tf_silent")
    pipe = graph.get("aws_pipes_pipe.clicks")
    assert pipe.kinesis_maximum_record_age.value == 3600 and pipe.kinesis_maximum_retry_attempts.value == -1
    assert pipe.kinesis_dead_letter.value == "aws_sqs_queue.failures"
    assert pipe.dynamodb_dead_letter.value is None  # no such block: proved absent
