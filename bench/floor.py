"""The floor: a bare parse of the same files, in one process, and nothing else.

YAML with libyaml's C loader (CloudFormation's short-form tags accepted as plain
values), JSON with ``json``, HCL with python-hcl2. ``python bench/floor.py @LIST`` reads
the file names from LIST, one a line; otherwise the arguments are the files.
"""

from __future__ import annotations

import json
import sys

import yaml


class _Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):
    pass


def _any_tag(loader, suffix, node):
    if isinstance(node, yaml.ScalarNode):
        return loader.construct_scalar(node)
    if isinstance(node, yaml.SequenceNode):
        return loader.construct_sequence(node)
    return loader.construct_mapping(node)


_Loader.add_multi_constructor("!", _any_tag)


def parse(path: str) -> None:
    if path.endswith(".tf"):
        import hcl2  # only when there is HCL, as fanout-lint does

        with open(path, encoding="utf-8") as handle:
            hcl2.load(handle)
    elif path.endswith(".json"):
        with open(path, "rb") as handle:
            json.loads(handle.read())
    else:
        with open(path, "rb") as handle:
            yaml.load(handle.read(), Loader=_Loader)


def main(argv: list[str]) -> int:
    files: list[str] = []
    for arg in argv:
        if arg.startswith("@"):
            with open(arg[1:], encoding="utf-8") as handle:
                files.extend(line.strip() for line in handle if line.strip())
        else:
            files.append(arg)
    for path in files:
        parse(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
