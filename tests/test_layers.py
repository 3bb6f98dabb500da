"""The layers' contracts, read from the source's imports (every import, at the top of a
module or inside a function): a rule sees only the rule API and the model, the model
sees nothing of the package, loaders see neither the run, the reports, the fixes nor the
command line, and reports see no loader."""

from __future__ import annotations

import ast
import functools
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = os.path.join(ROOT, "fanout_lint")
RULES = os.path.join(ROOT, "rules")  # installed as fanout_lint.rules

# The rule API: the rule's shape and its severity (rule.py), the rules' shared predicates
# (rules/common.py, and the package that lists them). Not the output layer (findings.py),
# nor where rule.py takes Severity from (severity.py): a rule names only what rule.py says.
RULE_API = ("fanout_lint.rule", "fanout_lint.rules")
RULE_API_NAMES: dict[str, set[str]] = {}

# The run: one unit, the engine, the worker pool, link planning.
RUN = ("fanout_lint.run",)
REPORTS = ("fanout_lint.reports",)
FIXES = ("fanout_lint.fixes",)
COMMAND_LINE = ("fanout_lint.cli", "fanout_lint.__main__")
LOADERS = ("fanout_lint.loaders",)

# Breaks allowed today, each until the package layout of issue 27 moves the code.
KNOWN_BREAKS: set[tuple[str, str]] = set()  # (module, target) pairs allowed for now: none


def _module_name(path: str) -> str:
    relative = os.path.relpath(path, ROOT)[:-len(".py")].split(os.sep)
    if relative[0] == "rules":
        relative = ["fanout_lint", *relative]
    if relative[-1] == "__init__":
        relative.pop()
    return ".".join(relative)


def _sources() -> dict[str, str]:
    found = {}
    for top in (PACKAGE, RULES):
        for directory, _, files in os.walk(top):
            for name in files:
                if name.endswith(".py"):
                    path = os.path.join(directory, name)
                    found[_module_name(path)] = path
    return found


def _imports(module: str, path: str) -> set[tuple[str, str]]:
    """(module imported, name imported or "") for each fanout_lint import in the file."""
    with open(path, encoding="utf-8") as handle:
        tree = ast.parse(handle.read(), path)
    package = module if path.endswith("__init__.py") else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update((alias.name, "") for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            for alias in node.names:
                # `from fanout_lint import confine` imports a module, not a name
                submodule = f"{target}.{alias.name}"
                found.add((submodule, "") if submodule in MODULES else (target, alias.name))
    return {(target, name) for target, name in found if _within(target, ("fanout_lint",))}


def _within(module: str, layers: tuple[str, ...]) -> bool:
    return any(module == layer or module.startswith(layer + ".") for layer in layers)


SOURCES = _sources()
MODULES = set(SOURCES)


@functools.cache
def imports() -> dict[str, set[tuple[str, str]]]:
    """What each module imports of the package: read once, by the first test that asks
    (not at collection, which every worker of -n auto does)."""
    return {module: _imports(module, path) for module, path in SOURCES.items()}


def _breaks(importers: tuple[str, ...], allowed=None, forbidden=None) -> list[str]:
    found = []
    for module, imported in sorted(imports().items()):
        if not _within(module, importers):
            continue
        for target, name in sorted(imported):
            if (module, target) in KNOWN_BREAKS:
                continue
            if allowed is not None and not allowed(target, name):
                found.append(f"{module} imports {target}{'.' + name if name else ''}")
            if forbidden is not None and _within(target, forbidden):
                found.append(f"{module} imports {target}")
    return found


def test_the_sources_are_read():
    # else every contract below would hold of nothing
    assert "fanout_lint.rules.shared_queue" in imports() and "fanout_lint.model.graph" in imports()
    assert ("fanout_lint.rule", "Rule") in imports()["fanout_lint.rules.shared_queue"]
    assert ("fanout_lint.rules.common", "is_sqs_source") in imports()["fanout_lint.rules.batch_item_failures_off"]
    assert ("fanout_lint.model.arns", "arn_service") in imports()["fanout_lint.rules.common"]
    assert any(_within(t, ("fanout_lint.loaders",)) for t, _ in imports()["fanout_lint.run.unit"])


def _rule_may_import(target: str, name: str) -> bool:
    if _within(target, ("fanout_lint.model",)):
        return True
    if not _within(target, RULE_API):
        return False
    names = RULE_API_NAMES.get(target)
    return names is None or name in names


def test_rules_take_severity_from_the_rule_api():
    assert ("fanout_lint.rule", "Severity") in imports()["fanout_lint.rules.shared_queue"]
    assert ("fanout_lint.rule", "Severity") in imports()["fanout_lint.rules.common"]


def test_rules_import_only_the_rule_api_and_the_model():
    assert _breaks(("fanout_lint.rules",), allowed=_rule_may_import) == []


def test_the_model_imports_nothing_of_the_package_outside_the_model():
    assert _breaks(("fanout_lint.model",), allowed=lambda target, _: _within(target, ("fanout_lint.model",))) == []


def test_loaders_import_neither_the_run_the_reports_the_fixes_nor_the_command_line():
    assert _breaks(LOADERS, forbidden=RUN + REPORTS + FIXES + COMMAND_LINE) == []


def test_reports_import_no_loader():
    assert _breaks(REPORTS, forbidden=LOADERS) == []


def test_a_break_is_caught(tmp_path):
    # the checks above can fail: a rule that reads a loader, a loader that reads a report
    rule = tmp_path / "rule.py"
    rule.write_text("from fanout_lint.loaders.names import arn_service\nfrom fanout_lint.results.records import Finding\n"
                    "from fanout_lint.model.nodes import Queue\nfrom .common import named\n"
                    "from fanout_lint.results.records import Severity\nfrom fanout_lint.severity import Severity\n")
    imported = _imports("fanout_lint.rules.rule", str(rule))
    assert sorted(t + "." + n for t, n in imported if not _rule_may_import(t, n)) == [
        "fanout_lint.loaders.names.arn_service", "fanout_lint.results.records.Finding", "fanout_lint.results.records.Severity", "fanout_lint.severity.Severity"]
    loader = tmp_path / "loader.py"
    loader.write_text("def f():\n    from ..reports import text\n    from fanout_lint.run import pool\n")
    imported = _imports("fanout_lint.loaders.loader", str(loader))
    assert sorted(t for t, _ in imported if _within(t, RUN + REPORTS)) == ["fanout_lint.reports.text",
                                                                          "fanout_lint.run.pool"]
