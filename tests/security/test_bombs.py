"""Former stalls and bombs: shapes whose work grew faster than their size (a file of a few
KB that took minutes or gigabytes). Each is checked by what it counts (parses, merges,
file reads, characters charged), at two sizes where growth is the point, so the tests
are fast and do not depend on the machine; ``bench/bombs.py`` times the same shapes.
"""

from __future__ import annotations

import json
import random
import re
import time

import pytest

from fanout_lint.model.format import Format
from fanout_lint.run import link_plan as applications
from fanout_lint.run.link_plan import Application, plan
from fanout_lint.loaders.parsing.budget import Budget, BudgetExceeded
from fanout_lint.cli.main import main
from fanout_lint.loaders.candidate import Candidate
from fanout_lint.loaders.links import application
from fanout_lint.loaders.terraform.hcl import parser as hcl_parser
from fanout_lint.loaders.terraform.hcl import syntax as hcl_syntax
from fanout_lint.loaders.serverless import loader as serverless
from fanout_lint.loaders.serverless import variables as serverless_variables
from fanout_lint.loaders.links.application import load_application
from fanout_lint.loaders.terraform.hcl.syntax import parse_hcl
from fanout_lint.loaders.serverless.variables import resolve_variables

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
SLS_HEAD = "service: bomb\nprovider:\n  name: aws\n"


@pytest.fixture
def good(tmp_path):
    path = tmp_path / "good.yaml"
    path.write_text(GOOD)
    return path


def check(capsys, *paths) -> tuple[int, dict]:
    code = main(["check", "--format", "json", "--no-cache", *map(str, paths)])
    return code, json.loads(capsys.readouterr().out)


def one_line_error(capsys, path, good, *words: str) -> dict:
    """The hostile file's one error (exit 2), with the good file still linted."""
    code, report = check(capsys, path, good)
    assert code == 2
    errors = [e for e in report["errors"] if e["file"].startswith(str(path))]
    assert len(errors) == 1, report["errors"]
    message = errors[0]["message"]
    assert "\n" not in message and "internal error" not in message, message
    for word in words:
        assert word in message, message
    assert any(f["file"] == str(good) for f in report["findings"]), "the good file was not linted"
    return errors[0]


# -- Serverless: variables nested in variables ----------------------------------------

def nested_fallbacks(depth: int, length: int) -> str:
    return "${self:custom.absent, " * depth + "'" + "x" * length + "'" + "}" * depth


def test_variables_nested_past_the_depth_budget_are_one_line_error(capsys, tmp_path, good):
    path = tmp_path / "serverless.yml"
    path.write_text(SLS_HEAD + f'custom:\n  name: "{nested_fallbacks(200, 20_000)}"\n'
                    "functions:\n  worker:\n    handler: h.main\n    name: ${self:custom.name}\n")
    error = one_line_error(capsys, path, good, "nesting budget")
    assert error["line"] == 5  # the string's own line


def test_nested_variables_are_charged_by_the_text_they_read():
    def charged(length: int) -> int:
        budget = Budget()
        data = {"service": "s", "custom": {"name": nested_fallbacks(20, length)}}
        resolve_variables(data, budget)
        return budget.characters

    small, large = charged(2_000), charged(8_000)
    assert 20 * 2_000 <= small and large <= 4.5 * small  # each level's text, once

    with pytest.raises(BudgetExceeded, match="string budget"):
        data = {"service": "s", "custom": {"name": nested_fallbacks(20, 10_000)}}
        resolve_variables(data, Budget(max_characters=100_000))


def _old_split_outside(text: str, separator: str) -> list[str]:
    parts: list[str] = []
    parens = braces = last = index = 0
    while index < len(text):
        char = text[index]
        if text.startswith("${", index):
            braces += 1
            index += 2
            continue
        if char == "}" and braces:
            braces -= 1
        elif char == "(":
            parens += 1
        elif char == ")":
            parens -= 1
        elif char == separator and not parens and not braces:
            parts.append(text[last:index])
            last = index + 1
        index += 1
    parts.append(text[last:])
    return parts


def test_fallbacks_split_as_the_old_scan():
    rng = random.Random(11)
    for _ in range(3000):
        text = "".join(rng.choice(["${", "}", "(", ")", ",", "$", "{", "a", " "]) for _ in range(rng.randint(0, 20)))
        assert serverless_variables._split_outside(text) == _old_split_outside(text, ","), repr(text)
        first, alone = serverless_variables._first_outside(text)
        old = _old_split_outside(text, ",")
        assert (first, alone) == (old[0], len(old) == 1), repr(text)


# -- Serverless: shared values merged into resources -----------------------------------

def doubling_service(levels: int) -> str:
    lines = ["custom:", "  l0: [x]"]
    lines += [f"  l{k}: ['${{self:custom.l{k - 1}}}', '${{self:custom.l{k - 1}}}']" for k in range(1, levels + 1)]
    return (SLS_HEAD + "\n".join(lines) + "\n"
            f"functions:\n  worker:\n    handler: h.main\n    onError: ${{self:custom.l{levels}}}\n"
            "resources:\n  Resources:\n    WorkerLambdaFunction:\n      Properties:\n"
            f"        DeadLetterConfig:\n          TargetArn: ${{self:custom.l{levels}}}\n")


def test_shared_values_are_merged_once_each(capsys, tmp_path, monkeypatch):
    merges = []
    merged_once = serverless._merged_once
    monkeypatch.setattr(serverless, "_merged_once", lambda *args: merges.append(1) or merged_once(*args))

    def merged(levels: int) -> int:
        merges.clear()
        path = tmp_path / f"l{levels}" / "serverless.yml"
        path.parent.mkdir()
        path.write_text(doubling_service(levels))
        code, report = check(capsys, path)
        assert code == 0 and not report["errors"]
        return len(merges)

    # 2^40 merges before: one per level now (and the few of the resource itself)
    twenty, forty = merged(20), merged(40)
    assert forty <= 50 and forty - twenty == 20


def test_a_merge_past_the_step_budget_is_the_budget_error():
    budget = Budget(max_steps=100, file="serverless.yml")
    merges = serverless._Merges(budget)
    wide = [[str(i)] for i in range(200)]
    budget.at("serverless.yml", 9, "WorkerLambdaFunction")
    with pytest.raises(BudgetExceeded, match="evaluation budget") as raised:
        serverless._merged({"A": wide}, {"A": list(wide)}, 0, merges)
    assert raised.value.line == 9 and "WorkerLambdaFunction" in raised.value.message


# -- CloudFormation: one child template nested many times ------------------------------

CHILD = """\
AWSTemplateFormatVersion: "2010-09-09"
Parameters:
  Name:
    Type: String
Resources:
  Queue:
    Type: AWS::SQS::Queue
    Properties:
      QueueName: !Ref Name
"""


def test_a_child_nested_many_times_is_parsed_once(tmp_path, monkeypatch):
    (tmp_path / "child.yaml").write_text(CHILD)
    parent = tmp_path / "parent.yaml"
    parent.write_text('AWSTemplateFormatVersion: "2010-09-09"\nResources:\n' + "".join(
        f"  Child{i}:\n    Type: AWS::CloudFormation::Stack\n    Properties:\n"
        f"      TemplateURL: {'./' if i % 2 else 'sub/../'}child.yaml\n      Parameters:\n        Name: n{i}\n"
        for i in range(60)))
    (tmp_path / "sub").mkdir()
    reads = []
    read = application.read_template
    monkeypatch.setattr(application, "read_template", lambda path, *a: reads.append(path) or read(path, *a))
    graph, errors, _ = load_application((str(parent),), str(tmp_path))
    assert not errors
    assert len(reads) == 2  # the parent, and the child once for its 60 instances (two spellings)
    queues = [n for n in graph.nodes() if n.id.endswith("/Queue")]
    assert len(queues) == 60  # each instance still has its own resources


# -- the link plan: naming one file of a nesting chain ----------------------------------

def write_chain(directory, length: int) -> None:
    (directory / ".git").mkdir(parents=True)
    for i in range(length):
        nested = (f"  Next:\n    Type: AWS::CloudFormation::Stack\n    Properties:\n"
                  f"      TemplateURL: link{i + 1}.yaml\n" if i + 1 < length else "")
        (directory / f"link{i}.yaml").write_text(
            'AWSTemplateFormatVersion: "2010-09-09"\nParameters:\n  P:\n    Type: String\n'
            f"Resources:\n  Queue:\n    Type: AWS::SQS::Queue\n{nested}")


def test_naming_the_end_of_a_nesting_chain_reads_each_file_a_bounded_number_of_times(tmp_path, monkeypatch):
    reads = []
    data = applications._Scan.data
    monkeypatch.setattr(applications._Scan, "data", lambda self, path: reads.append(path) or data(self, path))

    def planned(length: int) -> int:
        reads.clear()
        directory = tmp_path / f"chain{length}"
        write_chain(directory, length)
        monkeypatch.chdir(directory)
        last = f"link{length - 1}.yaml"
        work = plan([Candidate(last, Format.CLOUDFORMATION)], [last])
        assert len(work) == 1 and isinstance(work[0], Application)
        assert [p.rsplit("/", 1)[-1] for p in work[0].paths] == ["link0.yaml"]  # the chain's top
        return len(reads)

    short, long = planned(20), planned(80)
    # before: every template outside the run read again at every level of the chain
    assert long <= 5 * 80 and long <= 4.5 * short


def test_an_outside_template_joins_when_it_names_a_reached_one_as_before(tmp_path, monkeypatch):
    (tmp_path / ".git").mkdir()
    (tmp_path / "child name.yaml").write_text(CHILD)
    for name, url in (("quoted.yaml", '"./sub/../child name.yaml"'), ("other.yaml", "elsewhere.yaml")):
        (tmp_path / name).write_text('AWSTemplateFormatVersion: "2010-09-09"\nResources:\n  Nested:\n'
                                     "    Type: AWS::CloudFormation::Stack\n    Properties:\n"
                                     f"      TemplateURL: {url}\n")
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path)
    work = plan([Candidate("child name.yaml", Format.CLOUDFORMATION)], ["child name.yaml"])
    assert [p.rsplit("/", 1)[-1] for p in work[0].paths] == ["quoted.yaml"]
    names = applications._names_ending(b'TemplateURL: "a/b c.yaml"', len(b'TemplateURL: "a/b c.yaml'))
    assert b"b c.yaml" in names and b"c.yaml" in names


# -- HCL: heredocs ------------------------------------------------------------------------

def _heredoc_patterns(grammar: str) -> dict[str, re.Pattern]:
    found = {}
    for line in grammar.split("\n"):
        name, _, rest = line.partition(":")
        if name.strip() in ("HEREDOC_TEMPLATE", "HEREDOC_TEMPLATE_TRIM"):
            found[name.strip()] = re.compile(rest.strip()[1:-1])
    return found


def test_the_linear_heredoc_patterns_match_what_the_grammar_s_own_match():
    old = _heredoc_patterns(hcl_parser.grammar_text())
    new = _heredoc_patterns(hcl_parser.parser_grammar())
    assert set(old) == set(new) == {"HEREDOC_TEMPLATE", "HEREDOC_TEMPLATE_TRIM"}
    assert all(old[name].pattern != new[name].pattern for name in old)
    rng = random.Random(5)
    pieces = ["\n", "\r\n", " ", "\t", "\x0b", "EOF", "EOFX", "xEOF", "x", "${a}", "<<EOF\n", "\nEOF\n",
              "\n \tEOF\r\n", "\n\n"]
    matched = 0
    for _ in range(4000):
        for name, opener in (("HEREDOC_TEMPLATE", "<<EOF\n"), ("HEREDOC_TEMPLATE_TRIM", "<<-EOF\n")):
            text = opener + "".join(rng.choice(pieces) for _ in range(rng.randint(0, 10)))
            a, b = old[name].match(text), new[name].match(text)
            assert (a and a.group(0)) == (b and b.group(0)), repr(text)
            matched += a is not None
    assert matched > 1000  # the random texts close their heredocs often enough to compare


def test_a_heredoc_of_many_blank_lines_parses_in_linear_time():
    # 100,000 blank lines then a line of text: python-hcl2's pattern ran through the blank
    # lines again at each of them (hours); the bound is generous for a loaded machine.
    text = 'locals {\n  a = <<EOF\n' + "\n" * 100_000 + "text\nEOF\n}\n"
    start = time.perf_counter()
    parsed = parse_hcl(text, "main.tf")
    assert time.perf_counter() - start < 20
    assert parsed.body.blocks[0].body.attributes["a"].expr.value == "\n" * 100_000 + "text\n"


def nested_heredocs(depth: int, length: int) -> str:
    body = f"<<H0\n{'x' * length}\nH0\n"
    for level in range(1, depth):
        body = f"<<H{level}\n${{{body}}}\nH{level}\n"
    return f'resource "aws_sqs_queue" "q" {{\n  name = {body}}}\n'


def test_heredocs_nested_in_interpolations_read_the_text_a_bounded_number_of_times(monkeypatch):
    read = []
    parse_expression = hcl_syntax.parse_expression

    def counted(text, depth=0, budget=None):
        read.append(len(text))
        return parse_expression(text, depth, budget)

    monkeypatch.setattr(hcl_syntax, "parse_expression", counted)
    parse_hcl(nested_heredocs(3, 20_000), "main.tf")  # a real file nests two or three: parsed
    assert len(read) == 2
    read.clear()
    with pytest.raises(hcl_syntax.HclError, match="heredocs nested in interpolations") as raised:
        parse_hcl(nested_heredocs(150, 20_000), "main.tf")
    assert raised.value.line == 2
    assert sum(read) <= 16 * 20_000 * 1.2  # stopped at the budget, not 150 levels in


def test_heredocs_nested_past_the_budget_are_one_line_error(capsys, tmp_path, good):
    unit = tmp_path / "tf"
    unit.mkdir()
    (unit / "main.tf").write_text(nested_heredocs(150, 2_000))
    error = one_line_error(capsys, unit, good, "heredocs nested in interpolations")
    assert error["file"].endswith("main.tf") and error["line"] == 2


def _old_closing_brace(text: str, start: int):
    depth, in_string, index = 0, False, start
    while index < len(text):
        char = text[index]
        if in_string:
            if char == "\\":
                index += 1
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char == "{":
            depth += 1
        elif char == "}":
            if depth == 0:
                return index
            depth -= 1
        index += 1
    return None


def test_the_closing_brace_as_the_old_scan():
    rng = random.Random(9)
    for _ in range(3000):
        text = "".join(rng.choice(['"', "\\", "{", "}", "a", "$"]) for _ in range(rng.randint(0, 16)))
        start = rng.randint(0, len(text))
        assert hcl_syntax._closing_brace(text, start) == _old_closing_brace(text, start), (text, start)
