"""Every case in tests/fix_cases/: ``--fix`` through the command line gives exactly the
expected bytes, and the fixed files lint and parse as they should.

A case is a directory holding ``input.<ext>`` (a template, or a ``.tf`` file that is
linted as a Terraform directory of its own) or ``input/`` (a tree, linted as one path),
the expected result as ``expected.<ext>`` or ``expected/`` (absent: nothing may change),
and optionally ``flags``, the extra command-line flags (``--unsafe-fixes``). After the
fix, a new lint must no longer report what was fixed, report everything else as before,
and read every resource as before but for the settings the fixes set.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
from collections import Counter

import pytest

from fanout_lint.cli.main import main
from fanout_lint.run.discover import discover
from fanout_lint.run.unit import check_graph
from fanout_lint.fixes import Planner
from fanout_lint.loaders import load_candidate
from fanout_lint.model.nodes import Body, Loc
from fanout_lint.model.values import Known, OneOf, Unknown
from fanout_lint.rules import ALL_RULES
from fanout_lint.policy.settings import Settings
from repo_paths import TESTS

CASES_DIR = os.path.join(TESTS, "fix_cases")
CASES = sorted(name for name in os.listdir(CASES_DIR) if os.path.isdir(os.path.join(CASES_DIR, name)))
UPDATE = bool(os.environ.get("FANOUT_LINT_UPDATE_FIX_CASES"))


@dataclasses.dataclass(frozen=True)
class Case:
    name: str

    @property
    def directory(self) -> str:
        return os.path.join(CASES_DIR, self.name)

    def _named(self, stem: str) -> str | None:
        return next((n for n in sorted(os.listdir(self.directory)) if n == stem or n.startswith(stem + ".")), None)

    @property
    def input(self) -> str:
        name = self._named("input")
        assert name is not None, f"{self.name} has no input"
        return os.path.join(self.directory, name)

    @property
    def expected(self) -> str | None:
        name = self._named("expected")
        return os.path.join(self.directory, name) if name else None

    @property
    def flags(self) -> list[str]:
        path = os.path.join(self.directory, "flags")
        if not os.path.exists(path):
            return []
        with open(path, encoding="utf-8") as handle:
            return handle.read().split()

    @property
    def unsafe(self) -> bool:
        return "--unsafe-fixes" in self.flags

    def lay_out(self, tmp: str) -> tuple[str, str]:
        """Copy the input into ``tmp``: (the path to lint, the file or tree it becomes)."""
        source = self.input
        if os.path.isdir(source):
            shutil.copytree(source, os.path.join(tmp, "unit"))
            return "unit", "unit"
        extension = os.path.splitext(source)[1]
        if extension == ".tf":
            os.mkdir(os.path.join(tmp, "unit"))
            shutil.copyfile(source, os.path.join(tmp, "unit", "main.tf"))
            return "unit", os.path.join("unit", "main.tf")
        shutil.copyfile(source, os.path.join(tmp, "template" + extension))
        return "template" + extension, "template" + extension


def _files(root: str) -> dict[str, bytes]:
    if os.path.isfile(root):
        with open(root, "rb") as handle:
            return {"": handle.read()}
    out = {}
    for directory, _, names in os.walk(root):
        for name in names:
            path = os.path.join(directory, name)
            with open(path, "rb") as handle:
                out[os.path.relpath(path, root)] = handle.read()
    return out


def _lint(path: str):
    """(graphs, findings, fixes) of ``path``, read as the command line reads it; fixes are
    (rule, node id, field, value, applicability) for every violation whose fix can be planned."""
    candidates, missing = discover([path], ())
    assert not missing
    graphs, findings, fixes = [], [], []
    for candidate in candidates:
        loaded, errors = load_candidate(candidate)
        assert not errors, errors
        for graph in loaded:
            planner = Planner(graph)
            for rule in ALL_RULES:
                for violation in rule.check(graph, rule.options_of({})):
                    if violation.fix is not None and planner.plan(violation.at, violation.fix) is not None:
                        fix = violation.fix
                        fixes.append((rule.id, violation.at.id, fix.field, fix.value, fix.applicability))
            findings.extend(check_graph(graph, ALL_RULES, Settings())[0])
            graphs.append(graph)
    return graphs, findings, fixes


def _shape(value):
    """A value as compared across the fix: everything but locations."""
    if isinstance(value, (Loc, Body)):
        return None
    if isinstance(value, Known):
        return ("known", _shape(value.value), value.origin, value.detail)
    if isinstance(value, OneOf):
        return ("one of", tuple(_shape(o) for o in value.options))
    if isinstance(value, Unknown):
        return ("unknown", value.reason)
    if dataclasses.is_dataclass(value):
        return (type(value).__name__,) + tuple((f.name, _shape(getattr(value, f.name)))
                                             for f in dataclasses.fields(value) if f.compare)
    if isinstance(value, (list, tuple)):
        return tuple(_shape(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((k, _shape(v)) for k, v in value.items()))
    return value


def _set(node, field: str, value):
    """The node as the fix leaves it: the setting written as a literal."""
    written = Known(tuple(value) if isinstance(value, list) else value)
    if field in {f.name for f in dataclasses.fields(node)}:
        return dataclasses.replace(node, **{field: written})
    redrive = node.redrive.value  # a key of the redrive policy document
    return dataclasses.replace(node, redrive=Known(dataclasses.replace(redrive, **{field: written})))


def _nodes(graphs, fixes=()) -> dict:
    nodes = {node.id: node for graph in graphs for node in graph.nodes()}
    for _, node_id, field, value, _ in fixes:
        nodes[node_id] = _set(nodes[node_id], field, value)
    return {node_id: _shape(node) for node_id, node in nodes.items()}


@pytest.mark.parametrize("case", [Case(name) for name in CASES], ids=CASES)
def test_fix_case(case, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    target, result = case.lay_out(str(tmp_path))
    before_files = _files(result)
    graphs, before, fixes = _lint(target)
    applied = [f for f in fixes if f[4].applies(case.unsafe)]

    code = main(["check", target, "--fix", *case.flags])
    out, err = capsys.readouterr()

    after_files = _files(result)
    if UPDATE:
        _update(case, before_files, after_files)
    expected_path = case.expected
    expected = _files(expected_path) if expected_path else before_files
    if os.path.isdir(case.input):  # files the case does not list stay as they were
        expected = {**before_files, **expected}
    assert after_files == expected, f"{case.name}: the fixed files differ from {expected_path or 'the input'}"
    assert err.startswith(f"fanout-lint: fixed {len({(f[0], f[1]) for f in applied})} finding"), err

    graphs_after, after, _ = _lint(target)
    fixed = {(rule, node_id) for rule, node_id, *_ in applied}
    found_before = Counter((f.rule, f.node_ids[0]) for f in before)
    found_after = Counter((f.rule, f.node_ids[0]) for f in after)
    assert not fixed & set(found_after), f"still reported after the fix: {sorted(fixed & set(found_after))}"
    assert found_after == Counter({k: n for k, n in found_before.items() if k not in fixed})
    assert _nodes(graphs_after) == _nodes(graphs, applied)

    # the report is the one of the fixed files
    assert code == (1 if any(f.severity.rank >= 1 for f in after) else 0), out
    assert out.splitlines()[-1].startswith(f"{len(after)} finding"), out


def _update(case: Case, before: dict[str, bytes], after: dict[str, bytes]) -> None:
    """FANOUT_LINT_UPDATE_FIX_CASES=1: write what --fix made as the expected result."""
    old = case.expected
    if old:
        shutil.rmtree(old) if os.path.isdir(old) else os.remove(old)
    changed = {name: data for name, data in after.items() if before.get(name) != data}
    if not changed:
        return
    if os.path.isdir(case.input):
        for name, data in changed.items():
            path = os.path.join(case.directory, "expected", name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as handle:
                handle.write(data)
        return
    with open(os.path.join(case.directory, "expected" + os.path.splitext(case.input)[1]), "wb") as handle:
        handle.write(changed[""])


def test_every_case_has_an_input():
    assert CASES
    for name in CASES:
        assert Case(name).input
