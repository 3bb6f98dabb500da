"""What one unit holds in memory: its parsed tree and its graph, a resource at a time.

    python -m bench.memory                     # YAML, JSON and CDK JSON units of 1,000 resources
    python -m bench.memory --resources 10000 --formats yaml

For each format, one generated template (``bench/generate.py``, seeded) is parsed as a
run parses it (``loaders.parse_file``) and built into its graph
(``loaders.cloudformation.load_template``), the cyclic collector paused, under
``tracemalloc``: the bytes still allocated after each step, the text's own included in the
parse. A unit's size is what a large one pays in cache misses (docs/benchmarks.md,
"Growth"), so it is measured here rather than guessed from a run's peak RSS, which also
holds the interpreter, the modules and the report.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import tempfile
import tracemalloc

if __package__ in (None, ""):
    sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # after an installed fanout-lint

from bench.generate import generate_repo, unit_files  # noqa: E402


def measure(path: str) -> dict[str, float]:
    """Bytes held after the parse and after the graph, for the template at ``path``."""
    from fanout_lint.loaders import parse_file
    from fanout_lint.loaders.cloudformation.loader import load_template

    parse_file(path)  # modules imported and tables built outside the measurement
    collecting = gc.isenabled()
    gc.disable()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        parsed = parse_file(path)
        after_parse = tracemalloc.get_traced_memory()[0]
        graph = load_template(parsed.data, path, parsed.syntax, parsed.text)
        after_graph = tracemalloc.get_traced_memory()[0]
        resources = len(parsed.data.get("Resources", {}))
        del graph, parsed
    finally:
        tracemalloc.stop()
        if collecting:
            gc.enable()
    return {"resources": resources, "parse": after_parse - before, "graph": after_graph - after_parse}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.memory", description=__doc__.splitlines()[0])
    parser.add_argument("--resources", type=int, default=1000)
    parser.add_argument("--formats", default="yaml,json,cdk", metavar="LIST")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    lines = [
        "| format | resources | parsed tree MB | graph MB | parsed tree bytes a resource | graph bytes a resource |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    with tempfile.TemporaryDirectory(prefix="fanout-memory-") as workdir:
        for fmt in (f.strip() for f in args.formats.split(",") if f.strip()):
            units = generate_repo(os.path.join(workdir, fmt), 1, args.resources, (fmt,), seed=args.seed)
            found = measure(unit_files(units)[0])
            count = found["resources"]
            lines.append(
                f"| {fmt} | {count:,} | {found['parse'] / 1e6:.2f} | {found['graph'] / 1e6:.2f} "
                f"| {found['parse'] / count:,.0f} | {found['graph'] / count:,.0f} |"
            )
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
