"""Terraform 0.11's argument form of a nested block (``dead_letter_config = { ... }``) is
read as the block; any other value under a block's name leaves the block unknown."""

from __future__ import annotations

from fanout_lint.loaders.terraform.loader import load_terraform_dir
from fanout_lint.model.nodes import EventSourceMapping, Function
from fanout_lint.model.values import Known, Unknown

TOPIC = """
resource "aws_sns_topic" "errors" {
  name = "errors"
}
"""


def _function(tmp_path, dead_letter: str) -> Function:
    (tmp_path / "main.tf").write_text(TOPIC + f"""
variable "dead_letter" {{
  default = {{}}
}}

resource "aws_lambda_function" "app" {{
  function_name = "app"
  {dead_letter}
}}
""")
    graphs, errors = load_terraform_dir(str(tmp_path))
    assert errors == []
    return graphs[0].function("aws_lambda_function.app")


def test_an_object_argument_is_the_block(tmp_path):
    function = _function(tmp_path, 'dead_letter_config = { target_arn = "${aws_sns_topic.errors.arn}" }')
    assert function.dead_letter.value == "aws_sns_topic.errors"


def test_the_block_form_reads_the_same(tmp_path):
    function = _function(tmp_path, "dead_letter_config {\n target_arn = aws_sns_topic.errors.arn\n }")
    assert function.dead_letter.value == "aws_sns_topic.errors"


def test_a_list_of_one_object_is_the_block(tmp_path):
    function = _function(tmp_path, 'dead_letter_config = [{ target_arn = "${aws_sns_topic.errors.arn}" }]')
    assert function.dead_letter.value == "aws_sns_topic.errors"


def test_an_object_without_the_argument_proves_it_absent(tmp_path):
    function = _function(tmp_path, "dead_letter_config = {}")
    assert function.dead_letter == Known(None, "literal", "")


def test_no_argument_and_no_block_proves_it_absent(tmp_path):
    function = _function(tmp_path, "")
    assert isinstance(function.dead_letter, Known) and function.dead_letter.value is None


def test_a_variable_under_the_block_name_is_unknown_not_absent(tmp_path):
    function = _function(tmp_path, 'dead_letter_config = "${var.dead_letter}"')
    assert isinstance(function.dead_letter, Unknown)


def test_computed_keys_are_not_read_as_the_block(tmp_path):
    function = _function(tmp_path, 'dead_letter_config = { "${var.dead_letter}" = "x" }')
    assert isinstance(function.dead_letter, Unknown)


def test_a_null_argument_is_absent(tmp_path):
    function = _function(tmp_path, "dead_letter_config = null")
    assert isinstance(function.dead_letter, Known) and function.dead_letter.value is None


def test_a_nested_object_argument_two_levels_deep(tmp_path):
    (tmp_path / "main.tf").write_text("""
resource "aws_sqs_queue" "jobs" {}
resource "aws_sqs_queue" "failed" {}
resource "aws_lambda_event_source_mapping" "m" {
  event_source_arn  = "${aws_sqs_queue.jobs.arn}"
  function_name     = "app"
  destination_config = {
    on_failure = {
      destination_arn = "${aws_sqs_queue.failed.arn}"
    }
  }
}
""")
    graphs, errors = load_terraform_dir(str(tmp_path))
    assert errors == []
    (mapping,) = graphs[0].all(EventSourceMapping)
    assert mapping.on_failure.value == "aws_sqs_queue.failed"
