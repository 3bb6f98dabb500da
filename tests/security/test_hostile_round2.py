"""Held-out attacks of the classes of the second hostile round (see docs/benchmarks.md,
"Held-out attacks"): variants no other test tried, written after the fixes, each of which
must hold. A pull request's author controls every file of the checkout, its name and
the configuration file; each attack below goes in through one of them.

Bombs run at small sizes and assert what they count (parts built, exit codes), never
how long they take.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess

import pytest
import yaml

from fanout_lint.loaders.parsing.budget import Budget, TooLarge
from fanout_lint.cli.main import main
from fanout_lint.loaders.terraform.hcl import expressions as hcl_expressions
from fanout_lint.loaders.terraform.hcl.expressions import Interpolated, Ref, concat_text
from outside_repo import MODULE, SECRET, TEMPLATE
from repo_paths import ROOT

POSIX = pytest.mark.skipif(os.name != "posix", reason="symbolic and hard links are POSIX")

# Only FL203 fires (61 s is below 6 x 60 s): what a rule option can turn off.
HEADROOM = """\
Resources:
  Q:
    Type: AWS::SQS::Queue
    Properties:
      VisibilityTimeout: 61
      RedrivePolicy: {deadLetterTargetArn: !GetAtt DLQ.Arn, maxReceiveCount: 5}
  DLQ:
    Type: AWS::SQS::Queue
    Properties:
      MessageRetentionPeriod: 1209600
  Worker:
    Type: AWS::Lambda::Function
    Properties:
      Timeout: 60
  Mapping:
    Type: AWS::Lambda::EventSourceMapping
    Properties:
      EventSourceArn: !GetAtt Q.Arn
      FunctionName: !Ref Worker
      FunctionResponseTypes: [ReportBatchItemFailures]
"""
FORBIDDEN = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]")


@pytest.fixture
def repo(tmp_path, monkeypatch):
    """A checkout (a git top level, the current directory) and, beside it, ``outside``:
    a directory of the machine a pull request must not reach."""
    checkout = tmp_path / "repo"
    (checkout / ".git").mkdir(parents=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "stack.yaml").write_text(TEMPLATE)
    (outside / "main.tf").write_text(MODULE)
    monkeypatch.chdir(checkout)
    return checkout


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["check", "--color", "never", "--no-cache", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def untouched(tmp_path) -> bool:
    outside = tmp_path / "outside"
    return (outside / "stack.yaml").read_text() == TEMPLATE and (outside / "main.tf").read_text() == MODULE


def leaked(text: str) -> bool:
    return SECRET in text or SECRET.lower() in text


def safe(text: str) -> bool:
    """No control or invisible character, and no line the runner reads as a forged command."""
    forged = [line for line in text.split("\n") if line.lstrip().startswith("::error::forged")]
    return FORBIDDEN.search(text) is None and not forged


# -- writes and reads outside the repository ----------------------------------------

@POSIX
def test_dot_dot_after_a_symlinked_directory_on_the_command_line(repo, tmp_path, capsys):
    (repo / "a").mkdir()
    os.symlink(tmp_path / "outside", repo / "a" / "link")
    code, out, err = run(capsys, "--fix", "a/link/../../outside/stack.yaml")
    assert code == 2 and not leaked(out + err) and untouched(tmp_path)


@pytest.mark.parametrize("source", ["../outside//", "../outside//.", "./a/../../outside", "git::file://{out}",
                                    "file://{out}", "{out}"])
def test_module_sources_that_spell_their_way_out(repo, tmp_path, capsys, source):
    (repo / "a").mkdir()
    source = source.format(out=tmp_path / "outside")
    (repo / "main.tf").write_text(f'module "m" {{\n  source = "{source}"\n}}\n')
    code, out, err = run(capsys, "--fix", ".")
    assert not leaked(out + err) and untouched(tmp_path), out + err


def test_nested_templates_named_by_file_urls_and_sam_locations_stay_inside(repo, tmp_path, capsys):
    outside = tmp_path / "outside"
    (repo / "parent.yaml").write_text(
        "Transform: AWS::Serverless-2016-10-31\nResources:\n"
        f"  A:\n    Type: AWS::CloudFormation::Stack\n    Properties:\n      TemplateURL: file://{outside}/stack.yaml\n"
        "  B:\n    Type: AWS::CloudFormation::Stack\n    Properties:\n      TemplateURL: file://../outside/stack.yaml\n"
        "  C:\n    Type: AWS::CloudFormation::Stack\n    Properties:\n      TemplateURL: '%2e%2e/outside/stack.yaml'\n"
        f"  D:\n    Type: AWS::Serverless::Application\n    Properties:\n      Location: {outside}/stack.yaml\n")
    code, out, err = run(capsys, "--fix", "parent.yaml")
    assert not leaked(out + err) and untouched(tmp_path)


def test_a_cdk_manifest_cannot_name_a_template_outside(repo, tmp_path, capsys):
    outside = tmp_path / "outside"
    (outside / "s.template.json").write_text(json.dumps({"Resources": {SECRET: {"Type": "AWS::SQS::Queue"}}}))
    (repo / "cdk.out").mkdir()
    (repo / "cdk.out" / "manifest.json").write_text(json.dumps({"version": "36.0.0", "artifacts": {
        "S": {"type": "aws:cloudformation:stack", "properties": {"templateFile": "../../outside/s.template.json"}},
        "T": {"type": "aws:cloudformation:stack", "properties": {"templateFile": str(outside / "s.template.json")}}}}))
    code, out, err = run(capsys, "cdk.out")
    assert not leaked(out + err)


def test_serverless_files_included_from_an_included_file_stay_inside(repo, tmp_path, capsys):
    outside = tmp_path / "outside"
    (outside / "res.yml").write_text(TEMPLATE)
    (repo / "svc" / "inc").mkdir(parents=True)
    (repo / "svc" / "serverless.yml").write_text(
        f"service: s\nprovider:\n  name: aws\nresources: ${{file(inc/r.yml)}}\ncustom:\n  x: ${{file({outside}/res.yml)}}\n")
    (repo / "svc" / "inc" / "r.yml").write_text("${file(../../../outside/res.yml)}\n")
    code, out, err = run(capsys, "--fix", "svc")
    assert not leaked(out + err) and (outside / "res.yml").read_text() == TEMPLATE


@POSIX
def test_an_auto_loaded_var_file_committed_as_a_symlink_is_not_read(repo, tmp_path, capsys):
    (tmp_path / "outside" / "x.tfvars").write_text(f'name = "{SECRET}"\n')
    (repo / "main.tf").write_text('variable "name" {}\nresource "aws_sqs_queue" "q" {\n  name = var.name\n}\n')
    os.symlink(tmp_path / "outside" / "x.tfvars", repo / "a.auto.tfvars")
    code, out, err = run(capsys, ".")
    assert code == 2 and not leaked(out + err)


@POSIX
def test_a_hard_link_is_replaced_by_a_fix_not_written_through(repo, tmp_path, capsys):
    # git never checks out a hard link; a local one must still not carry the fix outside
    try:
        os.link(tmp_path / "outside" / "stack.yaml", repo / "stack.yaml")
    except OSError:
        pytest.skip("no hard links here")
    code, out, err = run(capsys, "--fix", "stack.yaml")
    assert untouched(tmp_path) and "VisibilityTimeout: 360" in (repo / "stack.yaml").read_text()


@POSIX
@pytest.mark.skipif(not os.path.isdir("/proc/self/cwd"), reason="needs /proc")
@pytest.mark.parametrize("flag", ["--output={}", "--report=json={}", "--write-baseline={}"])
def test_no_write_through_a_committed_link_spelled_through_proc(repo, tmp_path, capsys, flag):
    (repo / "t.yaml").write_text(TEMPLATE)
    os.symlink(tmp_path / "outside", repo / "link")
    for target in ("/proc/self/cwd/link/r.json", f"/proc/self/root{repo}/link/r.json"):
        code, _, _ = run(capsys, flag.format(target), "t.yaml")
        assert code == 2 and not (tmp_path / "outside" / "r.json").exists()


@POSIX
def test_a_baseline_is_not_written_to_a_dangling_committed_link(repo, tmp_path, capsys):
    (repo / "t.yaml").write_text(TEMPLATE)
    os.symlink(tmp_path / "outside" / "new.json", repo / "b.json")
    code, out, err = run(capsys, "--write-baseline", "b.json", "t.yaml")
    assert code == 2 and not (tmp_path / "outside" / "new.json").exists()


@POSIX
def test_a_configuration_file_committed_as_a_symlink_to_outside_is_not_read(repo, tmp_path, capsys):
    (tmp_path / "outside" / "c.toml").write_text('fail-on = "none"\n')
    (repo / "t.yaml").write_text(TEMPLATE)
    os.symlink(tmp_path / "outside" / "c.toml", repo / ".fanout-lint.toml")
    code, out, err = run(capsys, "t.yaml")
    assert code == 2 and "symbolic link" in out + err


# -- arguments from file names ---------------------------------------------------------

def _hook(files: list[str]) -> list[str]:
    with open(os.path.join(ROOT, ".pre-commit-hooks.yaml"), encoding="utf-8") as handle:
        (hook,) = yaml.safe_load(handle)
    return shlex.split(hook["entry"])[1:] + hook.get("args", []) + files


def test_files_named_like_short_options_are_paths_to_the_hook(repo, capsys):
    # names pre-commit passes (its files pattern): -q.yaml would be -q, -ox.yaml "-o x.yaml"
    (repo / "-q.yaml").write_text(TEMPLATE)
    (repo / "-ox.yaml").write_text("{}\n")
    (repo / "--isolated.yaml").write_text("{}\n")
    code = main(_hook(["-q.yaml", "-ox.yaml", "--isolated.yaml"]))
    out, _ = capsys.readouterr()
    assert code == 1 and "FL202" in out and not (repo / "x.yaml").exists()


def test_a_file_named_dash_fails_the_hook_rather_than_passing(repo, capsys):
    (repo / "-").write_text(TEMPLATE)
    assert main(_hook(["-"])) == 2


def test_the_actions_paths_lines_are_trimmed_and_stay_paths(repo):
    with open(os.path.join(ROOT, "action.yml"), encoding="utf-8") as handle:
        action = yaml.safe_load(handle)
    (body,) = [step["run"] for step in action["runs"]["steps"] if "FANOUT_PATHS" in str(step.get("env", {}))]
    loop = body[body.index("paths=()"):body.index("printf '%s\\0'")]
    script = loop + 'printf "<%s>\\n" "${paths[@]}"\n'
    lines = "a b.yaml\r\n  --fail-on none  \n\n-o /tmp/x\n--\n"
    done = subprocess.run(["bash", "-c", script], env={**os.environ, "FANOUT_PATHS": lines},
                          capture_output=True, text=True, timeout=60)
    assert done.stdout.splitlines() == ["<a b.yaml>", "<--fail-on none>", "<-o /tmp/x>", "<-->"]
    assert '-- "${paths[@]}"' in body  # and all of them after the end of options


# -- forged output ------------------------------------------------------------------

def test_diff_context_shows_no_terminal_escape_from_a_comment(repo, capsys):
    # YAML takes bidi and line-separator characters in a comment; HCL takes ESC and BEL too
    (repo / "t.yaml").write_text(TEMPLATE.replace("VisibilityTimeout: 30\n", "VisibilityTimeout: 30 # \u202e\u2028\x85\n"))
    (repo / "tf").mkdir()
    (repo / "tf" / "main.tf").write_text(MODULE.replace("visibility_timeout_seconds = 30",
                                                        "visibility_timeout_seconds = 30 # \x1b]0;t\x07\x1b[2J\u202e"))
    code, out, _ = run(capsys, "--diff", "t.yaml", "tf")
    assert code == 1 and "+      VisibilityTimeout: 360" in out and "visibility_timeout_seconds = 360" in out
    assert safe(out)


def test_diff_context_of_a_heredoc_starts_no_line_with_a_command(repo, capsys):
    heredoc = '  policy = <<EOT\n::error::forged\n  ::error::forged\nx\r::error::forged\nEOT\n'
    (repo / "main.tf").write_text(MODULE.replace("visibility_timeout_seconds = 30\n",
                                                 "visibility_timeout_seconds = 30\n" + heredoc))
    code, out, _ = run(capsys, "--diff", "--format", "github", ".")
    assert code == 1 and "visibility_timeout_seconds = 360" in out
    assert not [line for line in re.split("[\r\n]", out) if line.lstrip().startswith("::error::forged")]


def test_a_file_name_is_kept_in_a_code_span_in_the_summary(repo, capsys):
    name = "[x](https:evil.test) ![i](https:evil.test) <img src=x> @octocat ## h |a| `x` ``.yaml"
    (repo / name).write_text(TEMPLATE)
    assert main(["graph", "--format", "markdown", "--", name]) == 0
    out = capsys.readouterr().out
    findings = [line for line in out.splitlines() if "FL202" in line and "| error |" in line]
    assert findings and all("[x](https:evil.test)" not in re.sub(r"(`+).*?\1", "", line) for line in findings)
    prose = re.sub(r"(`+).*?\1", "", re.sub(r"^```mermaid$.*?^```$", "", out, flags=re.S | re.M))
    assert "<img" not in prose and "@octocat" not in prose


def test_a_file_name_cannot_add_properties_to_a_github_command(repo, capsys):
    name = "x,title=forged,line=1::y%0A::error::z.yaml"
    (repo / name).write_text(TEMPLATE)
    code, out, _ = run(capsys, "--format", "github", "--", name)
    commands = [line for line in out.splitlines() if line.startswith("::")]
    assert code == 1 and commands
    assert all(line.startswith("::error file=x%2Ctitle=forged%2Cline=1%3A%3Ay%250A%3A%3Aerror%3A%3Az.yaml,")
               or line.startswith("::warning file=x%2C") for line in commands)


@pytest.mark.parametrize("fmt", ["text", "github", "json", "sarif", "junit", "gitlab"])
def test_a_literal_queue_name_quoted_in_a_message_is_neutralised(repo, capsys, fmt):
    (repo / "main.tf").write_text(MODULE.replace(
        f'resource "aws_sqs_queue" "{SECRET.lower()}" {{',
        f'resource "aws_sqs_queue" "{SECRET.lower()}" {{\n  name = "q\\u001b[31m\\u2028::error::forged\\u202e"'))
    code, out, err = run(capsys, "--format", fmt, ".")
    assert code == 1 and safe(out) and safe(err)


def test_configuration_patterns_forge_nothing_in_notices(repo, capsys):
    (repo / "t.yaml").write_text(TEMPLATE)
    (repo / ".fanout-lint.toml").write_text('exclude = ["\\n::error::forged", "[x](https://evil.test)"]\n')
    code, out, err = run(capsys, "--format", "github", "t.yaml")
    assert safe(out) and safe(err) and "lowers the gate" in err
    assert main(["graph", "--format", "markdown", "t.yaml"]) == 0
    summary = capsys.readouterr().out
    assert "](https://evil" not in re.sub(r"(`+).*?\1", "", summary)


# -- the gate turned off quietly ------------------------------------------------------

@pytest.mark.parametrize("options, shown", [
    ("[options.FL203]\nfactor = 1\n", "FL203 factor 6 -> 1"),
    ("[options.visibility-timeout-headroom]\nfactor = 5\n", "FL203 factor 6 -> 5"),
    ("[options.FL104]\nmin = 1\nmax = 100\n", "FL104 min 3 -> 1, FL104 max 5 -> 100"),
])
def test_a_rule_option_that_makes_a_rule_report_less_lowers_the_gate(repo, capsys, options, shown):
    (repo / "t.yaml").write_text(HEADROOM)
    (repo / ".fanout-lint.toml").write_text(options)
    code, out, err = run(capsys, "t.yaml")
    (line,) = [line for line in err.splitlines() if "lowers the gate" in line]
    assert f"sets rule options that report less: {shown}" in line
    assert line.startswith(".fanout-lint.toml:1:1: warning: this configuration lowers the gate: ")


def test_a_rule_option_that_makes_a_rule_report_more_says_nothing(repo, capsys):
    (repo / "t.yaml").write_text(HEADROOM)
    (repo / ".fanout-lint.toml").write_text("[options.FL203]\nfactor = 8\n[options.FL104]\nmin = 4\nmax = 5\n")
    code, out, err = run(capsys, "t.yaml")
    assert code == 1 and "lowers the gate" not in err


@pytest.mark.parametrize("config, where", [
    ('[per-file-ignores]\n"**" = ["FL"]\n', "infra/.fanout-lint.toml"),
    ('[tool.fanout-lint]\nfail-on = "none"\n', "infra/pyproject.toml"),
    ('exclude = ["infra"]\n', ".fanout-lint.toml"),
    ('[severity]\nFL202 = "info"\nFL204 = "info"\n', ".fanout-lint.toml"),
])
def test_nested_and_indirect_lowerings_are_said(repo, capsys, config, where):
    (repo / "infra").mkdir()
    (repo / "infra" / "t.yaml").write_text(TEMPLATE)
    (repo / where).write_text(config)
    code, out, err = run(capsys, "infra/t.yaml")
    assert code == 1 or "lowers the gate" in err


# -- templates that hide --------------------------------------------------------------

def _hidden(capsys, name: str, data: bytes) -> tuple[int, dict]:
    with open(name, "wb") as handle:
        handle.write(data)
    code = main(["check", "--format", "json", "--no-cache", name])
    return code, json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("prefix, line", [
    ("--- {}\n---\n", 3),
    ("kind: A\n---\nkind: B\n...\n---\n", 6),
    ("# a comment\n---\n[]\n--- !!str x\n---\n", 6),
])
def test_a_template_in_a_later_yaml_document_is_an_error_not_passed_over(repo, capsys, prefix, line):
    code, report = _hidden(capsys, "t.yaml", (prefix + TEMPLATE).encode())
    assert code == 2
    (error,) = report["errors"]
    assert (error["file"], error["line"]) == ("t.yaml", line)
    assert error["message"].startswith("YAML document ") and "a template must be its file's only document" in error["message"]


@pytest.mark.parametrize("name", ["t.json", "t.template"])
def test_a_later_yaml_document_in_a_file_named_json_is_an_error(repo, capsys, name):
    # YAML flow syntax named JSON: the unquoted key shows the text no JSON key
    resources = json.dumps({"Q": {"Type": "AWS::SQS::Queue"}, "W": {"Type": "AWS::Lambda::Function"}, "M": {
        "Type": "AWS::Lambda::EventSourceMapping",
        "Properties": {"EventSourceArn": {"Fn::GetAtt": ["Q", "Arn"]}, "FunctionName": {"Ref": "W"}}}})
    code, report = _hidden(capsys, name, f"--- {{}}\n---\n{{Resources: {resources}}}\n".encode())
    assert code == 2 and report["errors"][0]["line"] == 3


def test_a_later_serverless_service_with_an_escaped_key_is_an_error(repo, capsys):
    data = b'--- {}\n---\n"s\\x65rvice": s\nprovider: {name: aws}\nresources: {Resources: {Q: {Type: AWS::SQS::Queue}}}\n'
    code, report = _hidden(capsys, "serverless.yml", data)
    assert code == 2 and report["errors"][0]["line"] == 3


def test_several_documents_none_a_template_are_still_passed_over(repo, capsys):
    code, report = _hidden(capsys, "k8s.yaml", b"kind: A\nResources: 7\n---\nkind: B\n---\nResources: []\n")
    assert code == 0 and report["errors"] == [] and report["findings"] == []


def test_a_template_first_and_other_documents_after_it_lints_as_before(repo, capsys):
    code, report = _hidden(capsys, "t.yaml", (TEMPLATE + "---\n{}\n---\nResources: {}\n").encode())
    assert code == 1 and {f["rule"] for f in report["findings"]} >= {"FL202"}


@pytest.mark.parametrize("name, data", [
    ("t.yaml", TEMPLATE.replace("\nResources:", "\n!!str Resources:", 1).encode()),
    ("t.yaml", TEMPLATE.replace("Resources:", 'AWSTemplateFormatVersion: &k "Resources"\n*k :', 1).encode()),
    ("t.yaml", TEMPLATE.replace("Resources:", "? !<tag:yaml.org,2002:str> 'Resources'\n:", 1).encode()),
    ("t.json", TEMPLATE.encode("utf-16")),
    ("t.json", b"\xef\xbb\xbf" + json.dumps({"\\u0052esources": {}}).encode() + b"\x00"),
])
def test_other_spellings_of_the_top_level_are_read_or_refused(repo, capsys, name, data):
    code, report = _hidden(capsys, name, data)
    assert code in (1, 2) and (report["findings"] or report["errors"])


# -- stalls and bombs ---------------------------------------------------------------

def test_a_string_holds_a_bounded_number_of_parts():
    budget = Budget(max_string_parts=4)
    ref = Ref("aws_sqs_queue.q", "arn")
    assert concat_text([ref, "-", ref], budget) == Interpolated((ref, "-", ref))
    assert budget.steps == 2  # each reference a step
    with pytest.raises(TooLarge, match="more than 4 references or unknown parts"):
        concat_text([Interpolated((ref, "-", ref)), Interpolated((ref, "-", ref)), ref], budget)


def test_a_doubling_chain_of_interpolated_locals_builds_a_bounded_number_of_parts(repo, capsys, monkeypatch):
    # l1 = "${l0}${l0}", l2 = "${l1}${l1}" ...: 2^24 references, each a record, if nothing bounds them
    built: list[int] = []
    real = hcl_expressions.concat_text

    def counting(parts, budget):
        value = real(parts, budget)
        built.append(len(value.parts) if isinstance(value, Interpolated) else 1)
        return value

    monkeypatch.setattr(hcl_expressions, "concat_text", counting)
    levels = 24
    chain = [f'  l0 = "${{aws_sqs_queue.{SECRET.lower()}.arn}}"']
    chain += [f'  l{i} = "${{local.l{i - 1}}}${{local.l{i - 1}}}"' for i in range(1, levels + 1)]
    (repo / "main.tf").write_text("locals {\n" + "\n".join(chain) + "\n}\n"
                                  + MODULE.replace('function_name = "worker"', f"function_name = local.l{levels}"))
    code, out, err = run(capsys, ".")
    assert code == 1 and "FL202" in out  # the unit is linted; the name is unknown
    limit = Budget().max_string_parts
    assert max(built) <= limit and sum(built) < 4 * limit


@pytest.mark.parametrize("levels", [20, 40])
def test_serverless_and_cloudformation_doublings_stay_small(repo, capsys, levels):
    lines = ["service: s", "provider:", "  name: aws", "custom:", "  a0: ${env:NOPE}x"]
    lines += [f"  a{i}: ${{self:custom.a{i - 1}}}${{self:custom.a{i - 1}}}" for i in range(1, levels + 1)]
    lines += ["resources:", "  Resources:", "    Q:", "      Type: AWS::SQS::Queue", "      Properties:",
              f"        QueueName: ${{self:custom.a{levels}}}"]
    (repo / "serverless.yml").write_text("\n".join(lines) + "\n")
    code, _, err = run(capsys, "serverless.yml")
    assert code in (0, 2) and "Traceback" not in err
    text = "Parameters:\n  P: {Type: String}\nx0: &a0 !Ref P\n"
    text += "".join(f"x{i}: &a{i} !Join ['', [*a{i - 1}, !Sub '${{P}}', *a{i - 1}]]\n" for i in range(1, levels + 1))
    text += TEMPLATE.replace("Timeout: 60\n", f"Timeout: 60\n      FunctionName: *a{levels}\n")
    (repo / "t.yaml").write_text(text)
    code, out, err = run(capsys, "t.yaml")
    assert code in (1, 2) and "Traceback" not in err


def test_conditions_that_double_at_every_level_are_evaluated_once_each(repo, capsys):
    # C{i} = And(C{i-1}, C{i-1}): 2^300 evaluations unless each condition is evaluated once
    levels = 300
    conditions = "".join(f"  C{i}: !And [!Condition C{i - 1}, !Condition C{i - 1}]\n" for i in range(1, levels))
    text = "Parameters:\n  P: {Type: String}\nConditions:\n  C0: !Equals [!Ref P, x]\n" + conditions
    text += TEMPLATE.replace("VisibilityTimeout: 30\n", f"VisibilityTimeout: !If [C{levels - 1}, 30, 40]\n")
    (repo / "t.yaml").write_text(text)
    code, out, err = run(capsys, "t.yaml")
    assert code == 1 and "FL202" in out


def test_serverless_variables_that_name_variables_stop_at_the_nesting_budget(repo, capsys):
    lines = ["service: s", "provider:", "  name: aws", "custom:", "  k0: a", "  a: k0"]
    lines += [f"  k{i}: ${{self:custom.k${{self:custom.k{i - 1}}}}}" for i in range(1, 120)]
    lines += ["resources:", "  Resources:", "    Q:", "      Type: AWS::SQS::Queue", "      Properties:",
              "        QueueName: ${self:custom.k119}"]
    (repo / "serverless.yml").write_text("\n".join(lines) + "\n")
    code, out, err = run(capsys, "serverless.yml")
    assert code == 2 and "nesting budget" in out


# -- crashes ----------------------------------------------------------------------------

@pytest.mark.parametrize("data", [b"[]", b'"x"', b"null", b"1"])
def test_a_terraform_json_file_of_no_object_is_one_error(repo, capsys, data):
    (repo / "a.tofu.json").write_bytes(data)
    (repo / "main.tf").write_text(MODULE)
    code, out, err = run(capsys, ".")
    assert code == 2 and "Traceback" not in err and "internal error" not in (out + err).lower()


def test_yaml_keys_of_other_kinds_in_resources_and_properties(repo, capsys):
    text = TEMPLATE.replace("  DLQ:", "  ? [a, b]\n  : {Type: AWS::SQS::Queue}\n  null: {Type: AWS::SQS::Queue}\n"
                                     "  1: {Type: AWS::SQS::Queue}\n  DLQ:", 1)
    text = text.replace("      Timeout: 60\n", "      Timeout: 60\n      ? {a: 1}\n      : 2\n      null: 1\n", 1)
    (repo / "t.yaml").write_text(text)
    code, out, err = run(capsys, "--fix", "--format", "sarif", "t.yaml")
    assert code in (0, 1, 2) and "internal error" not in (out + err).lower()
    json.loads(out)


def test_numbers_past_every_bound_in_terraform_are_unknown_and_never_fixed(repo, capsys):
    text = MODULE.replace("visibility_timeout_seconds = 30", "visibility_timeout_seconds = 1e-400").replace(
        "timeout       = 60", "timeout       = 1e400")
    (repo / "main.tf").write_text(text)
    code, out, err = run(capsys, "--fix", ".")
    assert code in (0, 1) and (repo / "main.tf").read_text() == text and "internal error" not in (out + err).lower()
