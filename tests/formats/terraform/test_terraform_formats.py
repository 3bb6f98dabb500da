"""Terraform's JSON syntax, override files and OpenTofu's files, read as the tools read them."""

from __future__ import annotations

import json
import os

import pytest

from fanout_lint.model.format import Format
from fanout_lint.cli.main import main
from fanout_lint.run.discover import discover
from fanout_lint.run.engine import lint_paths
from fanout_lint.loaders.terraform.hcl.tree import HclError, Literal, Name, ObjectExpr, Template
from fanout_lint.loaders.terraform.json_syntax import parse_tf_json
from fanout_lint.loaders.terraform.module_calls import called_directories, json_module_sources, module_sources
from fanout_lint.rules import ALL_RULES
from fanout_lint.policy.settings import Settings
from fanout_lint.loaders.terraform.files import config_files


def _write(root, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def _lint(path):
    return lint_paths([str(path)], ALL_RULES, Settings(jobs=1))


# -- which files ------------------------------------------------------------------

def test_config_files_in_the_order_terraform_reads_them():
    files = config_files([
        "main.tf", "main.tofu", "a.tf.json", "a.tofu.json", "b.tf.json", "override.tf", "z_override.tf",
        "x_override.tf.json", "x_override.tofu.json", ".hidden.tf", "backup.tf~", "#lock.tf#", "terraform.tfvars",
        "q.json", ".tf", "notes.txt",
    ])
    assert files.primary == ("a.tofu.json", "b.tf.json", "main.tofu")
    assert files.overrides == ("override.tf", "x_override.tofu.json", "z_override.tf")


@pytest.mark.parametrize("name", ["main.tf.json", "main.tofu", "main.tofu.json", "override.tf"])
def test_a_configuration_file_stands_for_its_directory(tmp_path, name):
    (tmp_path / name).write_text("{}" if name.endswith(".json") else "")
    candidates, missing = discover([str(tmp_path / name)])
    assert [(c.format, c.path) for c in candidates] == [(Format.TERRAFORM, str(tmp_path))] and not missing
    candidates, _ = discover([str(tmp_path)])
    assert [(c.format, c.path) for c in candidates] == [(Format.TERRAFORM, str(tmp_path))]


# -- JSON syntax ------------------------------------------------------------------

def test_json_blocks_labels_attributes_and_nested_blocks():
    text = json.dumps({
        "//": "top comment",
        "resource": {"aws_lambda_function": {"f": {
            "//": "fanout-lint: ignore=FL202 -- why",
            "timeout": 30,
            "dead_letter_config": {"target_arn": "${aws_sqs_queue.dlq.arn}"},
            "dynamic": {"statement": {"for_each": "${var.x}", "content": {}}},
            "tags": {"team": "a"},
        }}},
        "variable": {"v": {"type": "object({a = optional(number, 5)})", "default": None}},
        "locals": [{"a": "x-$${literal}"}, {"b": {"nested": 1}}],
    }, indent=2)
    hcl = parse_tf_json(text, "main.tf.json")
    resource, variable, locals_a, locals_b = hcl.body.blocks
    assert (resource.type, resource.labels) == ("resource", ("aws_lambda_function", "f"))
    body = resource.body
    assert body.attributes["timeout"].expr == Literal(30)
    assert [b.type for b in body.blocks] == ["dead_letter_config", "dynamic", "tags"]
    assert body.blocks_of("dynamic")[0].labels == ("statement",)
    target = body.blocks_of("dead_letter_config")[0].body.attributes["target_arn"].expr
    assert isinstance(target, Template)  # one interpolation: the evaluator unwraps it
    assert isinstance(body.attributes["tags"].expr, ObjectExpr)
    assert variable.body.attributes["type"].expr.name == "object"  # a type expression, not a string
    assert locals_a.body.attributes["a"].expr == Literal("x-${literal}")
    assert locals_b.body.blocks == ()  # locals hold attributes only
    assert [c.text for c in hcl.comments] == ["top comment", "fanout-lint: ignore=FL202 -- why"]


def test_json_positions_are_the_properties():
    text = '{\n  "resource": {\n    "aws_sqs_queue": {\n      "q": {\n        "visibility_timeout_seconds": 10\n      }\n    }\n  }\n}\n'
    (block,) = parse_tf_json(text, "main.tf.json").body.blocks
    assert (block.line, block.column, block.end_line) == (4, 7, 6)
    attribute = block.body.attributes["visibility_timeout_seconds"]
    assert (attribute.line, attribute.column) == (5, 9)
    assert attribute.pos == (5, 9, 5, 41)


def test_interpolations_have_no_positions_of_their_own():
    text = '{"locals": {"p": "${jsonencode({a = 1})}"}}'
    (block,) = parse_tf_json(text, "main.tf.json").body.blocks
    call = block.body.attributes["p"].expr.parts[0]
    assert call.args[0].pos is None


@pytest.mark.parametrize("text, message", [
    ('{"resource": {}, "resource": {}}', 'the key "resource" appears twice'),
    ('[1, 2]', "must hold one JSON object"),
    ('{"resource": {"aws_sqs_queue": {"q": 5}}}', "must be an object"),
])
def test_json_that_is_not_terraform_is_refused(text, message):
    with pytest.raises(HclError, match=message):
        parse_tf_json(text, "main.tf.json")


def test_a_broken_json_file_is_one_error_with_its_line(tmp_path, capsys):
    _write(tmp_path, {"main.tf.json": '{\n  "resource": {\n    "aws_sqs_queue": {,}\n  }\n}\n'})
    assert main([str(tmp_path)]) == 2
    err = "".join(capsys.readouterr())
    assert "main.tf.json:3:" in err and "invalid JSON" in err and "not linted" in err


def test_json_suppression_comment_and_unknown_variable(tmp_path):
    _write(tmp_path, {"main.tf.json": json.dumps({
        "variable": {"timeout": {}},
        "resource": {
            "aws_sqs_queue": {"q": {"//": "fanout-lint: ignore=missing-dlq -- batch job drains it"}},
            "aws_lambda_function": {"f": {"timeout": "${var.timeout}"}},
            "aws_lambda_event_source_mapping": {"m": {
                "event_source_arn": "${aws_sqs_queue.q.arn}", "function_name": "${aws_lambda_function.f.arn}",
                "function_response_types": ["ReportBatchItemFailures"]}},
        },
    }, indent=1)})
    result = _lint(tmp_path)
    assert result.findings == [] and [s.finding.name for s in result.suppressed] == ["missing-dlq"]


# -- overrides ----------------------------------------------------------------------

QUEUE_AND_CONSUMER = """\
resource "aws_sqs_queue" "q" {
  visibility_timeout_seconds = 360
  redrive_policy = jsonencode({ deadLetterTargetArn = aws_sqs_queue.dlq.arn, maxReceiveCount = 5 })
}
resource "aws_sqs_queue" "dlq" {
  message_retention_seconds = 1209600
}
resource "aws_lambda_function" "f" {
  timeout = 30
  dead_letter_config {
    target_arn = aws_sqs_queue.dlq.arn
  }
}
resource "aws_lambda_event_source_mapping" "m" {
  event_source_arn        = aws_sqs_queue.q.arn
  function_name           = aws_lambda_function.f.arn
  function_response_types = ["ReportBatchItemFailures"]
}
"""


def test_an_override_block_replaces_nested_blocks_of_its_type(tmp_path):
    # The function's dead-letter queue is now the consumed queue itself: FL101's DLQ
    # sources and the graph see the override's block, not the original.
    _write(tmp_path, {"main.tf": QUEUE_AND_CONSUMER, "override.tf": (
        'resource "aws_lambda_function" "f" {\n  dead_letter_config {\n    target_arn = aws_sqs_queue.q.arn\n  }\n}\n')})
    result = lint_paths([str(tmp_path)], ALL_RULES, Settings(jobs=1), keep_graphs=True)
    (graph,) = result.graphs
    assert [u.user for u in graph.dead_letter_uses("aws_sqs_queue.q")] == ["aws_lambda_function.f"]
    assert graph.dead_letter_uses("aws_sqs_queue.dlq") == []


def test_later_overrides_win_and_findings_point_into_them(tmp_path):
    _write(tmp_path, {
        "main.tf": QUEUE_AND_CONSUMER,
        "a_override.tf": 'resource "aws_sqs_queue" "q" {\n  visibility_timeout_seconds = 10\n}\n',
        "b_override.tf.json": '{"resource": {"aws_sqs_queue": {"q": {\n  "visibility_timeout_seconds": 20\n}}}}\n',
    })
    (finding,) = _lint(tmp_path).findings
    assert finding.name == "visibility-timeout-below-function-timeout"
    assert (os.path.basename(finding.loc.file), finding.loc.line) == ("b_override.tf.json", 2)
    assert "20 s" in finding.message


def test_an_override_of_nothing_is_an_error_and_the_unit_is_not_linted(tmp_path, capsys):
    _write(tmp_path, {"main.tf": 'resource "aws_sqs_queue" "q" {}\n',
                      "override.tf": 'resource "aws_sqs_queue" "other" {\n  name = "x"\n}\nlocals {\n  y = 1\n}\n'})
    assert main([str(tmp_path)]) == 2
    err = "".join(capsys.readouterr())
    assert "override.tf:1:" in err and "aws_sqs_queue.other overrides no block" in err
    assert "override.tf:5:" in err and "local.y overrides no local value" in err
    assert "FL101" not in err


# -- module calls --------------------------------------------------------------------

def test_module_sources_in_json_and_overrides(tmp_path):
    _write(tmp_path, {
        "main.tf.json": json.dumps({"module": {"a": {"source": "./a"}, "r": {"source": "org/r/aws"}}}),
        "calls.tofu": 'module "b" {\n  source = "./b"\n}\nmodule "c" {\n  source = "./c"\n}\n',
        "calls.tf": 'module "ignored" {\n  source = "./shadowed"\n}\n',
        "override.tf": 'module "c" {\n  source = "org/c/aws"\n}\nmodule "b" {\n  count = 2\n}\n',
    })
    called = sorted(os.path.basename(d) for d in called_directories(str(tmp_path)))
    assert called == ["a", "b"]


def test_module_source_readers():
    assert module_sources('module "a" {\n  source = "./a"\n}\nmodule "b" {\n  count = 1\n}\n') == [
        ("a", "./a"), ("b", None)]
    assert json_module_sources('{"module": [{"a": [{"source": "./a"}, {"source": "${var.x}"}]}]}') == [
        ("a", "./a"), ("a", "")]
    assert json_module_sources("not json") == []


def test_a_json_module_call_hides_the_module_from_discovery(tmp_path):
    _write(tmp_path, {"root/main.tf.json": json.dumps({"module": {"q": {"source": "../q"}}}), "q/main.tf": ""})
    candidates, _ = discover([str(tmp_path)])
    assert [c.path for c in candidates] == [str(tmp_path / "root")]
