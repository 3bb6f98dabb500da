"""The floor: a bare parse of the same files, in one process, and nothing else.

YAML with libyaml's C loader (CloudFormation's short-form tags accepted as plain
values), JSON with ``json``, HCL (``.tf``, ``.tfvars``) with python-hcl2. ``python
bench/floor.py @LIST`` reads the file names from LIST, one a line; otherwise the
arguments are the files.

Two floors for HCL, as ``--hcl``:

- ``tree`` (the fair floor, the default): ``hcl2.parses_to_tree``, python-hcl2's Lark
  parse, the one step of python-hcl2 that fanout-lint also takes (it reads the tree);
- ``dict``: ``hcl2.loads``, which also turns the tree into python-hcl2's dict, work
  fanout-lint never does; the floor of the earlier benchmarks, kept for comparison.
"""

from __future__ import annotations

import functools
import json
import sys


@functools.lru_cache(maxsize=None)
def _loader():
    """libyaml's loader with the short-form tags, made (and PyYAML imported) for the first
    YAML file: a floor of HCL files alone imports no PyYAML, as fanout-lint imports none."""
    import yaml

    class Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):
        pass

    def any_tag(loader, suffix, node):
        if isinstance(node, yaml.ScalarNode):
            return loader.construct_scalar(node)
        if isinstance(node, yaml.SequenceNode):
            return loader.construct_sequence(node)
        return loader.construct_mapping(node)

    Loader.add_multi_constructor("!", any_tag)
    return Loader


def parse(path: str, hcl: str = "tree") -> None:
    if path.endswith((".tf", ".tfvars")):
        import hcl2  # only when there is HCL, as fanout-lint does

        with open(path, encoding="utf-8", errors="replace") as handle:
            text = handle.read()
        try:  # a broken file in a real corpus: fanout-lint reports it, the floor goes on
            if hcl == "dict":
                hcl2.loads(text)
            else:
                hcl2.parses_to_tree(text)
        except Exception:
            pass
        return
    with open(path, "rb") as handle:
        data = handle.read()
    try:  # a real corpus holds a few broken files; fanout-lint reports them, the floor skips them
        if path.endswith(".json") or data.lstrip()[:1] == b"{":  # as fanout-lint chooses
            json.loads(data)
        else:
            import yaml

            yaml.load(data, Loader=_loader())
    except ValueError:
        pass
    except Exception as exc:  # yaml.YAMLError: PyYAML is imported by then
        if type(exc).__module__.split(".")[0] != "yaml":
            raise


def main(argv: list[str]) -> int:
    hcl = "tree"
    if argv[:1] and argv[0].startswith("--hcl="):
        hcl, argv = argv[0].split("=", 1)[1], argv[1:]
    files: list[str] = []
    for arg in argv:
        if arg.startswith("@"):
            with open(arg[1:], encoding="utf-8") as handle:
                files.extend(line.strip() for line in handle if line.strip())
        else:
            files.append(arg)
    for path in files:
        parse(path, hcl)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
