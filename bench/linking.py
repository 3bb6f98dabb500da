"""What linking costs: fanout-lint with and without ``--no-link`` on the same files.

    python -m bench.linking                  # 1,000 templates, 9 pairs of runs (a few minutes)
    python -m bench.linking --units 200 --runs 3

Three repositories of the same seeded templates (``bench/generate.py``): none linked
(linking can only look: every file is checked for link words, none is parsed for them), 30%
and 100% of the templates written as a producer and a consumer stack joined by exports and
imports (the findings are the same, found across stacks; a test checks that). Each
repository is linted with ``-j 1`` (one process: the cost is not hidden by a second core),
linked and with ``--no-link``, in pairs whose order alternates, so that the load of a
shared machine falls on both alike; the times are the child's CPU seconds, and the result
is the median of the pairs' ratios. The 0% row shows the noise: there the two commands do
the same work but for one look at each file's bytes.
A linked run also does what ``--no-link`` cannot: it finds the cross-stack findings (a
consumer alone cannot tell its imported queue's visibility timeout), so part of what it
adds is the rules' work on them.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile

if __package__ in (None, ""):  # `python bench/linking.py`
    sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # after an installed fanout-lint

from bench.generate import generate_repo  # noqa: E402
from bench.run import _tool, child_env  # noqa: E402

LINK_RATES = (0.0, 0.3, 1.0)


def cpu_seconds(argv: list[str], cwd: str, env: dict) -> float:
    """User plus system seconds of one run of ``argv`` (from the kernel's accounting of
    the child: less disturbed than wall time by other work on a shared machine)."""
    proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)  # so Popen does not wait again
    return usage.ru_utime + usage.ru_stime


def paired(linked: list[str], alone: list[str], runs: int, cwd: str, env: dict) -> tuple[float, float, float]:
    """Medians of each command's CPU seconds, and the median of the ratios of the pairs,
    the order in each pair alternating (ABBA...), so that neither is always second."""
    a_times, b_times, ratios = [], [], []
    for run in range(runs):
        if run % 2:
            b = cpu_seconds(alone, cwd, env)
            a = cpu_seconds(linked, cwd, env)
        else:
            a = cpu_seconds(linked, cwd, env)
            b = cpu_seconds(alone, cwd, env)
        a_times.append(a)
        b_times.append(b)
        ratios.append(a / b)
    return statistics.median(a_times), statistics.median(b_times), statistics.median(ratios)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.linking", description=__doc__.splitlines()[0])
    parser.add_argument("--units", type=int, default=1000, help="templates before splitting (default 1000)")
    parser.add_argument("--runs", type=int, default=9, help="pairs of runs (default 9)")
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
            for command in (common, [*common, "--no-link"]):  # untimed warm-up: bytecode and page cache
                cpu_seconds(command, workdir, env)
            rows.append((rate, len(units), *paired(common, [*common, "--no-link"], args.runs, workdir, env)))
            print(f"bench.linking: {int(rate * 100)}% linked done", file=sys.stderr)
    print(f"{args.units:,} templates, -j 1, CPU seconds (user + system), median of {args.runs} pairs\n")
    print("| templates written as linked stacks | files | linked s | --no-link s | linking adds (median of the pairs) |")
    print("|---|---:|---:|---:|---:|")
    for rate, files, linked_s, alone_s, ratio in rows:
        print(f"| {int(rate * 100)}% | {files:,} | {linked_s:.3f} | {alone_s:.3f} | {(ratio - 1) * 100:+.1f}% |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
