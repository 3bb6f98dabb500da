"""A Terraform plan reads as the HCL loader reads the same configuration: references lead to the
same resources, and what is not written is as absent."""

from __future__ import annotations

import json
import os

from fanout_lint.loaders.parsing.yaml_source import parse_json
from fanout_lint.loaders.terraform.loader import load_terraform_dir
from fanout_lint.loaders.terraform_plan.loader import load_plan
from fanout_lint.model.nodes import EventSourceMapping
from fanout_lint.model.values import Known, Unknown
from repo_paths import TESTS

HCL = """
resource "aws_kinesis_stream" "clicks" {
  name        = "clicks"
  shard_count = 1
}
resource "aws_dynamodb_table" "orders" {
  name         = "orders"
  hash_key     = "id"
  stream_enabled = true
}
resource "aws_lambda_function" "worker" {
  function_name = "worker"
}
resource "aws_lambda_event_source_mapping" "clicks" {
  event_source_arn  = aws_kinesis_stream.clicks.arn
  function_name     = aws_lambda_function.worker.arn
  starting_position = "LATEST"
}
resource "aws_lambda_event_source_mapping" "orders" {
  event_source_arn  = aws_dynamodb_table.orders.stream_arn
  function_name     = aws_lambda_function.worker.arn
  starting_position = "LATEST"
}
"""


def _resource(address: str, values: dict) -> dict:
    rtype, name = address.split(".")
    return {"address": address, "mode": "managed", "type": rtype, "name": name, "values": values}


def _mapping(address: str, source: str) -> tuple[dict, dict, dict]:
    """A mapping as ``terraform show -json`` writes it: the source ARN known only after
    apply, the configuration naming the resource it reads."""
    planned = _resource(address, {"starting_position": "LATEST"})
    change = {"address": address, "change": {"actions": ["create"], "after": {"starting_position": "LATEST"},
                                            "after_unknown": {"event_source_arn": True, "function_name": True}}}
    config = {**_resource(address, {}), "expressions": {
        "event_source_arn": {"references": [f"{source}.arn" if "kinesis" in source else f"{source}.stream_arn",
                                            source]},
        "function_name": {"references": ["aws_lambda_function.worker.arn", "aws_lambda_function.worker"]},
        "starting_position": {"constant_value": "LATEST"}}}
    return planned, change, config


def _plan(tmp_path):
    mappings = [_mapping("aws_lambda_event_source_mapping.clicks", "aws_kinesis_stream.clicks"),
                _mapping("aws_lambda_event_source_mapping.orders", "aws_dynamodb_table.orders")]
    others = [_resource("aws_kinesis_stream.clicks", {"name": "clicks", "shard_count": 1}),
              _resource("aws_dynamodb_table.orders", {"name": "orders", "stream_enabled": True}),
              _resource("aws_lambda_function.worker", {"function_name": "worker"})]
    plan = {
        "format_version": "1.2",
        "planned_values": {"root_module": {"resources": others + [m[0] for m in mappings]}},
        "resource_changes": [m[1] for m in mappings],
        "configuration": {"root_module": {"resources": [
            {**r, "expressions": {}} for r in others] + [m[2] for m in mappings]}},
    }
    path = str(tmp_path / "plan.json")
    graphs, errors = load_plan(parse_json(json.dumps(plan, indent=1), path), path)
    assert errors == []
    return graphs[0]


def test_a_mapping_reads_the_stream_or_table_its_configuration_names(tmp_path):
    (tmp_path / "hcl").mkdir()
    (tmp_path / "hcl" / "main.tf").write_text(HCL)
    hcl, errors = load_terraform_dir(str(tmp_path / "hcl"))
    assert errors == []
    expected = {"aws_lambda_event_source_mapping.clicks": "aws_kinesis_stream.clicks",
                "aws_lambda_event_source_mapping.orders": "aws_dynamodb_table.orders"}
    assert {m.id: m.source for m in hcl[0].all(EventSourceMapping)} == expected
    assert {m.id: m.source for m in _plan(tmp_path).all(EventSourceMapping)} == expected


def test_an_unwritten_key_policy_is_the_default_one_though_the_plan_knows_it_after_apply(tmp_path):
    keys = [("aws_kms_key.plain", {}), ("aws_kms_key.written", {"policy": {"references": ["aws_sqs_queue.q.arn"]}})]
    plan = {
        "format_version": "1.2",
        "planned_values": {"root_module": {"resources": [_resource(a, {}) for a, _ in keys]}},
        "resource_changes": [{"address": a, "change": {"actions": ["create"], "after": {},
                                                        "after_unknown": {"arn": True, "policy": True}}}
                             for a, _ in keys],
        "configuration": {"root_module": {"resources": [{**_resource(a, {}), "expressions": e} for a, e in keys]}},
    }
    path = str(tmp_path / "plan.json")
    graphs, errors = load_plan(parse_json(json.dumps(plan, indent=1), path), path)
    assert errors == []
    graph = graphs[0]
    assert graph.get("aws_kms_key.plain").policy == Known(None)  # as HCL reads `resource "aws_kms_key" "plain" {}`
    assert isinstance(graph.get("aws_kms_key.written").policy, Unknown)
    (tmp_path / "hcl").mkdir()
    (tmp_path / "hcl" / "main.tf").write_text('resource "aws_kms_key" "plain" {}\n')
    hcl, _ = load_terraform_dir(str(tmp_path / "hcl"))
    assert hcl[0].get("aws_kms_key.plain").policy == Known(None)


def test_a_setting_not_written_in_a_written_block_has_its_default(tmp_path):
    """``terraform show -json`` marks a pipe's unwritten ``maximum_record_age_in_seconds``
    known only after apply (the provider fills in -1); the block holding it is written, so
    the default holds, as in HCL."""
    path = os.path.join(TESTS, "fixtures", "stream-retries-unbounded", "plan_fires.json")
    with open(path, encoding="utf-8") as handle:
        graphs, errors = load_plan(parse_json(handle.read(), path), path)
    assert errors == []
    pipe = graphs[0].get("aws_pipes_pipe.orders")
    assert pipe.dynamodb_maximum_record_age.value == -1
    assert pipe.dynamodb_maximum_retry_attempts.value == -1
