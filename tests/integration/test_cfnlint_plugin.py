"""The cfn-lint plugin, run through the real cfn-lint command line, agrees with fanout-lint.

cfn-lint takes a second or two to start, so every run goes through its command line in
one process (``cfn_lint_driver.py``): the ``cfn-lint`` script's own entry point, given
each run's arguments and directory, with an empty standard input. The fixtures go
through it in one run. The commands the README shows are given as written, the first to
the ``cfn-lint`` executable itself.

A run that ignores every rule of cfn-lint's own loads none of them (``own_rules=False``):
cfn-lint would run them all on each template anyway, over half a second a template, and
drop what they found. The README's commands and the E3505 tests run the plugin beside them.
"""

from __future__ import annotations

import glob
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys

import pytest

from expectations import expected_for
from fanout_lint.run.engine import lint_paths
from fanout_lint.rules import ALL_RULES
from fanout_lint.policy.settings import Settings
from repo_paths import TESTS

# Looked up, not imported: cfn-lint takes over a second to import, and every worker of
# -n auto collects this module; the tests that need it in process import it themselves.
pytestmark = [pytest.mark.integration,
              pytest.mark.skipif(importlib.util.find_spec("cfnlint") is None, reason="cfn-lint is a test extra")]

FIXTURES = os.path.join(TESTS, "fixtures")
PLUGIN = "fanout_lint.cfnlint_plugin"
# cfn-lint's own rules all have a digit after the level letter; ours have "FL".
BUILTIN = [f"{level}{digit}" for level in "EWI" for digit in range(10)]
LINE = re.compile(r"^(?P<file>.+?):(?P<line>\d+):(?P<col>\d+):\d+:\d+:(?P<rule>[EWI]FL\d+):(?P<message>.*)$")
ANY_LINE = re.compile(r"^(?P<file>.+?):(?P<line>\d+):(?P<col>\d+):\d+:\d+:(?P<rule>[EWI][A-Z]*\d+):(?P<message>.*)$")
EXIT_BITS = {"E": 2, "W": 4, "I": 8}
DRIVER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cfn_lint_driver.py")


def _executable() -> str:
    executable = shutil.which("cfn-lint", path=os.path.dirname(sys.executable)) or shutil.which("cfn-lint")
    assert executable, "cfn-lint is a test dependency"
    return executable


@pytest.fixture(scope="module")
def cfn_lint():
    """``cfn_lint(*args, cwd=None, own_rules=True)``: cfn-lint's command line with these
    arguments, run in the driver's one process for this module's tests, as a finished
    process; ``own_rules=False`` loads none of cfn-lint's own rules (see the driver). The
    module's tests run on one worker (--dist loadfile), so one driver starts."""
    driver = subprocess.Popen([sys.executable, DRIVER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def run(*args: str, cwd=None, own_rules: bool = True) -> subprocess.CompletedProcess:
        request = {"args": list(args), "cwd": str(cwd or os.getcwd()), "own_rules": own_rules}
        driver.stdin.write(json.dumps(request) + "\n")
        driver.stdin.flush()
        answer = driver.stdout.readline()
        assert answer, "the cfn-lint driver ended"
        done = json.loads(answer)
        return subprocess.CompletedProcess(["cfn-lint", *args], done["returncode"], done["stdout"], done["stderr"])

    yield run
    driver.stdin.close()
    driver.wait(timeout=60)


def _plugin(*args: str) -> tuple[str, ...]:
    return ("-a", PLUGIN, "-f", "parseable", *args)


def _matches(output: str) -> set[tuple[str, int, str]]:
    found = set()
    for line in output.splitlines():
        match = LINE.match(line)
        if match:
            found.add((os.path.realpath(match["file"]), int(match["line"]), match["rule"]))
    return found


def _cloudformation_fixtures() -> list[str]:
    paths = sorted(glob.glob(os.path.join(FIXTURES, "*", "cfn_*.yaml")))
    # SAM too: cfn-lint transforms it, and the generated resources keep their lines.
    paths += sorted(glob.glob(os.path.join(FIXTURES, "*", "sam_*.yaml")))
    return [p for p in paths if not expected_for(p).errors]  # parse-error fixtures aside


def test_every_rule_has_exactly_one_plugin_class_with_its_severity_letter():
    from cfnlint.helpers import create_rules

    from fanout_lint import cfnlint_plugin

    plugin_rules = create_rules(cfnlint_plugin)  # what `cfn-lint -a` instantiates
    ids = sorted(r.id for r in plugin_rules)
    letter = {"error": "E", "warning": "W", "info": "I"}
    assert ids == sorted(["WFL000"] + [letter[r.severity.value] + r.id for r in ALL_RULES])  # WFL000: notices
    assert len(ids) == len(set(ids))


@pytest.mark.slow
def test_cfn_lint_reports_the_same_findings_on_the_same_lines_with_its_exit_code(cfn_lint):
    paths = _cloudformation_fixtures()
    assert len(paths) >= 14
    run = cfn_lint(*_plugin("--include-checks", "I", "--ignore-checks", *BUILTIN, "--", *paths), own_rules=False)
    assert "Traceback" not in run.stderr, run.stderr
    got = _matches(run.stdout)

    result = lint_paths(paths, ALL_RULES, Settings())
    letter = {"error": "E", "warning": "W", "info": "I"}
    # cfn-lint takes a match's level from its rule's ID, so a finding a rule reports lower
    # (a schedule-only target at info) is reported there at the rule's level
    level = {r.id: r.severity.value for r in ALL_RULES}
    wanted = {
        (os.path.realpath(f.loc.file), f.loc.line, letter[level[f.rule]] + f.rule)
        for f in result.findings
    }
    assert wanted, "the fixtures fire at least one rule"
    assert got == wanted, f"\nonly cfn-lint: {sorted(got - wanted)}\nonly fanout-lint: {sorted(wanted - got)}"
    bits = 0
    for _, _, rule in wanted:
        bits |= EXIT_BITS[rule[0]]
    assert run.returncode == bits


def test_ignores_of_cfn_lint_and_of_fanout_lint_apply(cfn_lint, tmp_path):
    source = os.path.join(FIXTURES, "shared-queue", "cfn_fires.yaml")
    with open(source, encoding="utf-8") as handle:
        text = handle.read()
    assert "  OrdersQueue:\n    Type: AWS::SQS::Queue\n" in text
    by_cfn_lint = tmp_path / "cfn_lint_ignore.yaml"
    by_cfn_lint.write_text(text.replace(
        "  OrdersQueue:\n    Type: AWS::SQS::Queue\n",
        "  OrdersQueue:\n    Type: AWS::SQS::Queue\n"
        "    Metadata:\n      cfn-lint:\n        config:\n          ignore_checks: [EFL201]\n",
    ))
    by_fanout_lint = tmp_path / "fanout_lint_ignore.yaml"
    by_fanout_lint.write_text(text.replace(
        "  OrdersQueue:\n    Type: AWS::SQS::Queue\n",
        "  OrdersQueue:\n    Type: AWS::SQS::Queue\n"
        "    Metadata:\n      fanout-lint:\n        ignore: [shared-queue]\n        reason: two readers by design\n",
    ))
    warning_only = os.path.join(FIXTURES, "raw-delivery-off", "cfn_fires.yaml")
    expected_warnings = {
        (os.path.realpath(f.loc.file), f.loc.line, "W" + f.rule)
        for f in lint_paths([warning_only], ALL_RULES, Settings()).findings
    }
    assert expected_warnings and all(r == "WFL002" for _, _, r in expected_warnings)

    run = cfn_lint(*_plugin("--ignore-checks", *BUILTIN, "--", str(by_cfn_lint), str(by_fanout_lint), warning_only), own_rules=False)
    assert _matches(run.stdout) == expected_warnings
    assert run.returncode == 4  # warnings only

    run = cfn_lint(*_plugin("--ignore-checks", "EFL201", *BUILTIN, "--", source), own_rules=False)
    assert _matches(run.stdout) == set() and run.returncode == 0


def test_the_command_line_never_imports_cfn_lint_or_the_hcl_parser():
    fixture = os.path.join(FIXTURES, "shared-queue", "cfn_fires.yaml")
    run = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "fanout_lint", fixture],
        capture_output=True, text=True, timeout=60,
    )
    assert run.returncode == 1, run.stderr[-2000:]  # the fixture has an error finding
    imported = {line.rsplit("|", 1)[-1].strip() for line in run.stderr.splitlines() if line.startswith("import time:")}
    assert "fanout_lint.loaders.cloudformation.loader" in imported  # the check itself sees imports
    assert not {m for m in imported if m.split(".")[0] in ("cfnlint", "hcl2", "lark")}


def _readme_section(title: str) -> str:
    with open(os.path.join(os.path.dirname(FIXTURES), "..", "README.md"), encoding="utf-8") as handle:
        text = handle.read()
    return text.split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]


def test_the_readme_commands_run_the_plugin_as_written(cfn_lint, tmp_path):
    # `-a` and `--include-checks` take several values: a template written after them is
    # read as one more rule module, so the commands the README shows must keep it apart
    # (cfn-lint would then read an empty standard input, and find nothing). The first runs
    # as the `cfn-lint` executable itself, the others in the driver's process.
    section = _readme_section("cfn-lint plugin")
    commands = [line.split("#", 1)[0].split() for line in section.splitlines() if line.startswith("cfn-lint ")]
    assert len(commands) >= 2
    shutil.copy(os.path.join(FIXTURES, "shared-queue", "cfn_fires.yaml"), tmp_path / "template.yaml")
    for number, command in enumerate(commands):
        args = (*command[1:], "-f", "parseable", "--ignore-checks", *BUILTIN)
        if number == 0:
            run = subprocess.run([_executable(), *args], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                                 stdin=subprocess.DEVNULL)
        else:
            run = cfn_lint(*args, cwd=tmp_path)
        assert "Traceback" not in run.stderr, (command, run.stderr[-1500:])
        assert {rule for _, _, rule in _matches(run.stdout)} == {"EFL201"}, (command, run.stdout, run.stderr[-500:])
        assert run.returncode == 2, command
    assert "append_rules:\n  - fanout_lint.cfnlint_plugin" in section  # the configuration-file form
    (tmp_path / ".cfnlintrc").write_text("append_rules:\n  - fanout_lint.cfnlint_plugin\n", encoding="utf-8")
    run = cfn_lint("template.yaml", "-f", "parseable", "--ignore-checks", *BUILTIN, cwd=tmp_path)
    assert {rule for _, _, rule in _matches(run.stdout)} == {"EFL201"} and run.returncode == 2


def _lines(output: str) -> list[tuple[int, str, str]]:
    return [(int(m["line"]), m["rule"], m["message"]) for m in map(ANY_LINE.match, output.splitlines()) if m]


def test_rule_options_given_through_cfn_lint_are_used_or_refused_with_a_message(cfn_lint, tmp_path):
    # FL104 fires on maxReceiveCount 10 (range 3 to 5); max=10 through cfn-lint accepts it
    source = os.path.join(FIXTURES, "max-receive-count-out-of-range", "cfn_fires.yaml")
    default = cfn_lint(*_plugin("--ignore-checks", *BUILTIN, "--", source), own_rules=False)
    assert {rule for _, rule, _ in _lines(default.stdout)} == {"WFL104"}
    assert all("outside 3 to 5" in message for _, _, message in _lines(default.stdout))

    widened = cfn_lint(*_plugin("--ignore-checks", *BUILTIN, "-x", "WFL104:max=20", "--", source), own_rules=False)
    found = _lines(widened.stdout)
    assert found and all("outside 3 to 20" in message for _, _, message in found), widened.stdout
    wide = cfn_lint(*_plugin("--ignore-checks", *BUILTIN, "-x", "WFL104:max=60", "--", source), own_rules=False)
    assert len(_lines(wide.stdout)) == len(found) - 1  # 50 is within 3 to 60

    (tmp_path / ".cfnlintrc").write_text("configure_rules:\n  WFL104:\n    max: 60\n", encoding="utf-8")
    shutil.copy(source, tmp_path / "t.yaml")
    from_file = cfn_lint("t.yaml", "-a", PLUGIN, "-f", "parseable", "--ignore-checks", *BUILTIN, cwd=tmp_path, own_rules=False)
    assert [m for _, _, m in _lines(from_file.stdout)] == [m for _, _, m in _lines(wide.stdout)], from_file.stdout

    refused = cfn_lint(*_plugin("--ignore-checks", *BUILTIN, "-x", "WFL104:mx=20", "-x", "WFL104:min=few", "--", source), own_rules=False)
    messages = {message for line, rule, message in _lines(refused.stdout) if line == 1 and rule == "WFL104"}
    assert any("has no option 'mx' (did you mean max?)" in m and "not used" in m for m in messages), messages
    assert any("option 'min' of WFL104 must be an integer" in m for m in messages), messages


def test_suppression_notices_reach_cfn_lint_output(cfn_lint, tmp_path):
    source = os.path.join(FIXTURES, "shared-queue", "cfn_fires.yaml")
    text = open(source, encoding="utf-8").read().replace(
        "  OrdersQueue:\n    Type: AWS::SQS::Queue\n",
        "  OrdersQueue:\n    Type: AWS::SQS::Queue\n"
        "    Metadata:\n      fanout-lint:\n        ignore: [shared-queu, missing-dlq]\n        reason: typo\n",
    )
    template = tmp_path / "t.yaml"
    template.write_text(text, encoding="utf-8")
    run = cfn_lint(*_plugin("--ignore-checks", *BUILTIN, "--", str(template)), own_rules=False)
    notices = [(line, message) for line, rule, message in _lines(run.stdout) if rule == "WFL000"]
    assert any("unknown rule 'shared-queu' (did you mean shared-queue?)" in m for _, m in notices), run.stdout
    assert any("suppression of missing-dlq suppresses nothing" in m for _, m in notices), run.stdout
    assert {rule for _, rule, _ in _lines(run.stdout)} == {"WFL000", "EFL201"}


def test_where_e3505_reports_the_queue_and_function_fl202_is_said_once(cfn_lint):
    source = os.path.join(FIXTURES, "visibility-timeout-below-function-timeout", "cfn_fires.yaml")
    ours = lint_paths([source], ALL_RULES, Settings(select=("FL202",))).findings
    assert len(ours) >= 2
    both = cfn_lint(*_plugin("--", source))
    reported = [(line, rule) for line, rule, _ in _lines(both.stdout) if rule in ("E3505", "EFL202")]
    e3505 = [line for line, rule in reported if rule == "E3505"]
    assert e3505, both.stdout
    # each queue-function pair once: E3505's pairs are not reported again as EFL202
    assert len(reported) == len(ours), (reported, [(f.loc.line, f.resource) for f in ours])
    alone = cfn_lint(*_plugin("--ignore-checks", "E3505", "--", source))
    assert len([1 for _, rule, _ in _lines(alone.stdout) if rule == "EFL202"]) == len(ours)


def test_one_template_at_a_time_links_its_nested_stacks_but_not_its_imports(cfn_lint):
    # cfn-lint lints one template at a time: a parent reads its local nested templates
    # (their parameters from it, their outputs back), and reports what is found in it;
    # an import of another template's export stays unknown, so nothing is found on it
    nested = os.path.join(FIXTURES, "visibility-timeout-below-function-timeout", "link_nested_fires")
    imported = os.path.join(FIXTURES, "visibility-timeout-below-function-timeout", "link_fires")
    paths = [os.path.join(nested, "parent.yaml"), os.path.join(nested, "workers.yaml"),
             os.path.join(imported, "queue.yaml"), os.path.join(imported, "worker.yaml")]
    run = cfn_lint(*_plugin("--ignore-checks", *BUILTIN, "--", *paths), own_rules=False)
    assert "Traceback" not in run.stderr, run.stderr
    assert _matches(run.stdout) == {(os.path.realpath(paths[0]), 9, "EFL202")}




def _in(cfn_lint, directory, *args: str) -> subprocess.CompletedProcess:
    return cfn_lint(*_plugin("--ignore-checks", *BUILTIN, *args), cwd=directory, own_rules=False)


def test_the_plugin_reads_fanout_lints_own_configuration(cfn_lint, tmp_path):
    shutil.copy(os.path.join(FIXTURES, "shared-queue", "cfn_fires.yaml"), tmp_path / "stack.yaml")
    (tmp_path / "legacy").mkdir()
    shutil.copy(os.path.join(FIXTURES, "shared-queue", "cfn_fires.yaml"), tmp_path / "legacy" / "old.yaml")
    shutil.copy(os.path.join(FIXTURES, "raw-delivery-off", "cfn_fires.yaml"), tmp_path / "topics.yaml")
    files = ("--", "stack.yaml", "legacy/old.yaml", "topics.yaml")
    everything = {(name, rule) for name, _, rule in _lines_by_file(_in(cfn_lint, tmp_path, *files).stdout)}
    assert everything == {("stack.yaml", "EFL201"), ("legacy/old.yaml", "EFL201"), ("topics.yaml", "WFL002")}
    (tmp_path / ".fanout-lint.toml").write_text(
        'ignore = ["raw-delivery-off"]\n[per-file-ignores]\n"legacy/**" = ["FL2"]\n', encoding="utf-8")
    run = _in(cfn_lint, tmp_path, *files)
    assert {(name, rule) for name, _, rule in _lines_by_file(run.stdout)} == {("stack.yaml", "EFL201")}
    assert run.returncode == 2
    # a configuration fanout-lint refuses is said once per template, and not used
    (tmp_path / ".fanout-lint.toml").write_text('ignore = ["shared-queu"]\n', encoding="utf-8")
    run = _in(cfn_lint, tmp_path, "--", "stack.yaml")
    found = _lines_by_file(run.stdout)
    assert ("stack.yaml", 1, "WFL000") in found and ("stack.yaml", 5, "EFL201") in found
    assert "fanout-lint configuration not used" in run.stdout and "did you mean shared-queue?" in run.stdout


def test_ignore_checks_matches_the_whole_cfn_lint_id_by_prefix(cfn_lint, tmp_path):
    # cfn-lint ignores a rule whose ID starts with an --ignore-checks value, and takes the
    # level from the ID's first letter: FL201 alone names no cfn-lint rule, EFL201 and
    # EFL2 (every FL2xx error rule) do
    shutil.copy(os.path.join(FIXTURES, "shared-queue", "cfn_fires.yaml"), tmp_path / "stack.yaml")
    rules = {rule for _, _, rule in _lines_by_file(_in(cfn_lint, tmp_path, "FL201", "--", "stack.yaml").stdout)}
    assert rules == {"EFL201"}
    assert _lines_by_file(_in(cfn_lint, tmp_path, "EFL2", "--", "stack.yaml").stdout) == []


def _lines_by_file(output: str) -> list[tuple[str, int, str]]:
    return [(m["file"], int(m["line"]), m["rule"]) for m in map(ANY_LINE.match, output.splitlines()) if m]
