"""What linking costs: fanout-lint with and without ``--no-link`` on the same files.

    python -m bench.linking                  # 1,000 templates, 7 runs each (a few minutes)
    python -m bench.linking --units 200 --runs 3

Three repositories of the same seeded templates (``bench/generate.py``): none linked
(linking can only look: every file is checked for link words, none is parsed for them), 30%
and 100% of the templates written as a producer and a consumer stack joined by exports and
imports (the findings are the same, found across stacks; a test checks that). Each
repository is linted with ``-j 1`` (one process: the cost is not hidden by a second core),
linked and with ``--no-link``, taking turns run by run (``run.measure_together``), so the
load of a shared machine falls on both alike. The ratio of the medians is the result.
A linked run also does what ``--no-link`` cannot: it finds the cross-stack findings (a
consumer alone cannot tell its imported queue's visibility timeout), so part of what it
adds is the rules' work on them.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile

if __package__ in (None, ""):  # `python bench/linking.py`
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench.generate import generate_repo  # noqa: E402
from bench.run import _tool, child_env, measure_together  # noqa: E402

LINK_RATES = (0.0, 0.3, 1.0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.linking", description=__doc__.splitlines()[0])
    parser.add_argument("--units", type=int, default=1000, help="templates before splitting (default 1000)")
    parser.add_argument("--runs", type=int, default=7, help="runs per measurement (default 7)")
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args(argv)
    fanout = _tool("fanout-lint")
    if fanout is None:
        parser.error("fanout-lint is not installed beside this Python")
    rows = []
    with tempfile.TemporaryDirectory(prefix="fanout-linking-") as workdir:
        env = child_env(workdir)
        for rate in LINK_RATES:
            root = os.path.join(workdir, f"repo-{int(rate * 100)}")
            units = generate_repo(root, args.units, (10, 60), ("yaml", "json"), seed=args.seed, link_rate=rate)
            common = [fanout, "-j", "1", "--no-cache", "--format", "json", "--output", os.devnull, root]
            for argv in (common, [*common, "--no-link"]):  # untimed warm-up: bytecode and page cache
                measure_together([argv], 1, workdir, env)
            linked, alone = measure_together([common, [*common, "--no-link"]], args.runs, workdir, env)
            rows.append((rate, len(units), linked.seconds, alone.seconds))
            print(f"bench.linking: {int(rate * 100)}% linked done", file=sys.stderr)
    print(f"{args.units:,} templates, -j 1, median of {args.runs} runs taken in turns\n")
    print("| templates written as linked stacks | files | linked s | --no-link s | linking adds |")
    print("|---|---:|---:|---:|---:|")
    for rate, files, linked_s, alone_s in rows:
        print(f"| {int(rate * 100)}% | {files:,} | {linked_s:.3f} | {alone_s:.3f} | {(linked_s / alone_s - 1) * 100:+.1f}% |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
