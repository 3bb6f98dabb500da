"""Write the CDK-style JSON twin of a CloudFormation YAML fixture, with its sidecar.

    python tests/tools/cdk_twin.py tests/fixtures/<rule>/cfn_fires.yaml

The twin has hashed logical IDs (``OrdersQueue`` becomes ``OrdersQueue1A2B3C4D``),
``aws:cdk:path`` metadata, long-form intrinsics, and the expected findings of the YAML
fixture moved to the lines where the same resources stand in the JSON text.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from expectations import expected_for  # noqa: E402
from fanout_lint.loaders.source import parse_yaml  # noqa: E402


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


def main(path: str) -> None:
    with open(path, encoding="utf-8") as handle:
        data = parse_yaml(handle.read(), path)
    resources = data["Resources"]
    ids = {logical: hashed(logical) for logical in resources}
    wanted = []  # (kind, logical id, index, rule)
    for _, line, rule in sorted(expected_for(path).findings):
        for logical in resources:
            if resources.key_locs[logical].line == line:
                wanted.append(("resource", logical, None, rule))
                break
        else:
            for logical, body in resources.items():
                subs = body.get("Properties", {}).get("Subscription", [])
                for index, loc in enumerate(getattr(subs, "item_locs", [])):
                    if loc.line == line:
                        wanted.append(("inline", logical, index, rule))
            if not any(w[3] == rule and w[0] == "inline" for w in wanted):
                raise SystemExit(f"{path}:{line}: no resource for expectation {rule}")
    twin = rename(json.loads(json.dumps(data)), ids)
    twin["Resources"] = {ids[k]: v for k, v in twin["Resources"].items()}
    for logical, new_id in ids.items():
        metadata = twin["Resources"][new_id].setdefault("Metadata", {})
        metadata["aws:cdk:path"] = f"Stack/{logical}/Resource"
    text = json.dumps(twin, indent=1) + "\n"
    lines = text.splitlines()
    sidecar = []
    for kind, logical, index, rule in wanted:
        start = lines.index(f'  "{ids[logical]}": {{') + 1
        if kind == "resource":
            sidecar.append((start, rule))
            continue
        sub = next(i for i in range(start, len(lines)) if lines[i].strip() == '"Subscription": [')
        indent = len(lines[sub]) - len(lines[sub].lstrip()) + 1
        items = [i + 1 for i in range(sub + 1, len(lines)) if lines[i] == " " * indent + "{"]
        sidecar.append((items[index], rule))
    base = path[: -len(".yaml")].replace("/cfn_", "/cdk_")
    with open(base + ".json", "w", encoding="utf-8") as handle:
        handle.write(text)
    with open(base + ".expected.yaml", "w", encoding="utf-8") as handle:
        if not sidecar:
            handle.write("[]\n")
        for line, rule in sorted(sidecar):
            handle.write(f"- {{rule: {rule}, line: {line}}}\n")


if __name__ == "__main__":
    for argument in sys.argv[1:]:
        main(argument)
