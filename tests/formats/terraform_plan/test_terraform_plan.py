"""The plan JSON loader beyond the fixtures: addresses, malformed plans, the graph it builds."""

from __future__ import annotations

import json
import os

import pytest

from fanout_lint.model.format import Format
from fanout_lint.loaders.parsing.yaml_source import parse_json
from fanout_lint.loaders.terraform_plan.loader import load_plan, strip_keys
from fanout_lint.model.nodes import EventSourceMapping, External, Queue
from fanout_lint.model.values import Known, OneOf, Unknown
from repo_paths import TESTS

FIXTURES = os.path.join(TESTS, "fixtures", "terraform-plan")


def _load(path: str):
    with open(path, encoding="utf-8") as handle:
        return load_plan(parse_json(handle.read(), path), path)


@pytest.mark.parametrize("address, expected", [
    ("aws_sqs_queue.q", "aws_sqs_queue.q"),
    ("aws_sqs_queue.q[0]", "aws_sqs_queue.q"),
    ('module.m["a.b]"].aws_sqs_queue.q["x\\"]"]', "module.m.aws_sqs_queue.q"),
    ("module.a[1].module.b.aws_sns_topic.t", "module.a.module.b.aws_sns_topic.t"),
])
def test_instance_keys_are_stripped_from_addresses(address, expected):
    assert strip_keys(address) == expected


def test_child_module_references_are_made_absolute():
    (graph,), errors = _load(os.path.join(FIXTURES, "plan_module_fires.json"))
    assert errors == []
    mapping = graph.get("module.consumer.aws_lambda_event_source_mapping.this")
    assert isinstance(mapping, EventSourceMapping)
    assert mapping.source == "aws_sqs_queue.orders"  # through var.queue_arn of the module call
    assert mapping.function == "module.consumer.aws_lambda_function.handler"
    assert graph.unit.format is Format.TERRAFORM_PLAN


def test_instances_become_one_node_whose_values_may_differ():
    (graph,), _ = _load(os.path.join(FIXTURES, "plan_count_fires.json"))
    work = graph.queue("aws_sqs_queue.work")
    jobs = graph.queue("aws_sqs_queue.jobs")
    assert work.visibility_timeout == Known(30, "default")
    assert isinstance(jobs.visibility_timeout, OneOf)
    assert {k.value for k in jobs.visibility_timeout.options} == {30, 900}
    assert graph.get("aws_sqs_queue.work[0]") is None


def test_values_known_only_after_apply_stay_unknown():
    (graph,), _ = _load(os.path.join(FIXTURES, "plan_unknown_silent.json"))
    assert isinstance(graph.function("aws_lambda_function.worker").timeout, Unknown)
    redrive = graph.queue("aws_sqs_queue.orders").redrive
    assert isinstance(redrive, Known) and redrive.value.dlq == "aws_sqs_queue.orders_dlq"
    assert isinstance(redrive.value.max_receive_count, Unknown)
    legacy = graph.get("aws_lambda_event_source_mapping.legacy_a").source
    assert isinstance(graph.get(legacy), External)


def _plan(**overrides):
    plan = {
        "format_version": "1.2",
        "planned_values": {"root_module": {"resources": [{
            "address": "aws_sqs_queue.q", "mode": "managed", "type": "aws_sqs_queue", "name": "q",
            "values": {"name": "q", "visibility_timeout_seconds": 45},
        }]}},
    }
    plan.update(overrides)
    return plan


def test_a_plan_without_configuration_still_gives_values_and_literal_edges(tmp_path):
    plan = _plan()
    plan["planned_values"]["root_module"]["resources"].append({
        "address": "aws_lambda_event_source_mapping.m", "mode": "managed",
        "type": "aws_lambda_event_source_mapping", "name": "m",
        "values": {"event_source_arn": "arn:aws:sqs:eu-west-1:123456789012:q", "function_name": "f"},
    })
    path = str(tmp_path / "plan.json")
    (graph,), errors = load_plan(parse_json(json.dumps(plan, indent=1), path), path)
    assert errors == []
    assert graph.queue("aws_sqs_queue.q").visibility_timeout == Known(45)
    assert graph.get("aws_lambda_event_source_mapping.m").source == "aws_sqs_queue.q"


@pytest.mark.parametrize("version", ["2.0", 1, None, "x"])
def test_unknown_format_versions_are_refused_with_their_line(tmp_path, version):
    path = str(tmp_path / "plan.json")
    text = json.dumps(_plan(format_version=version), indent=1)
    graphs, errors = load_plan(parse_json(text, path), path)
    assert graphs == [] and len(errors) == 1
    assert "format_version" in errors[0].message and errors[0].line == 2


@pytest.mark.parametrize("broken", [
    {"planned_values": {"root_module": {"resources": "nope", "child_modules": [1, None]}}},
    {"planned_values": {"root_module": {"resources": [{"address": 1}, None, {"type": "aws_sqs_queue"}]}}},
    {"configuration": {"root_module": {"module_calls": {"m": {"module": []}}}}, "resource_changes": [None, {"address": "x", "change": 1}]},
    {"configuration": {"root_module": {"resources": [{"address": "aws_sqs_queue.q", "expressions": {"redrive_policy": {"references": ["module", "var", "data.x", "module.m.out"]}}}]}}},
])
def test_malformed_plans_do_not_crash(tmp_path, broken):
    path = str(tmp_path / "plan.json")
    plan = _plan()
    plan.update(broken)
    graphs, errors = load_plan(parse_json(json.dumps(plan), path), path)
    assert len(graphs) + len(errors) == 1


def test_module_references_do_not_loop_forever(tmp_path):
    # An output that names itself (not valid Terraform, but a file can say anything).
    plan = _plan(configuration={"root_module": {
        "resources": [{"address": "aws_sqs_queue.q", "expressions": {"redrive_policy": {"references": ["module.m.o"]}}}],
        "module_calls": {"m": {"module": {"outputs": {"o": {"expression": {"references": ["module.m.o"]}}}}}},
    }}, resource_changes=[{"address": "aws_sqs_queue.q", "change": {"after_unknown": {"redrive_policy": True}}}])
    path = str(tmp_path / "plan.json")
    (graph,), _ = load_plan(parse_json(json.dumps(plan), path), path)
    assert isinstance(graph.queue("aws_sqs_queue.q"), Queue)


def test_an_argument_written_as_null_is_unset_as_in_hcl(tmp_path):
    # `redrive_policy = null` shows as {"constant_value": null} in the configuration, and the
    # computed attribute is omitted from planned values (after_unknown): it is unset, so the
    # queue has no DLQ, as the HCL loader says of the same configuration.
    plan = _plan(
        configuration={"root_module": {"resources": [{
            "address": "aws_sqs_queue.q", "mode": "managed", "type": "aws_sqs_queue", "name": "q",
            "expressions": {"name": {"constant_value": "q"}, "redrive_policy": {"constant_value": None},
                            "visibility_timeout_seconds": {"constant_value": 45}},
        }]}},
        resource_changes=[{"address": "aws_sqs_queue.q", "change": {
            "actions": ["create"], "after_unknown": {"arn": True, "redrive_policy": True, "policy": True},
        }}],
    )
    path = str(tmp_path / "plan.json")
    (graph,), errors = load_plan(parse_json(json.dumps(plan), path), path)
    assert errors == []
    assert graph.queue("aws_sqs_queue.q").redrive == Known(None)
    assert graph.get("aws_sqs_queue.q.policy") is None
