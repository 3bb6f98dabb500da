"""Write the CDK-style JSON twin of a CloudFormation YAML fixture, with its sidecar.

    python tests/tools/cdk_twin.py tests/fixtures/<rule>/cfn_fires.yaml

The twin has hashed logical IDs (``OrdersQueue`` becomes ``OrdersQueue1A2B3C4D``),
``aws:cdk:path`` metadata, long-form intrinsics, and the expected findings of the YAML
fixture at the lines where the same findings stand in the JSON text.
``tests/rules/test_cdk_twins.py`` fails while a twin is stale.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from expectations import expected_for  # noqa: E402
from fanout_lint.run.engine import lint_paths  # noqa: E402
from fanout_lint.loaders.parsing.yaml_source import parse_yaml  # noqa: E402
from fanout_lint.rules import ALL_RULES  # noqa: E402
from fanout_lint.policy.settings import Settings  # noqa: E402


def hashed(logical_id: str) -> str:
    return logical_id + hashlib.sha256(logical_id.encode()).hexdigest()[:8].upper()


def rename(value, ids: dict[str, str]):
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if key == "Ref" and item in ids:
                out[key] = ids[item]
            elif key == "Fn::GetAtt" and isinstance(item, list) and item and item[0] in ids:
                out[key] = [ids[item[0]], *item[1:]]
            elif key == "Fn::Sub" and isinstance(item, str):
                out[key] = re.sub(r"\$\{([A-Za-z0-9]+)", lambda m: "${" + ids.get(m.group(1), m.group(1)), item)
            else:
                out[key] = rename(item, ids)
        return out
    if isinstance(value, list):
        return [rename(v, ids) for v in value]
    return value


def twin(path: str) -> tuple[str, str]:
    """The CDK twin's JSON text and its sidecar of expected findings.

    The sidecar lists where the twin's findings are, checked to be the YAML fixture's own
    expected findings (same rules on the same resources, renamed): a twin that lints
    differently from its source is an error, not a new expectation.
    """
    with open(path, encoding="utf-8") as handle:
        data = parse_yaml(handle.read(), path)
    ids = {logical: hashed(logical) for logical in data["Resources"]}
    doc = rename(json.loads(json.dumps(data)), ids)
    doc["Resources"] = {ids[k]: v for k, v in doc["Resources"].items()}
    for logical, new_id in ids.items():
        metadata = doc["Resources"][new_id].setdefault("Metadata", {})
        metadata["aws:cdk:path"] = f"Stack/{logical}/Resource"
    text = json.dumps(doc, indent=1) + "\n"
    original = {new: old for old, new in ids.items()}
    expected = sorted((rule, _resource_at(data["Resources"], line)) for _, line, rule in expected_for(path).findings)
    with tempfile.TemporaryDirectory() as scratch:
        twin_path = os.path.join(scratch, "twin.json")
        with open(twin_path, "w", encoding="utf-8") as handle:
            handle.write(text)
        found = lint_paths([twin_path], ALL_RULES, Settings(jobs=1)).findings
    got = sorted((f.name, original.get(f.resource, f.resource)) for f in found)
    if got != expected:
        raise SystemExit(f"{path}: the twin's findings {got} are not the fixture's {expected}")
    sidecar = "".join(f"- {{rule: {f.name}, line: {f.loc.line}}}\n" for f in sorted(found, key=lambda f: (f.loc.line, f.name)))
    return text, sidecar or "[]\n"


def _resource_at(resources, line: int) -> str:
    """The resource whose text holds ``line`` (a marker names the line a finding is on)."""
    starts = sorted((loc.line, logical) for logical, loc in resources.key_locs.items())
    owner = starts[0][1]
    for start, logical in starts:
        if start <= line:
            owner = logical
    return owner


def main(path: str) -> None:
    text, sidecar = twin(path)
    base = path[: -len(".yaml")].replace("/cfn_", "/cdk_")
    with open(base + ".json", "w", encoding="utf-8") as handle:
        handle.write(text)
    with open(base + ".expected.yaml", "w", encoding="utf-8") as handle:
        handle.write(sidecar)


if __name__ == "__main__":
    for argument in sys.argv[1:]:
        main(argument)
