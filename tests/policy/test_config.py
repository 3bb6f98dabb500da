"""The configuration file: discovery, validation against rules and options, and flags winning."""

from __future__ import annotations

import os

import pytest

from fanout_lint.cli.main import main
from fanout_lint.policy.config import ConfigError, Flags, find_config, load_config
from fanout_lint.policy.hierarchy import resolve
from fanout_lint.results.records import Severity
from fanout_lint.rule import Option, OptionType, Rule
from repo_paths import ROOT, TESTS

FIXTURE = os.path.join(TESTS, "fixtures", "shared-queue", "cfn_fires.yaml")


def _rule(rule_id: str, name: str, options=()) -> Rule:
    return Rule(id=rule_id, name=name, severity=Severity.WARNING, summary="s", check=lambda g, o: (),
                doc="## What it does\nx", options=tuple(options))


RULES = (
    _rule("FL101", "missing-dlq"),
    _rule("FL201", "shared-queue"),
    _rule("FL901", "tuned", (Option("factor", OptionType.INT, 6, "an int"),
                             Option("strict", OptionType.BOOL, False, "a bool"),
                             Option("ratio", OptionType.FLOAT, 1.5, "a float"),
                             Option("mode", OptionType.TEXT, "fast", "a choice", ("fast", "slow")),
                             Option("level", OptionType.SEVERITY, "info", "a level"))),
)


def _write(path, text: str) -> str:
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_pyproject_table_is_found_from_a_subdirectory(tmp_path):
    _write(tmp_path / "pyproject.toml", '[project]\nname = "x"\n\n[tool.fanout-lint]\nignore = ["shared-queue"]\n')
    sub = tmp_path / "stacks" / "orders"
    sub.mkdir(parents=True)
    assert find_config(str(sub)) == str(tmp_path / "pyproject.toml")
    settings, path = resolve(Flags(), RULES, str(sub))
    assert path == str(tmp_path / "pyproject.toml")
    assert settings.ignore == ("FL201",)


def test_a_pyproject_without_our_table_is_passed_over(tmp_path):
    _write(tmp_path / ".fanout-lint.toml", 'fail-on = "error"\n')
    inner = tmp_path / "app"
    inner.mkdir()
    _write(inner / "pyproject.toml", '[tool.ruff]\nline-length = 100\n')
    assert find_config(str(inner)) == str(tmp_path / ".fanout-lint.toml")


def test_the_dedicated_file_wins_in_the_same_directory(tmp_path):
    _write(tmp_path / "pyproject.toml", '[tool.fanout-lint]\nfail-on = "info"\n')
    _write(tmp_path / ".fanout-lint.toml", 'fail-on = "error"\n')
    settings, _ = resolve(Flags(), RULES, str(tmp_path))
    assert settings.fail_on is Severity.ERROR


def test_every_key_is_read_and_names_become_ids(tmp_path):
    path = _write(tmp_path / ".fanout-lint.toml", """
select = ["missing-dlq", "FL201", "tuned"]
ignore = ["fl101"]
exclude = ["cdk.out/*", "*.generated.yaml"]
fail-on = "error"

[severity]
shared-queue = "info"

[options.tuned]
factor = 4
strict = true
ratio = 2
mode = "slow"
level = "warning"
""")
    config = load_config(path, RULES)
    assert config.select == ("FL101", "FL201", "FL901")
    assert config.ignore == ("FL101",)
    assert config.exclude == ("cdk.out/*", "*.generated.yaml")
    assert config.fail_on == "error"
    assert config.severity == {"FL201": Severity.INFO}
    assert config.options == {"FL901": {"factor": 4, "strict": True, "ratio": 2.0, "mode": "slow", "level": "warning"}}


@pytest.mark.parametrize("text, expected", [
    ('fail_on = "error"\n', ":1: unknown key 'fail_on'"),
    ('\n\nignore = ["shared-queues"]\n', ":3: unknown rule 'shared-queues' in 'ignore'"),
    ('[severity]\nshared-queue = "fatal"\n', ":2: 'shared-queue': unknown severity 'fatal'"),
    ('[options.tuned]\nfactr = 4\n', ":2: rule tuned (FL901) has no option 'factr' (options: factor, strict, ratio, mode, level)"),
    ('[options.tuned]\nfactor = "4"\n', ":2: option 'factor' of rule tuned must be an integer"),
    ('[options.tuned]\nstrict = 1\n', ":2: option 'strict' of rule tuned must be a boolean"),
    ('[options.tuned]\nratio = "2"\n', ":2: option 'ratio' of rule tuned must be a number like its default 1.5"),
    ('[options.tuned]\nmode = "quick"\n', ":2: option 'mode' of rule tuned must be one of fast, slow, not 'quick'"),
    ('[options.tuned]\nlevel = "fatal"\n', ":2: option 'level' of rule tuned must be one of info, warning, error"),
    ('[options.tuned]\nlevel = 1\n', ":2: option 'level' of rule tuned must be a severity"),
    ('[options.shared-queue]\nanything = 1\n', "has no option 'anything' (options: none)"),
    ('[options.nope]\nx = 1\n', ":1: unknown rule 'nope' in 'options'"),
    ('select = "missing-dlq"\nexclude = [1]\n', ":2: 'exclude' must be a list of strings"),
    ('select = [\n', "invalid TOML"),
])
def test_mistakes_are_one_line_errors_with_file_and_line(tmp_path, text, expected):
    path = _write(tmp_path / ".fanout-lint.toml", text)
    with pytest.raises(ConfigError) as caught:
        load_config(path, RULES)
    message = str(caught.value)
    assert message.startswith(path) and expected in message and "\n" not in message


@pytest.mark.parametrize("text, expected", [
    ('[tool.ruff]\nselect = ["E501"]\n\n[tool.fanout-lint]\nselect = ["E501"]\n', ":5: unknown rule 'E501'"),
    ('[tool.fanout-lint]\nfail-on = "error"\n[tool.ruff]\nignore = ["E1"]\n[tool.fanout-lint.severity]\n'
     'ignore = "error"\n', ":6: unknown rule 'ignore' in 'severity'"),
])
def test_pyproject_errors_point_into_our_table_not_another_tools(tmp_path, text, expected):
    path = _write(tmp_path / "pyproject.toml", text)
    with pytest.raises(ConfigError) as caught:
        load_config(path, RULES)
    assert expected in str(caught.value)


def test_a_pyproject_whose_table_header_is_broken_is_an_error_not_ignored(tmp_path):
    # silently falling back to the defaults would change what the gate enforces
    _write(tmp_path / "pyproject.toml", '[project]\nname = "x"\n\n[tool.fanout-lint\nfail-on = "error"\n')
    (tmp_path / "other").mkdir()
    _write(tmp_path / "other" / "pyproject.toml", '[tool.fanout-linter]\nx = 1\n')
    assert find_config(str(tmp_path)) == str(tmp_path / "pyproject.toml")
    assert find_config(str(tmp_path / "other")) == str(tmp_path / "pyproject.toml")  # not ours: passed over
    with pytest.raises(ConfigError) as caught:
        load_config(str(tmp_path / "pyproject.toml"), RULES)
    assert str(caught.value).startswith(f"{tmp_path / 'pyproject.toml'}:4:") and "invalid TOML" in str(caught.value)


def test_command_line_flags_win_over_the_file(tmp_path):
    _write(tmp_path / ".fanout-lint.toml", 'select = ["FL101"]\nignore = ["shared-queue"]\nfail-on = "error"\n'
                                            'exclude = ["a/*"]\n')
    settings, _ = resolve(Flags(select=("shared-queue",), fail_on="info", exclude=("b/*",)), RULES, str(tmp_path))
    assert settings.select == ("FL201",)
    assert settings.ignore == ()  # selecting it on the command line takes back the file's ignore
    assert settings.fail_on is Severity.INFO
    assert settings.exclude == ("a/*", "b/*")
    settings, _ = resolve(Flags(ignore=("missing-dlq",)), RULES, str(tmp_path))
    assert settings.select == ("FL101",) and settings.ignore == ("FL201", "FL101")


def test_config_flag_names_the_file_and_no_search_happens(tmp_path):
    _write(tmp_path / ".fanout-lint.toml", 'fail-on = "error"\n')
    other = _write(tmp_path / "ci.toml", 'fail-on = "info"\n')
    settings, path = resolve(Flags(config=other), RULES, str(tmp_path))
    assert path == other and settings.fail_on is Severity.INFO
    with pytest.raises(ConfigError, match="cannot read configuration"):
        resolve(Flags(config=str(tmp_path / "missing.toml")), RULES, str(tmp_path))


def test_cli_reads_the_file_and_exits_2_on_a_bad_one(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    template = tmp_path / "t.yaml"
    template.write_text(open(FIXTURE, encoding="utf-8").read(), encoding="utf-8")
    _write(tmp_path / "pyproject.toml", '[tool.fanout-lint]\nselect = ["shared-queue"]\n'
                                         '[tool.fanout-lint.severity]\nshared-queue = "info"\n')
    assert main(["t.yaml"]) == 0  # an info finding is below the default fail level
    out = capsys.readouterr().out
    assert "FL201 [info]" in out
    assert main(["t.yaml", "--fail-on", "info"]) == 1
    capsys.readouterr()

    _write(tmp_path / "pyproject.toml", '[tool.fanout-lint]\nselect = ["shared-queue"]\ncolour = "always"\n')
    assert main(["t.yaml"]) == 2
    err = capsys.readouterr().err
    assert err.strip() == f"fanout-lint: error: {tmp_path / 'pyproject.toml'}:3: unknown key 'colour' in " \
                          "[tool.fanout-lint] (expected one of: select, ignore, exclude, fail-on, severity, options, " \
                          "docs-url, extend-select, extend-ignore, per-file-ignores, var-files, baseline)"


def test_real_rule_options_are_validated_through_the_cli(tmp_path, capsys, monkeypatch):
    from fanout_lint.rules import ALL_RULES

    with_options = [r for r in ALL_RULES if r.options]
    if not with_options:
        pytest.skip("no registered rule declares options")
    rule = with_options[0]
    monkeypatch.chdir(tmp_path)
    _write(tmp_path / ".fanout-lint.toml", f'[options.{rule.name}]\nno-such-option = 1\n')
    assert main([FIXTURE]) == 2
    assert f"has no option 'no-such-option'" in capsys.readouterr().err


def _toml_blocks(path: str) -> list[str]:
    import re

    with open(path, encoding="utf-8") as handle:
        return re.findall(r"```toml\n(.*?)```", handle.read(), re.S)


@pytest.mark.parametrize("doc", ["README.md", os.path.join("docs", "integrations.md")])
def test_documented_configuration_examples_are_valid(tmp_path, doc):
    from fanout_lint.rules import ALL_RULES

    root = ROOT
    blocks = _toml_blocks(os.path.join(root, doc))
    assert blocks
    for block in blocks:
        path = _write(tmp_path / "pyproject.toml", block)
        config = load_config(path, ALL_RULES)  # raises on any unknown key, rule or option
        assert config.fail_on is not None
