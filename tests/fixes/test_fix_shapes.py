"""``--fix`` on templates and Terraform written in many shapes at once: block and flow
style, comments after values and before closing braces, trailing commas, quoted values,
a block scalar last, one-line blocks, tabs, CR LF, no final newline. Whatever the shape,
the fixed file parses, keeps its line ends, and no longer has what was fixed."""

from __future__ import annotations

import contextlib
import io

from hypothesis import HealthCheck, given, settings, strategies as st
import properties  # noqa: F401  (Hypothesis's profile, before the first @settings)

from fanout_lint.cli.main import main
from fanout_lint.run.engine import lint_paths
from fanout_lint.rules import ALL_RULES
from fanout_lint.policy.settings import Settings


def template(pick) -> str:
    nl = pick(["\n", "\r\n"])
    comment = lambda: pick(["", "  # c", " #x"])  # noqa: E731
    blank = lambda: pick(["", nl])  # noqa: E731
    timeout = pick(["30", '"30"', "'30'"])
    queue = pick([
        f"    Properties:{comment()}{nl}      VisibilityTimeout: {timeout}"
        f"{comment()}{nl}      RedrivePolicy: {{deadLetterTargetArn: !GetAtt D.Arn"
        f"{pick(['', ', maxReceiveCount: 9', ','])}}}{comment()}{nl}",
        f"    Properties: {{VisibilityTimeout: 30, RedrivePolicy: {{deadLetterTargetArn: !GetAtt D.Arn}}"
        f"{pick(['', ','])}}}{comment()}{nl}",
        f"    Properties:{nl}      RedrivePolicy:{nl}        deadLetterTargetArn: !GetAtt D.Arn{comment()}{nl}"
        f"{pick(['', '        # trailing' + nl])}",
    ])
    dlq = pick([
        f"  D:{nl}    Type: AWS::SQS::Queue{comment()}{nl}",
        f"  D: {{Type: AWS::SQS::Queue}}{comment()}{nl}",
        f"  D:{nl}    Type: AWS::SQS::Queue{nl}    Properties: {{MessageRetentionPeriod: 60}}{nl}",
    ])
    mapping = pick([
        f"    Properties:{nl}      EventSourceArn: !GetAtt Q.Arn{nl}      FunctionName: !Ref F{comment()}{nl}",
        f"    Properties: {{EventSourceArn: !GetAtt Q.Arn, FunctionName: !Ref F{pick(['', ','])}}}{comment()}{nl}",
        f"    Properties:{nl}      EventSourceArn: !GetAtt Q.Arn{nl}      FunctionName: !Ref F{nl}"
        f"      Script: |{nl}        x{nl}{blank()}",
    ])
    text = (f"Resources:{nl}  Q:{nl}    Type: AWS::SQS::Queue{nl}{queue}{blank()}{dlq}{blank()}"
            f"  F:{nl}    Type: AWS::Lambda::Function{nl}    Properties: {{Timeout: 60}}{nl}"
            f"  M:{nl}    Type: AWS::Lambda::EventSourceMapping{nl}{mapping}")
    return text.rstrip("\r\n") if pick([False, True]) else text


def terraform(pick) -> str:
    nl = pick(["\n", "\r\n"])
    comment = lambda: pick(["", " # c", " // c"])  # noqa: E731
    queue = pick([
        f'resource "aws_sqs_queue" "q" {{{nl}  visibility_timeout_seconds = 30{comment()}{nl}'
        f'  redrive_policy = jsonencode({{ deadLetterTargetArn = aws_sqs_queue.d.arn'
        f'{pick(["", ",", ", maxReceiveCount = 9"])} }}){nl}{pick(["", "  # end" + nl])}}}{nl}',
        f'resource "aws_sqs_queue" "q" {{{nl}  redrive_policy = jsonencode({{{nl}'
        f'    deadLetterTargetArn = aws_sqs_queue.d.arn{pick(["", ","])}{comment()}{nl}'
        f'{pick(["", "    // more" + nl])}  }}){nl}  tags = {{{nl}    a = "b"{nl}  }}{nl}}}{nl}',
    ])
    dlq = pick([
        f'resource "aws_sqs_queue" "d" {{}}{nl}',
        f'resource "aws_sqs_queue" "d" {{ name = "d" }}{nl}',
        f'resource "aws_sqs_queue" "d" {{{nl}}}{nl}',
        f'resource "aws_sqs_queue" "d" {{{nl}\tname = "d"{nl}}}{nl}',
    ])
    mapping = pick([
        f'resource "aws_lambda_event_source_mapping" "m" {{{nl}  event_source_arn = aws_sqs_queue.q.arn{nl}'
        f'  function_name = aws_lambda_function.f.arn{nl}}}',
        f'resource "aws_lambda_event_source_mapping" "m" {{{nl}  event_source_arn = aws_sqs_queue.q.arn{nl}'
        f'  function_name = aws_lambda_function.f.arn{nl}  scaling_config {{{nl}    maximum_concurrency = 2{nl}  }} }}',
    ])
    return (queue + nl + dlq + nl + f'resource "aws_lambda_function" "f" {{{nl}  timeout = 60{nl}}}{nl}{nl}'
            + mapping + pick(["", nl]))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data())
def test_every_shape_is_fixed_and_still_parses(tmp_path_factory, data):
    pick = lambda options: data.draw(st.sampled_from(options))  # noqa: E731
    tmp = tmp_path_factory.mktemp("shape")
    if data.draw(st.booleans()):
        text, path, target = template(pick), tmp / "stack.yaml", tmp / "stack.yaml"
    else:
        (tmp / "unit").mkdir()
        text, path, target = terraform(pick), tmp / "unit" / "main.tf", tmp / "unit"
    path.write_bytes(text.encode("utf-8"))
    before = lint_paths([str(target)], ALL_RULES, Settings())
    assert not before.errors, before.errors
    fixed = {(f.rule, f.resource) for f in before.findings if f.fix is not None}
    assert fixed
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        main(["check", str(target), "--fix", "--unsafe-fixes"])
    after = lint_paths([str(target)], ALL_RULES, Settings())
    result = path.read_bytes().decode("utf-8")
    assert not after.errors, (after.errors, result)
    assert not fixed & {(f.rule, f.resource) for f in after.findings}, result
    assert result.count("\r\n") == (result.count("\n") if "\r\n" in text else 0), result
    assert result.endswith(("\n", "}")) == text.endswith(("\n", "}"))
