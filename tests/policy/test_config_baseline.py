"""The configuration's ``baseline`` key: the baseline a gate uses without ``--baseline``."""

from __future__ import annotations

import os

from fanout_lint.cli.main import main

from repo_paths import TESTS

CFN = os.path.join(TESTS, "fixtures", "shared-queue", "cfn_fires.yaml")


def _repo(tmp_path, config: str) -> None:
    (tmp_path / ".git").mkdir()  # the repository root the paths are confined to
    with open(CFN, encoding="utf-8") as handle:
        (tmp_path / "stack.yaml").write_text(handle.read(), encoding="utf-8")
    (tmp_path / ".fanout-lint.toml").write_text(config, encoding="utf-8")


def test_the_configured_baseline_hides_recorded_findings(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _repo(tmp_path, 'select = ["shared-queue"]\nbaseline = "ci/baseline.json"\n')
    (tmp_path / "ci").mkdir()
    assert main(["stack.yaml"]) == 2  # a configured baseline that is missing is an error
    assert "baseline.json: cannot read baseline" in capsys.readouterr().err
    assert main(["stack.yaml", "--write-baseline", "ci/baseline.json"]) == 0
    capsys.readouterr()
    assert main(["stack.yaml"]) == 0
    assert "FL201" not in capsys.readouterr().out


def test_the_flag_wins_over_the_configuration(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _repo(tmp_path, 'select = ["shared-queue"]\nbaseline = "recorded.json"\n')
    assert main(["stack.yaml", "--write-baseline", "recorded.json"]) == 0
    (tmp_path / "empty.json").write_text('{"version": 1, "findings": []}', encoding="utf-8")
    capsys.readouterr()
    assert main(["stack.yaml", "--baseline", "empty.json"]) == 1
    assert "FL201" in capsys.readouterr().out


def test_show_settings_names_the_baseline(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _repo(tmp_path, 'baseline = "ci/baseline.json"\n')
    assert main(["--show-settings", "stack.yaml"]) == 0
    assert f"baseline: {tmp_path / 'ci' / 'baseline.json'}" in capsys.readouterr().out


def test_a_baseline_outside_the_repository_is_refused(tmp_path, capsys, monkeypatch):
    repo = tmp_path / "repo"
    repo.mkdir()
    (tmp_path / "elsewhere.json").write_text('{"version": 1, "findings": []}', encoding="utf-8")
    monkeypatch.chdir(repo)
    _repo(repo, 'baseline = "../elsewhere.json"\n')
    assert main(["stack.yaml"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("fanout-lint: error: baseline: ")
    assert "elsewhere.json is outside the repository" in err[0]


def test_a_linked_baseline_is_refused(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _repo(tmp_path, 'baseline = "link.json"\n')
    (tmp_path.parent / f"{tmp_path.name}-target.json").write_text('{"version": 1, "findings": []}')
    os.symlink(tmp_path.parent / f"{tmp_path.name}-target.json", tmp_path / "link.json")
    assert main(["stack.yaml"]) == 2
    assert "baseline: " in capsys.readouterr().err


def test_a_baseline_that_is_not_a_path_is_a_configuration_error(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _repo(tmp_path, "baseline = 3\n")
    assert main(["stack.yaml"]) == 2
    assert "baseline must be a file path" in capsys.readouterr().err
