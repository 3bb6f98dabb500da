"""Imports live at the top of a module. An import inside a function is kept only for a
dependency that is optional or heavy and that a run may not need; each such module is
listed below with the reason, and there are at most MAX_LAZY of them. Read from the
source with ast, as tests/test_layers.py reads the layers."""

from __future__ import annotations

import ast
import functools
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOPS = (os.path.join(ROOT, "fanout_lint"), os.path.join(ROOT, "rules"))  # rules/ installs as fanout_lint.rules

MAX_LAZY = 25
# Each module a function may import, and why not at the top. A module of the package
# itself is here only as the one way to a heavy dependency: a new lazy import of any
# other module of the package fails.
ALLOWED_LAZY = {
    "cfnlint": "cfn-lint: an optional extra, and never imported by the command line",
    "fanout_lint.server.protocol": "the language server: imports pygls and lsprotocol (the server extra)",
    "yaml": "PyYAML, for YAML files only: a run of JSON templates or Terraform never loads it",
    "lark": "the HCL parser's engine, for Terraform only",
    "fanout_lint.loaders.terraform.hcl.syntax": "the HCL parser: imports lark",
    "fanout_lint.loaders.cloudformation.loader": "a format's loader, for a run that has that format",
    "fanout_lint.loaders.serverless.loader": "a format's loader, for a run that has that format",
    "fanout_lint.loaders.terraform.loader": "a format's loader, for a run that has that format",
    "fanout_lint.loaders.terraform_plan.loader": "a format's loader, for a run that has that format",
    "fanout_lint.loaders.terraform.hcl_shadow": "importlib.metadata, only when the HCL parser cannot be imported",
    "tomllib": "a configuration file's parser, only when there is one",
    "tomli": "tomllib before Python 3.11",
    "fanout_lint.run.pool": "multiprocessing and concurrent.futures, only for a run of many units",
    "fanout_lint.reports.sarif": "an output format: pathlib and urllib.parse",
    "fanout_lint.reports.junit": "an output format: xml.etree and pyexpat",
    "shutil": "zlib, bz2 and lzma, only when a new version starts its cache",
}


def _module_name(path: str, root: str) -> str:
    parts = os.path.relpath(path, root)[:-len(".py")].split(os.sep)
    if parts[0] == "rules":
        parts = ["fanout_lint", *parts]
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imported(node: ast.Import | ast.ImportFrom, module: str, is_package: bool) -> tuple[str, list[str]]:
    """(the module imported from or "", the modules or names imported, as dotted names):
    ``from a import b`` imports from a, and b is a.b."""
    if isinstance(node, ast.Import):
        return "", [alias.name for alias in node.names]
    base = node.module or ""
    if node.level:
        package = module.split(".") if is_package else module.split(".")[:-1]
        package = package[:len(package) - node.level + 1]
        base = ".".join(package + ([node.module] if node.module else []))
    return base, [f"{base}.{alias.name}" for alias in node.names]


def lazy_imports(path: str, root: str = ROOT) -> list[tuple[int, tuple[str, list[str]]]]:
    """(line, what it imports) of each import inside a function of the file."""
    with open(path, encoding="utf-8") as handle:
        tree = ast.parse(handle.read(), path)
    module, is_package = _module_name(path, root), path.endswith("__init__.py")
    found = []

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if in_function and isinstance(child, (ast.Import, ast.ImportFrom)):
                found.append((child.lineno, _imported(child, module, is_package)))
            visit(child, in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)))

    visit(tree, False)
    return found


def _listed(name: str) -> str | None:
    return next((allowed for allowed in ALLOWED_LAZY if name == allowed or name.startswith(allowed + ".")), None)


def allowed_by(imported: tuple[str, list[str]]) -> set[str]:
    """The entries of ALLOWED_LAZY that allow the import, empty when none does: the module
    it imports from is listed (``from yaml import ScalarEvent``), or each module it
    imports is (``import yaml``, ``from fanout_lint.reports import sarif``)."""
    base, names = imported
    if base and _listed(base):
        return {_listed(base)}
    listed = [_listed(name) for name in names]
    return set(listed) if all(listed) else set()


def _sources() -> list[str]:
    return sorted(os.path.join(directory, name) for top in TOPS for directory, _, files in os.walk(top)
                  for name in files if name.endswith(".py"))


@functools.cache
def every_lazy_import() -> tuple[tuple[str, int, tuple[str, list[str]]], ...]:
    """(file, line, what it imports) of every import inside a function: read once, by the
    first test that asks (not at collection, which every worker of -n auto does)."""
    return tuple((os.path.relpath(path, ROOT), line, imported) for path in _sources()
                 for line, imported in lazy_imports(path))


def _shown(imported: tuple[str, list[str]]) -> str:
    base, names = imported
    return base or ", ".join(names)


def test_the_sources_are_read():
    # else the counts below would hold of nothing
    assert len(_sources()) > 100
    assert any(path.endswith(os.path.join("loaders", "parsing", "yaml_source.py")) and imported == ("", ["yaml"])
               for path, _, imported in every_lazy_import())


def test_at_most_so_many_imports_inside_functions():
    found = every_lazy_import()
    assert len(found) <= MAX_LAZY, "\n".join(f"{p}:{line}: {_shown(imported)}" for p, line, imported in found)


def test_imports_inside_functions_are_of_the_allowed_modules_only():
    assert [f"{p}:{line}: {_shown(imported)}" for p, line, imported in every_lazy_import() if not allowed_by(imported)] == []


def test_every_allowed_module_is_still_imported_lazily():
    # a module that moved to the top leaves the list: the list says what is lazy today
    used = {allowed for _, _, imported in every_lazy_import() for allowed in allowed_by(imported)}
    assert sorted(set(ALLOWED_LAZY) - used) == []


def test_no_start_up_shims():
    # no stand-ins for typing names or modules, set to spare an import at start-up
    shims = []
    for path in _sources():
        with open(path, encoding="utf-8") as handle:
            tree = ast.parse(handle.read(), path)
        for node in ast.walk(tree):
            if not isinstance(node, (ast.Assign, ast.AnnAssign)):
                continue
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                if isinstance(target, ast.Name) and target.id in ("TYPE_CHECKING", "Protocol"):
                    shims.append(f"{os.path.relpath(path, ROOT)}:{node.lineno}: {target.id} =")
                if isinstance(target, ast.Subscript) and ast.unparse(target.value) == "sys.modules":
                    shims.append(f"{os.path.relpath(path, ROOT)}:{node.lineno}: sys.modules[...] =")
    assert shims == []


def test_a_new_lazy_import_of_the_package_is_caught(tmp_path):
    # the checks above can fail: an import of the package's own module inside a function,
    # relative or absolute, is not allowed; one of PyYAML or of the HCL parser is
    package = tmp_path / "fanout_lint" / "cli"
    package.mkdir(parents=True)
    source = package / "command.py"
    source.write_text("import os\n\n\ndef f():\n    from ..reports import text\n    import yaml\n\n"
                      "    def g():\n        from fanout_lint.loaders.terraform.hcl.syntax import parse_hcl\n"
                      "        from fanout_lint.policy import baseline\n")
    found = lazy_imports(str(source), str(tmp_path))
    assert [(line, base) for line, (base, _) in found] == [
        (5, "fanout_lint.reports"), (6, ""), (9, "fanout_lint.loaders.terraform.hcl.syntax"), (10, "fanout_lint.policy")]
    assert [allowed_by(imported) for _, imported in found] == [
        set(), {"yaml"}, {"fanout_lint.loaders.terraform.hcl.syntax"}, set()]
    # a listed module beside one that is not: not allowed
    assert allowed_by(("fanout_lint.reports", ["fanout_lint.reports.sarif", "fanout_lint.reports.text"])) == set()
    assert allowed_by(("fanout_lint.reports", ["fanout_lint.reports.sarif"])) == {"fanout_lint.reports.sarif"}
