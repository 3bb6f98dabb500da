"""Compare two shakedown runs: findings per rule and severity, and what changed.

Usage: python bench/severity_diff.py BEFORE_DIR AFTER_DIR

Each directory holds one ``fanout-lint check --format json`` report per repository
(``<repo>.json``). Prints a table of error/warning/info counts per rule, before and after,
then every change, a finding keyed by (file, rule, resource): appeared, disappeared,
changed level, or same level with another message.
"""

from __future__ import annotations

import collections
import glob
import json
import os
import sys

LEVELS = ("error", "warning", "info")
Key = tuple[str, str, str]


def load(directory: str) -> list[dict]:
    findings = []
    for path in sorted(glob.glob(os.path.join(directory, "*.json"))):
        with open(path, encoding="utf-8") as handle:
            findings.extend(json.load(handle)["findings"])
    return findings


def by_rule(findings: list[dict]) -> dict[str, collections.Counter]:
    counts: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for finding in findings:
        counts[finding["rule"]][finding["severity"]] += 1
    return counts


def changes(before: list[dict], after: list[dict]) -> list[tuple[str, Key]]:
    def index(findings: list[dict]) -> dict[Key, list[dict]]:
        grouped: dict[Key, list[dict]] = collections.defaultdict(list)
        for finding in findings:
            grouped[(finding["file"], finding["rule"], finding.get("resource") or "")].append(finding)
        return grouped

    old, new = index(before), index(after)
    found = []
    for key in sorted(set(old) | set(new)):
        was = sorted(f["severity"] for f in old.get(key, []))
        now = sorted(f["severity"] for f in new.get(key, []))
        if not was:
            found.append(("appeared " + "/".join(now), key))
        elif not now:
            found.append(("disappeared " + "/".join(was), key))
        elif was != now:
            found.append(("/".join(was) + " -> " + "/".join(now), key))
        elif sorted(f["message"] for f in old[key]) != sorted(f["message"] for f in new[key]):
            found.append(("message", key))
    return found


def render(before: list[dict], after: list[dict]) -> str:
    old, new = by_rule(before), by_rule(after)
    lines = ["| rule | before error/warning/info | after error/warning/info |", "|---|---|---|"]
    for rule in sorted(set(old) | set(new)):
        cells = ["/".join(str(counts.get(rule, collections.Counter())[level]) for level in LEVELS)
                 for counts in (old, new)]
        lines.append(f"| {rule} | {cells[0]} | {cells[1]} |")
    lines.append("")
    lines.extend(f"{kind}: {file} {rule} {resource}" for kind, (file, rule, resource) in changes(before, after))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    print(render(load(args[0]), load(args[1])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
