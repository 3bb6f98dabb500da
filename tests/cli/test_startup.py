"""What a run imports is part of its start-up time: each format loads only its own parser."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from repo_paths import ROOT

FIXTURES = os.path.join(ROOT, "tests", "fixtures")


def _modules(tmp_path, *paths) -> set[str]:
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path))
    env.pop("CI", None)  # the parse cache is off in CI; one test here needs it
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "fanout_lint", "--format", "json", *paths],
        cwd=ROOT, capture_output=True, text=True, timeout=120, env=env,
    )
    assert done.returncode in (0, 1), done.stderr[-2000:]
    imported = {line.split("|")[-1].strip() for line in done.stderr.splitlines() if "|" in line}
    assert "fanout_lint.cli.main" in imported  # the import log was read
    return imported


def _imported(tmp_path, *paths) -> set[str]:
    return {m.split(".")[0] for m in _modules(tmp_path, *paths)}


@pytest.fixture
def cache_home(tmp_path, _grammar_tables):
    """A cache directory (XDG_CACHE_HOME) that holds the session's parser tables and no
    parsed file, as a user's after the first run: without the tables, each Terraform run
    here would build them (over a second), which is not what these tests are about."""
    home = tmp_path / "fanout-lint"
    home.mkdir(mode=0o700)
    for tables in _grammar_tables:
        try:
            os.link(tables, home / os.path.basename(tables))
        except OSError:
            shutil.copyfile(tables, home / os.path.basename(tables))
    return tmp_path


def test_terraform_loads_lark_but_neither_python_hcl2_nor_pyyaml(tmp_path, cache_home):
    unit = tmp_path / "unit"
    unit.mkdir()
    (unit / "main.tf").write_text('resource "aws_sqs_queue" "q" {\n  name = "q"\n}\n')
    top = _imported(cache_home, str(unit))
    assert "lark" in top
    assert not top & {"hcl2", "yaml", "cfnlint"}  # hcl2.api would pull its dict transformer


@pytest.mark.parametrize("template", [
    os.path.join(FIXTURES, "missing-dlq", "cdk_fires.json"),
])
def test_json_templates_load_neither_pyyaml_nor_lark(tmp_path, template):
    assert not _imported(tmp_path, template) & {"yaml", "lark", "hcl2", "cfnlint"}


def test_yaml_templates_load_no_hcl_parser(tmp_path):
    top = _imported(tmp_path, os.path.join(FIXTURES, "missing-dlq", "cfn_fires.yaml"))
    assert "yaml" in top and not top & {"lark", "hcl2", "cfnlint"}


def test_one_template_loads_neither_the_process_pool_nor_other_formats(tmp_path):
    # one unit is linted in this process; the modules of other formats, of other reports
    # and of a broken HCL install stay out (tests/test_import_discipline.py lists them)
    modules = _modules(tmp_path, os.path.join(FIXTURES, "batch-item-failures-off", "cfn_fires.yaml"))
    assert "fanout_lint.run.link_plan" in modules  # the plan ran
    assert not modules & {"fanout_lint.run.pool", "multiprocessing", "concurrent.futures.process",
                          "fanout_lint.loaders.terraform.loader", "fanout_lint.loaders.serverless.loader",
                          "fanout_lint.reports.sarif", "fanout_lint.reports.junit", "xml.etree.ElementTree",
                          "fanout_lint.loaders.terraform.hcl_shadow", "importlib.metadata"}


def test_terraform_files_all_in_the_cache_load_no_parser(tmp_path, cache_home):
    unit = tmp_path / "unit"
    unit.mkdir()
    (unit / "main.tf").write_text('resource "aws_sqs_queue" "q" {\n  name = "q"\n}\n')
    first = _imported(cache_home, str(unit))  # parses, and fills the cache (XDG_CACHE_HOME)
    again = _imported(cache_home, str(unit))
    assert "lark" in first and "lark" not in again


def test_every_dataclass_writes_its_own_docstring():
    # a record without a docstring is undocumented (dataclass() would make one of its
    # signature, at every start): each says what it holds.
    import dataclasses
    import importlib
    import pkgutil

    import fanout_lint
    import fanout_lint.rules

    names = [info.name for package in (fanout_lint, fanout_lint.rules)
             for info in pkgutil.walk_packages(package.__path__, package.__name__ + ".")]
    assert "fanout_lint.model.nodes" in names and "fanout_lint.rules.shared_queue" in names
    undocumented = []
    for name in names:
        if name.endswith(("__main__", "cfnlint_plugin", "cfnlint_adapter")):
            continue  # the command line itself, and cfn-lint's plugin (imported by cfn-lint only)
        module = importlib.import_module(name)
        for value in vars(module).values():
            if isinstance(value, type) and value.__module__ == module.__name__ and dataclasses.is_dataclass(value):
                doc = value.__dict__.get("__doc__") or ""
                if doc.startswith(value.__name__ + "("):  # the one dataclass() made
                    undocumented.append(f"{module.__name__}.{value.__qualname__}")
    assert not undocumented, undocumented


def _package_classes():
    import importlib
    import pkgutil

    import fanout_lint

    for info in pkgutil.walk_packages(fanout_lint.__path__, "fanout_lint."):
        if info.name.endswith(("__main__", "cfnlint_plugin", "cfnlint_adapter")):
            continue
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if isinstance(value, type) and value.__module__ == module.__name__:
                yield value


def test_records_show_themselves_as_dataclasses_would():
    # one __repr__ for every record (model/record.py), none compiled per class
    import dataclasses

    from fanout_lint.model.record import Record

    records = [c for c in _package_classes() if issubclass(c, Record) and dataclasses.is_dataclass(c)]
    assert len(records) > 50
    for cls in records:
        assert "__repr__" not in vars(cls), f"{cls.__qualname__}: give dataclass() repr=False"
        fields = dataclasses.fields(cls)
        twin = dataclasses.make_dataclass(cls.__name__, [(f.name, object, dataclasses.field(repr=f.repr))
                                                         for f in fields])
        ours, theirs = object.__new__(cls), object.__new__(twin)
        for number, f in enumerate(fields):
            for record in (ours, theirs):
                object.__setattr__(record, f.name, [f.name, number])
        assert repr(ours) == repr(theirs).replace(twin.__qualname__, cls.__qualname__, 1)
    assert repr(next(c for c in records if c.__name__ == "Loc")("t.yaml", 3, 5)) == \
        "Loc(file='t.yaml', line=3, column=5, end_line=0, end_column=0)"


def test_value_records_compare_and_hash_as_dataclasses_would():
    # one __eq__ and __hash__ for every value record (model/record.py), none compiled per class
    import copy
    import dataclasses

    from fanout_lint.model.record import ValueRecord

    classes = [c for c in _package_classes() if dataclasses.is_dataclass(c)]
    # by value through ValueRecord, or by identity: never an __eq__ compiled by dataclass()
    assert [c.__qualname__ for c in classes if c.__dataclass_params__.eq] == []
    values = [c for c in classes if issubclass(c, ValueRecord)]
    assert len(values) > 40
    for cls in values:
        for method in ("__eq__", "__hash__"):
            assert method not in vars(cls), f"{cls.__qualname__}: give dataclass() eq=False"
        fields = dataclasses.fields(cls)
        twin = dataclasses.make_dataclass(
            cls.__name__, [(f.name, object, dataclasses.field(compare=f.compare, hash=f.hash)) for f in fields],
            unsafe_hash=True)
        ours, theirs = object.__new__(cls), object.__new__(twin)
        for number, f in enumerate(fields):
            for record in (ours, theirs):
                object.__setattr__(record, f.name, (f.name, number))
        assert hash(ours) == hash(theirs)
        assert ours == copy.copy(ours) and not ours != copy.copy(ours)
        assert ours != theirs and ours.__eq__(theirs) is NotImplemented
        for f in fields:
            other = copy.copy(ours)
            object.__setattr__(other, f.name, "changed")
            changed = copy.copy(theirs)
            object.__setattr__(changed, f.name, "changed")
            assert (ours == other) == (theirs == changed) == (not f.compare), (cls.__qualname__, f.name)
            assert (hash(other) == hash(changed))
    known = next(c for c in values if c.__name__ == "Known")
    assert known(30) == known(30, site="here") and {known(30): 1}[known(30, site="there")] == 1
