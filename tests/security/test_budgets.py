"""Hostile input that used to take minutes or gigabytes: each shape now ends, within
its budget, as a normal result (too-large values are unknown, so rules stay silent) or as one
one-line error for its unit, with the other units still linted.

Sizes are chosen so that the old code (backtracking patterns, evaluation without memo or
limits) would take minutes or exhaust memory. Nothing here is timed (a wall-clock bound
fails on a loaded machine): the budget counts the work, and a unit past it is one error
naming the budget; where a test needs the count itself, it reads the unit's budget.
The linear replacements of patterns are checked against the patterns they replace on
random text.
"""

from __future__ import annotations

import json
import random
import re
import tracemalloc

import pytest

from fanout_lint.loaders.parsing.budget import MAX_STRING_PARTS, Budget, BudgetExceeded, TooLarge
from fanout_lint.cli.main import main
from fanout_lint.loaders import names
from fanout_lint.loaders.cloudformation import documents as cfn_documents
from fanout_lint.loaders.cloudformation import intrinsics as cfn_intrinsics
from fanout_lint.loaders.terraform.hcl import expressions as hcl_expressions
from fanout_lint.loaders.parsing import json_source
from fanout_lint.loaders.build import build
from fanout_lint.loaders.cloudformation.loader import open_stack
from fanout_lint.loaders.terraform.hcl.expressions import Hole, Interpolated, Ref
from fanout_lint.loaders.parsing.yaml_source import parse_json
from fanout_lint.loaders.terraform.loader import parse_suppression
from fanout_lint.model.nodes import Loc

# One template that fires (a queue without DLQ read by a function), for "other units still
# linted".
GOOD = """\
AWSTemplateFormatVersion: "2010-09-09"
Resources:
  Queue:
    Type: AWS::SQS::Queue
  Worker:
    Type: AWS::Lambda::Function
  Mapping:
    Type: AWS::Lambda::EventSourceMapping
    Properties:
      EventSourceArn: !GetAtt Queue.Arn
      FunctionName: !Ref Worker
      FunctionResponseTypes: [ReportBatchItemFailures]
"""

CFN_HEAD = 'AWSTemplateFormatVersion: "2010-09-09"\n'


@pytest.fixture
def good(tmp_path):
    path = tmp_path / "good.yaml"
    path.write_text(GOOD)
    return path


def check(capsys, *paths) -> tuple[int, dict]:
    """The CLI with JSON output, in this process: exit code and report."""
    code = main(["check", "-j", "1", "--format", "json", *map(str, paths)])
    out = capsys.readouterr()
    assert "Traceback" not in out.out + out.err
    return code, json.loads(out.out)


def errors_of(report: dict, prefix) -> list[dict]:
    return [e for e in report["errors"] if e["file"].startswith(str(prefix))]


def assert_good_linted(report: dict, good) -> None:
    assert any(f["file"] == str(good) and f["name"] == "missing-dlq" for f in report["findings"]), report


def assert_linted_normally(capsys, path, good) -> dict:
    """The hostile unit gives no error (its too-large values are unknown) and the good one
    its finding."""
    code, report = check(capsys, path, good)
    assert not report["errors"], report["errors"]
    assert code == 1
    assert_good_linted(report, good)
    return report


def assert_one_line_error(capsys, path, good, *words: str) -> dict:
    code, report = check(capsys, path, good)
    assert code == 2
    errors = errors_of(report, path)
    assert len(errors) == 1, report["errors"]
    message = errors[0]["message"]
    assert "\n" not in message and "internal error" not in message, message
    for word in words:
        assert word in message, message
    assert_good_linted(report, good)
    return errors[0]


def write_tf(directory, files: dict[str, str]):
    directory.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (directory / name).write_text(text)
    return directory


# -- patterns over input: CloudFormation ----------------------------------------

def test_sub_with_many_unclosed_variables(capsys, tmp_path, good):
    opened = "${" * 200_000  # the old pattern scanned from each ${ to the end: 2e10 steps
    path = tmp_path / "sub.yaml"
    path.write_text(CFN_HEAD + "Resources:\n  Q:\n    Type: AWS::SQS::Queue\n    Properties:\n"
                    f"      QueueName: !Sub '{opened}'\n"
                    f"      RedrivePolicy: !Sub '{{\"deadLetterTargetArn\": \"{opened}a.Arn\"}}'\n"
                    f"      KmsMasterKeyId: !Sub '{'${a' * 100_000}'\n")
    assert_linted_normally(capsys, path, good)


def test_sub_json_whose_strings_hold_many_marks(capsys, tmp_path, good):
    marks = "@@a@" * 100_000 + "${x}" + "${" * 100_000
    path = tmp_path / "marks.yaml"
    path.write_text(CFN_HEAD + "Resources:\n  Q:\n    Type: AWS::SQS::Queue\n    Properties:\n"
                    f"      RedrivePolicy: !Sub '{{\"deadLetterTargetArn\": \"{marks}\", \"maxReceiveCount\": 3}}'\n")
    assert_linted_normally(capsys, path, good)


def test_queue_url_with_a_long_host(capsys, tmp_path, good):
    host = "amazonaws.com" * 80_000  # the old pattern tried each place the word starts
    path = tmp_path / "url.yaml"
    path.write_text(CFN_HEAD + "Resources:\n  F:\n    Type: AWS::Lambda::Function\n"
                    "  M:\n    Type: AWS::Lambda::EventSourceMapping\n    Properties:\n"
                    f"      EventSourceArn: https://{host}\n      FunctionName: !Ref F\n")
    assert_linted_normally(capsys, path, good)


def test_json_template_with_a_long_punctuation_key(capsys, tmp_path, good):
    key = "," * 150_000 + "x"  # the old pattern tried every split of the key
    template = {"AWSTemplateFormatVersion": "2010-09-09", "Metadata": {key: 1},
                "Resources": {"Q": {"Type": "AWS::SQS::Queue"}}}
    path = tmp_path / "key.json"
    path.write_text(json.dumps(template))
    assert_linted_normally(capsys, path, good)


# -- evaluation: CloudFormation --------------------------------------------------

def test_a_large_parameter_default_joined_many_times(capsys, tmp_path, good):
    # 6,000 copies of 1 MiB: 6 GB unbounded. Past the string limit the name is unknown.
    big = "x" * (1024 * 1024)
    refs = ", ".join(["!Ref Big"] * 6000)
    path = tmp_path / "big.yaml"
    path.write_text(CFN_HEAD + f"Parameters:\n  Big:\n    Type: String\n    Default: {big}\n"
                    "Resources:\n  Q:\n    Type: AWS::SQS::Queue\n    Properties:\n"
                    f"      QueueName: !Join ['', [{refs}]]\n"
                    f"      KmsMasterKeyId: !Sub '{'${Big}' * 6000}'\n")
    tracemalloc.start()
    try:
        assert_linted_normally(capsys, path, good)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 128 * 1024 * 1024


def test_yaml_aliases_sharing_joins(capsys, tmp_path, good):
    # Each level joins two aliases of the one below: 2^14 evaluations of the lowest and a
    # 4 GB name without memo and limits; once per node with them, unknown past 1 MiB.
    lines = [CFN_HEAD.rstrip(), f"Parameters:\n  P:\n    Type: String\n    Default: {'p' * 256 * 1024}",
             "Mappings:", "  M:", "    K:", "      a0: &a0 !Join ['', [!Ref P, !Ref P]]"]
    for level in range(1, 14):
        lines.append(f"      a{level}: &a{level} !Join ['', [*a{level - 1}, *a{level - 1}]]")
    lines += ["Resources:", "  Q:", "    Type: AWS::SQS::Queue", "    Properties:",
              "      QueueName: *a13", "      KmsMasterKeyId: !If [C, *a13, *a12]"]
    path = tmp_path / "aliases.yaml"
    path.write_text("\n".join(lines) + "\n")
    assert_linted_normally(capsys, path, good)


def test_an_external_label_of_a_large_shared_value(capsys, tmp_path, good):
    # str() of 2,000 aliases of a 1 MiB string would be 2 GB; the label needs 80 characters.
    items = ", ".join(["*big"] * 2000)
    path = tmp_path / "label.yaml"
    path.write_text(CFN_HEAD + f"Metadata:\n  Big: &big {'b' * (1024 * 1024)}\n"
                    "Resources:\n  F:\n    Type: AWS::Lambda::Function\n"
                    "  M:\n    Type: AWS::Lambda::EventSourceMapping\n    Properties:\n"
                    f"      EventSourceArn: [{items}]\n      FunctionName: !Ref F\n")
    tracemalloc.start()
    try:
        assert_linted_normally(capsys, path, good)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 128 * 1024 * 1024


def test_conditions_nested_over_many_distinct_values(capsys, tmp_path, good):
    counter = iter(range(1 << 20))

    def tree(depth):
        if depth == 0:
            return f"q{next(counter)}"
        return {"Fn::If": ["C", tree(depth - 1), tree(depth - 1)]}

    # 32,768 options, each compared with every kept one before: 5e8 comparisons.
    template = {"AWSTemplateFormatVersion": "2010-09-09",
                "Conditions": {"C": {"Fn::Equals": ["a", "b"]}},
                "Resources": {"Q": {"Type": "AWS::SQS::Queue", "Properties": {"QueueName": tree(15)}}}}
    path = tmp_path / "ifs.json"
    path.write_text(json.dumps(template))
    assert_linted_normally(capsys, path, good)


# -- parsing and evaluation: Terraform ---------------------------------------------

def test_many_comment_lines_and_many_resources(capsys, tmp_path, good):
    # Each resource looked for its comments among all of the file's: 2,000 x 180,000
    # (the file stays under the limit for one Terraform file).
    queues = "".join(f'resource "aws_sqs_queue" "q{i}" {{\n  name = "q{i}"\n}}\n' for i in range(2000))
    comment = "/*\n" + "x\n" * 180_000 + "*/\n"
    unit = write_tf(tmp_path / "comments", {"main.tf": queues + comment + "\n" * 50_000})
    assert_linted_normally(capsys, unit, good)


def test_resource_arguments_that_read_each_other(capsys, tmp_path, good):
    # Each queue's timeout reads the one before twice: 2^40 evaluations without memo.
    blocks = ['resource "aws_sqs_queue" "q0" {\n  visibility_timeout_seconds = 30\n}\n']
    for i in range(1, 41):
        previous = f"aws_sqs_queue.q{i - 1}.visibility_timeout_seconds"
        blocks.append(f'resource "aws_sqs_queue" "q{i}" {{\n'
                      f"  visibility_timeout_seconds = max({previous}, {previous})\n}}\n")
    unit = write_tf(tmp_path / "chain", {"main.tf": "".join(blocks)})
    assert_linted_normally(capsys, unit, good)


def spent(monkeypatch) -> list[Budget]:
    """The budgets the run charges, each once, in order: what its evaluation cost."""
    budgets: list[Budget] = []
    for method in ("step", "text"):
        charge = getattr(Budget, method)

        def counted(self, *args, _charge=charge, **kwargs):
            if not any(b is self for b in budgets):
                budgets.append(self)
            return _charge(self, *args, **kwargs)

        monkeypatch.setattr(Budget, method, counted)
    return budgets


def test_squared_numbers_and_doubled_strings(capsys, tmp_path, good, monkeypatch):
    # 3^(2^30) and a string of 2^40 characters: unknown past the limits. Counted, not
    # timed: a few hundred steps (one per expression, each local evaluated once) plus one
    # per part of a string, whose parts are bounded (budget.MAX_STRING_PARTS), and a few
    # times the longest string allowed (each doubling built until it is too long), where
    # evaluation without memo or limits would take 2^40 of either.
    squares = "".join(f"  a{i} = local.a{i - 1} * local.a{i - 1}\n" for i in range(1, 31))
    doubles = "".join(f'  s{i} = "${{local.s{i - 1}}}${{local.s{i - 1}}}"\n' for i in range(1, 41))
    text = ("locals {\n  a0 = 3\n" + squares + '  s0 = "ab"\n' + doubles + "}\n"
            'resource "aws_sqs_queue" "q" {\n  name = local.s40\n'
            "  visibility_timeout_seconds = local.a30\n  message_retention_seconds = local.a30 + 1\n}\n")
    unit = write_tf(tmp_path / "growth", {"main.tf": text})
    budgets = spent(monkeypatch)
    assert_linted_normally(capsys, unit, good)
    assert budgets, "the budget was read"
    growth = max(budgets, key=lambda budget: budget.characters)  # the Terraform unit's
    assert growth.steps < 2 * MAX_STRING_PARTS + 1_000, growth.steps
    assert growth.characters <= 8 * growth.max_string, growth.characters


def test_module_calls_fanning_out(capsys, tmp_path, good):
    # Each level calls the next 8 times, 6 levels deep: 299,592 instances, each read.
    root = tmp_path / "fan"
    for level in range(7):
        directory = root if level == 0 else root / f"m{level}"
        calls = "" if level == 6 else "".join(
            f'module "c{k}" {{\n  source = "{"./" if level == 0 else "../"}m{level + 1}"\n}}\n' for k in range(8)
        )
        write_tf(directory, {"main.tf": calls + 'resource "aws_sqs_queue" "q" {}\n'})
    error = assert_one_line_error(capsys, root, good, "module budget", "1,000")
    assert error["line"] is not None


def test_quoted_policy_with_many_interpolations(capsys, tmp_path, good):
    # A quoted JSON policy of 32,768 interpolations (doubled through locals, which the
    # parser reads fast): decoding re-read the whole document before each one, 1e10 steps.
    doubles = "".join(f'  p{i} = "${{local.p{i - 1}}}${{local.p{i - 1}}}"\n' for i in range(1, 16))
    text = ('locals {\n  p0 = "{\\"Resource\\": \\"${aws_sqs_queue.q.arn}\\"},"\n' + doubles + "}\n"
            'resource "aws_sqs_queue" "q" {}\n'
            'resource "aws_sqs_queue_policy" "p" {\n  queue_url = aws_sqs_queue.q.id\n'
            '  policy = "{\\"Statement\\": [${local.p15}{}]}"\n}\n')
    unit = write_tf(tmp_path / "policy", {"main.tf": text})
    assert_linted_normally(capsys, unit, good)


def test_long_strings_of_escapes(capsys, tmp_path, good):
    # 430 KB of text in 2,800 pieces (escaped interpolations split it): the text was grown
    # by += one piece at a time. Larger files are refused before they are parsed.
    text = f'resource "aws_sqs_queue" "q" {{\n  name = "{("$${a}" + "x" * 300) * 1_400}"\n}}\n'
    unit = write_tf(tmp_path / "escapes", {"main.tf": text})
    assert_linted_normally(capsys, unit, good)


def test_toset_of_many_items(capsys, tmp_path, good):
    # 45,000 items (from tfvars, which json reads fast): list membership, 1e9 comparisons.
    items = [f"i{i % 44_990}" for i in range(45_000)]
    text = ('variable "items" {}\nlocals {\n  s = toset(var.items)\n}\n'
            'resource "aws_sqs_queue" "q" {\n  visibility_timeout_seconds = length(local.s) - 44960\n}\n')
    unit = write_tf(tmp_path / "set", {"main.tf": text, "terraform.tfvars.json": json.dumps({"items": items})})
    assert_linted_normally(capsys, unit, good)


def test_deeply_nested_interpolation_is_one_line_error(capsys, tmp_path, good):
    text = '"x"'
    for _ in range(5000):
        text = '"x${' + text + '}"'
    unit = write_tf(tmp_path / "deep", {"main.tf": f'resource "aws_sqs_queue" "q" {{\n  name = {text}\n}}\n'})
    error = assert_one_line_error(capsys, unit, good, "nested too deeply")
    assert error["line"] == 2


def test_deeply_nested_for_is_not_a_crash(capsys, tmp_path, good):
    nested_for = "[for x in " * 5000 + "[]" + " : x]" * 5000
    text = (f"locals {{\n  a = {nested_for}\n}}\n"
            'resource "aws_sqs_queue" "q" {\n  name = local.a\n}\n')
    unit = write_tf(tmp_path / "nested", {"main.tf": text})
    assert_linted_normally(capsys, unit, good)


def test_deeply_nested_heredocs_are_one_line_error(capsys, tmp_path, good):
    # Each heredoc is parsed again from the text of the interpolation it is in: 5,000
    # levels would read the file thousands of times over.
    heredoc = "1"
    for k in range(5000):
        heredoc = f"<<M{k}\n${{{heredoc}\n}}\nM{k}\n"
    text = (f"locals {{\n  a = 1\n  b = {heredoc}\n}}\n"
            'resource "aws_sqs_queue" "q" {\n  name = local.b\n}\n')
    unit = write_tf(tmp_path / "nested", {"main.tf": text})
    error = assert_one_line_error(capsys, unit, good, "heredocs nested in interpolations")
    assert error["line"] == 3


def test_a_walk_past_the_step_budget_is_one_line_error_naming_the_resource_evaluated(capsys, tmp_path, good):
    # Lists that hold the list below twice: comparing them walks 2^60 members. The walk is
    # on the first of two queues: every view is made before the first is built, so the
    # error used to name the last one.
    lists = "".join(f"  l{i} = [local.l{i - 1}, local.l{i - 1}]\n" for i in range(1, 61))
    text = ('locals {\n  l0 = ["x"]\n' + lists + "}\n"
            'resource "aws_sqs_queue" "walks" {\n  fifo_queue = local.l60 == local.l60\n}\n'
            'resource "aws_sqs_queue" "plain" {\n  name = "plain"\n}\n')
    unit = write_tf(tmp_path / "walk", {"main.tf": text})
    error = assert_one_line_error(capsys, unit, good, "evaluation budget", "aws_sqs_queue.walks")
    assert "plain" not in error["message"]
    assert error["file"].endswith("main.tf") and error["line"] == 64


def test_a_cloudformation_budget_error_names_the_resource_being_evaluated():
    # 2^12 options of a name on the first queue, with a budget of a thousand steps: the
    # error is the first queue's, not the last one's.
    counter = iter(range(1 << 13))

    def tree(depth):
        return f"q{next(counter)}" if depth == 0 else {"Fn::If": ["C", tree(depth - 1), tree(depth - 1)]}

    data = {"AWSTemplateFormatVersion": "2010-09-09", "Conditions": {"C": {"Fn::Equals": ["a", "b"]}},
            "Resources": {"First": {"Type": "AWS::SQS::Queue", "Properties": {"QueueName": tree(12)}},
                          "Second": {"Type": "AWS::SQS::Queue"}}}
    text = json.dumps(data, indent=1)
    stack = open_stack(parse_json(text, "first.json"), "first.json", "json", text,
                       Budget(file="first.json", max_steps=1000))
    with pytest.raises(BudgetExceeded) as raised:
        build(stack.views(), stack.linker)
    assert "while evaluating First" in raised.value.message
    first = next(n for n, line in enumerate(text.splitlines(), 1) if '"First"' in line)
    assert (raised.value.file, raised.value.line) == ("first.json", first)


def test_plan_module_outputs_that_read_several_outputs_below(capsys, tmp_path, good):
    # Each module's output names the output of the module below three times, 30 deep:
    # 3^30 resolutions without memo.
    module = {"outputs": {"o": {"expression": {"references": ["aws_sqs_queue.q.arn"]}}}}
    for level in range(30, 0, -1):
        below = f"module.m{level}.o"
        module = {"outputs": {"o": {"expression": {"references": [below, below, below]}}},
                  "module_calls": {f"m{level}": {"module": module}}}
    plan = {"format_version": "1.2", "planned_values": {"root_module": {"resources": []}},
            "configuration": {"root_module": module}}
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(plan))
    code, report = check(capsys, path, good)
    assert not report["errors"]
    assert_good_linted(report, good)


# -- the budget itself --------------------------------------------------------------

def test_budget_limits_raise_or_make_values_too_large():
    budget = Budget(max_steps=10, max_string=5, max_characters=8, max_depth=2, max_modules=1)
    budget.step(10)
    with pytest.raises(BudgetExceeded, match=r"evaluation budget \(10 steps\)"):
        budget.step()
    assert budget.join("-", ["ab", "c"]) == "ab-c"
    with pytest.raises(TooLarge):
        budget.join("", ["abc", "def"])
    with pytest.raises(BudgetExceeded, match="8 characters"):
        budget.join("", ["abcde"])
    with pytest.raises(TooLarge):
        budget.number(2**65)
    assert budget.number(2**63) == 2**63
    with pytest.raises(TooLarge):
        budget.number(float("inf"))
    budget.enter()
    budget.enter()
    with pytest.raises(BudgetExceeded, match="2 deep"):
        budget.enter()
    budget.module("main.tf", 3)
    with pytest.raises(BudgetExceeded) as raised:
        budget.module("main.tf", 7)
    assert (raised.value.file, raised.value.line) == ("main.tf", 7)


def test_evaluator_limits_are_unknown_not_errors():
    from fanout_lint.loaders.terraform.hcl.syntax import parse_expression
    from fanout_lint.model.values import Known, Unknown

    class Scope:
        def lookup(self, root, steps):
            return Unknown(root)

        def configured(self, ref):
            return Unknown("after apply")

    def evaluate(text, **limits):
        return hcl_expressions.Evaluator(Scope(), Budget(**limits)).eval(parse_expression(text))

    assert evaluate('"${"abc"}${"def"}"', max_string=5) == Unknown("string longer than 5 characters")
    assert evaluate('"${"abc"}${"de"}"', max_string=5) == Known("abcde")
    assert isinstance(evaluate("4294967296 * 4294967296"), Unknown)
    assert evaluate("4294967296 * 4") == Known(17179869184)
    assert isinstance(evaluate("concat([1, 2], [3])", max_items=2), Unknown)
    assert evaluate("concat([1, 2], [3])") == Known([1, 2, 3])
    with pytest.raises(BudgetExceeded):
        evaluate("1 + 2 + 3", max_steps=3)


# -- linear replacements: same results as the patterns they replace ------------------

def _texts(alphabet: str, count: int = 3000, longest: int = 24, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, longest))) for _ in range(count)]


OLD_SUB_VAR = re.compile(r"\$\{([^}!][^}]*)\}")
OLD_SUB_MARK = re.compile(r"\$\{([^}]+)\}")
OLD_SUB_ATTRIBUTE = re.compile(r"\$\{([^}!.][^}.]*)\.(Arn|QueueName|TopicName|QueueUrl|TopicArn)\}")
OLD_QUEUE_URL = re.compile(r"^https://(?:sqs\.)?[^/]*amazonaws\.com[^/]*/[^/]+/([^/]+)$")
OLD_BETWEEN_STRINGS = re.compile(r"[\s,:\[\]{}0-9+\-.eEtrufalsn]*[,:][\s,:\[\]{}0-9+\-.eEtrufalsn]*\Z")


def test_sub_references_match_the_old_patterns():
    texts = _texts("${}!.a ") + _texts("${}!Arn.QueueUrlTopicName", seed=8) + [
        "${AWS::Region}-${Name}", "${!Literal}${x}", "${}", "${", "}", "a${b${c}d}", "${ x.Arn }",
    ]
    for text in texts:
        spans = [(m.start(), m.end(), m.group(1)) for m in OLD_SUB_VAR.finditer(text)]
        assert cfn_intrinsics.sub_references(text) == spans, text
        marks = [(m.start(), m.end(), m.group(1)) for m in OLD_SUB_MARK.finditer(text)]
        assert cfn_intrinsics.sub_references(text, literal_too=True) == marks, text
        attributes = [(m.start(), m.end(), m.group(1)) for m in OLD_SUB_ATTRIBUTE.finditer(text)]
        assert cfn_documents._attribute_references(text) == attributes, text


def test_sub_values_and_pseudo_text_as_before():
    x = cfn_intrinsics.Intrinsics("t.yaml", {"Env": {"Default": "prod"}}, {}, {"Q": "AWS::SQS::Queue"})
    assert x.value({"Fn::Sub": "${Env}-orders-${!Literal}"}).value == "prod-orders-${Literal}"
    assert x.value({"Fn::Sub": ["${A}/${Env}", {"A": "a"}]}).value == "a/prod"
    assert cfn_intrinsics.pseudo_text({"Fn::Sub": "arn:${AWS::Partition}:sqs:${AWS::Region}:${AWS::AccountId}:q"}) == \
        "arn:aws:sqs:region:account:q"
    assert x._resources_named_in({"Fn::Sub": "${Q.Arn} ${AWS::Region}"}) == {"Q"}


def test_marks_back_to_sub_as_the_old_substitution():
    for text in _texts("@a ", longest=16) + ["@@a@@", "@@@a@@", "@@a@@b@@", "@@@@", "x@@y@@z"]:
        assert cfn_documents._marks_as_sub(text) == re.sub(r"@@([^@]+)@@", r"${\1}", text), text


def test_queue_url_name_as_the_old_pattern():
    texts = _texts("hts:/.qamazonwc1\n", longest=40) + [
        "https://sqs.eu-west-1.amazonaws.com/123456789012/orders",
        "https://sqs.eu-west-1.amazonaws.com/123456789012/orders\n",
        "https://queue.amazonaws.com/1/q", "https://sqs.amazonaws.com.cn/1/q", "https://amazonaws.com//q",
        "https://x.amazonaws.com/1/q/", "https://x.amazonaws.com/1", "http://sqs.amazonaws.com/1/q",
    ]
    for prefix in ("https://", "https://sqs.", "https://amazonaws.com/", "https://amazonaws.com/1/"):
        texts += [prefix + t for t in _texts("amazons.c/1\n", count=500, longest=30)]
    for text in texts:
        match = OLD_QUEUE_URL.match(text)
        assert names.queue_url_name(text) == (match.group(1) if match else None), repr(text)


def test_between_strings_as_the_old_pattern():
    for key in _texts(",:[]{} 0-9+.eEtrufalsnx\u00a0\t\n", longest=12) + ["", ",", "a", "1,2", "true:false"]:
        assert json_source.between_strings(key) == bool(OLD_BETWEEN_STRINGS.match(key)), repr(key)


def _old_inside_json_string(text: str) -> bool:
    inside = escaped = False
    for char in text:
        if escaped:
            escaped = False
        elif char == "\\" and inside:
            escaped = True
        elif char == '"':
            inside = not inside
    return inside


def _old_decode_text(parts) -> str:
    text = ""
    atoms = 0
    for part in parts:
        if isinstance(part, str):
            text += part
            continue
        marker = hcl_expressions._MARK % atoms
        atoms += 1
        text += marker if _old_inside_json_string(text) else json.dumps(marker)
    return text


def test_json_string_state_as_the_old_scan(monkeypatch):
    seen = []
    monkeypatch.setattr(hcl_expressions, "_loads", lambda text: seen.append(text) or "")
    rng = random.Random(3)
    for text in _texts('"\\ab', longest=10, count=2000):
        # Pieces of text with atoms between them, split at random places.
        cuts = sorted(rng.sample(range(len(text) + 1), min(len(text) + 1, rng.randint(0, 3))))
        parts, last = [], 0
        for cut in cuts:
            parts += [text[last:cut], Ref("aws_sqs_queue.q", "arn")]
            last = cut
        parts.append(text[last:])
        seen.clear()
        hcl_expressions.decode_json(Interpolated(tuple(parts)))
        assert seen == [_old_decode_text(parts)], parts


def test_toset_and_concat_text_as_before():
    budget = Budget()
    items = ["a", 1, 1.0, True, None, "a", [1, 2], [1, 2], [1, True], {"k": [1]}, {"k": [1.0]},
             {"k": [2]}, Ref("aws_sqs_queue.q", "arn"), Ref("aws_sqs_queue.q", "arn"), Hole("x"), float("nan")]
    old: list = []
    for item in items:
        if item not in old:
            old.append(item)
    assert hcl_expressions._to_set(budget, items) == old
    ref = Ref("aws_sqs_queue.q", "arn")
    assert hcl_expressions.concat_text(["a", "", 1, True, "b"], budget) == "a1trueb"
    assert hcl_expressions.concat_text(["", ref, ""], budget) == ref
    assert hcl_expressions.concat_text(["x", Interpolated(("a", ref, "b")), "y", ref], budget) == \
        Interpolated(("xa", ref, "by", ref))


def test_suppression_comments_as_before():
    loc = Loc("main.tf", 3, 1)
    found = parse_suppression(" fanout-lint: ignore=missing-dlq, FL201 until=2030-01-02 -- batch job ", loc)
    assert [(s.rule, s.until, s.reason) for s in found] == [
        ("missing-dlq", "2030-01-02", "batch job"), ("FL201", "2030-01-02", "batch job")]
    assert parse_suppression("fanout-lint: ignore=a\nb", loc) == []
    assert parse_suppression("fanout-lint: ignore=" + "a" * 100_000 + "\n" + "b", loc) == []


def test_short_text_is_the_start_of_str():
    for node in (["a", 1, None, True, {"k": [1.5, "x'y"]}], {"a": {"b": []}, "c": ["d"] * 50}, [], {}, "s" * 100, 12):
        assert cfn_intrinsics.short_text(node, 80) == str(node)[:80]
