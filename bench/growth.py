"""Growth: the cost of one more resource, in one unit growing from 500 to 10,000 resources.

    python -m bench.growth                 # YAML, JSON and Terraform, 5 rounds
    python -m bench.growth --runs 9 --markdown growth.md
    python -m bench.growth --one-process   # also all sizes in one process, alternating

Whole-process times hide this: start-up is most of a 500-resource run, and the noise of a
shared machine is larger than the difference between two sizes (differences of medians of
whole runs gave negative marginal costs). So each size is timed in its own interpreter,
after an untimed run that imports everything and loads the parsers: fanout-lint's whole
check (``cli.main``, ``-j 1 --no-cache --format json``, the report written to a discarded
stream: parse, graph, rules, suppressions, report) and, in the same process, the fair
floor's parse of the same files (``bench/floor.py``). A process times each ``REPEAT`` times
and keeps the fastest (CPU-bound work only gets slower by noise); the sizes take turns
round by round, and the result is the median over the rounds.

The marginal cost at N resources is the slope from the size before (N/2 for 1,000 and
10,000): (time(N) - time(N/2)) / (resources(N) - resources(N/2)), with time() the time of
one unit. The issue's criterion is the marginal cost at 10,000 against the one at 1,000;
both are printed, with their ratio, for fanout-lint and for the floor.

A slope at 1,000 is the difference of two short times (a unit of 500 resources against
one of 1,000, some 30 ms apart), so the noise of a shared machine moved it by a fifth
between runs. Each size is therefore measured as ``COPIES // size`` units of that size
(20 of 500 resources, 10 of 1,000, ..., 1 of 10,000), each a template (or Terraform
directory) of its own, drawn with its own seed: every run does about the same work, a
unit's time is the run's divided by the number of units, and the slope at 1,000 is read
from differences ten times as large. What a run costs once (discovery, the report's
header) then counts a twentieth at 500 and a tenth at 1,000 resources, a bias of under
1 µs a resource.

With ``--instructions`` (needs valgrind) the cost is counted instead of timed: the
instructions one whole process executes, fanout-lint's and the floor's, for one unit of
each size, counted by valgrind's cachegrind without its cache simulation. The count is the
same on every run and blind to the processor's caches, so it tells work that grows per
resource from time that grows because a larger unit's memory no longer fits a cache;
start-up is the same for every size and drops out of the slopes.

With ``--one-process`` each round also times every size in one process, the sizes taking
turns pass by pass. A process that has only ever held units of 1,000 resources has them
packed in memory that fits the processor's last-level cache; one that has also held a
unit of 10,000 has not. The second figure is what a unit costs in a run over a repository
of mixed sizes, and it tells work that grows per resource from memory that outgrows the
cache.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

if __package__ in (None, ""):
    sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # after an installed fanout-lint

from bench.generate import generate_repo, terraform_directory, unit_files  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SIZES = (500, 1000, 2000, 5000, 10000)
SERIES = (("yaml", "YAML"), ("json", "JSON"), ("tf", "Terraform"))
REPEAT = 3
COPIES = 10000  # resources a run: units of a size are copies up to this many


def write_unit(root: str, fmt: str, size: int, seed: int, copies: int = 1) -> tuple[str, list[str], int]:
    """(what fanout-lint is given, the files the floor parses, resources of all units) for
    ``copies`` units of ``size`` resources each: templates, or Terraform directories in files
    of 250 resources (a .tf file may hold at most 512 KiB), as the whole-process growth rows
    have them."""
    shutil.rmtree(root, ignore_errors=True)
    if fmt == "tf":
        files = []
        for copy in range(copies):
            files += terraform_directory(os.path.join(root, f"unit{copy:02d}"), max(1, size // 250), size,
                                         seed=seed + copy)
        resources = sum(_count_resources(f) for f in files)
        return root, files, resources
    units = []
    for copy in range(copies):
        units += generate_repo(os.path.join(root, f"unit{copy:02d}"), 1, size, (fmt,), seed=seed + copy)
    return root, unit_files(units), sum(u.resources for u in units)


def _count_resources(path: str) -> int:
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    return text.count('\nresource "') + text.startswith('resource "')


def child(target: str, listing: str, repeat: int) -> dict:
    """In a fresh interpreter: the fastest of ``repeat`` timed checks and floor parses."""
    check, parse = _timers(target, listing)
    result = {}
    for name, work in (("fanout", check), ("floor", parse)):
        work()  # untimed: imports, the parser's tables, the first allocations
        best = float("inf")
        for _ in range(repeat):
            start = time.perf_counter()
            work()
            best = min(best, time.perf_counter() - start)
        result[name] = best
    return result


def mixed_child(targets: list[tuple[str, str]], repeat: int) -> list[dict]:
    """In a fresh interpreter: every size's check and floor parse, the sizes alternating
    pass by pass, the fastest of ``repeat`` passes for each."""
    best = [{"fanout": float("inf"), "floor": float("inf")} for _ in targets]
    timers = [_timers(target, listing) for target, listing in targets]
    for check, parse in timers:  # untimed: imports, the parser's tables, the first allocations
        check()
        parse()
    for _ in range(repeat):
        for index, (check, parse) in enumerate(timers):
            for name, work in (("fanout", check), ("floor", parse)):
                start = time.perf_counter()
                work()
                best[index][name] = min(best[index][name], time.perf_counter() - start)
    return best


def _timers(target: str, listing: str):
    sys.path.insert(0, HERE)
    import floor

    from fanout_lint.cli.main import main

    with open(listing, encoding="utf-8") as handle:
        files = [line.strip() for line in handle if line.strip()]
    argv = ["check", "-j", "1", "--no-cache", "--format", "json", target]

    def check() -> None:
        saved, sys.stdout = sys.stdout, io.StringIO()  # the report is written, then dropped
        try:
            code = main(argv)
        finally:
            sys.stdout = saved
        if code not in (0, 1):
            raise SystemExit(f"fanout-lint exited {code} on {target}")

    def parse() -> None:
        for path in files:
            floor.parse(path)

    return check, parse


def measure(workdir: str, runs: int, seed: int, series=SERIES, sizes=SIZES, repeat: int = REPEAT,
            copies_to: int = COPIES, one_process: bool = False) -> dict:
    """{label: {resources a unit: (fanout seconds a unit, floor seconds a unit)}}, medians
    over ``runs`` rounds; each size as ``copies_to // size`` units (at least one).

    ``one_process``: also every size in one process each round, the sizes alternating
    (label "... in one process"): what a unit costs in a process that has also held the
    other sizes, whose memory is no longer laid out for one size alone."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.pop("CI", None)
    env["PYTHONPYCACHEPREFIX"] = os.path.join(workdir, "pycache")
    results: dict = {}
    for fmt, label in series:
        units = []
        for size in sizes:
            copies = max(1, copies_to // size)
            root = os.path.join(workdir, f"{fmt}-{size}")
            target, files, resources = write_unit(root, fmt, size, seed, copies)
            listing = os.path.join(workdir, f"{fmt}-{size}.txt")
            with open(listing, "w", encoding="utf-8") as handle:
                handle.write("\n".join(files))
            units.append((round(resources / copies), copies, target, listing))
        times: dict = {resources: ([], []) for resources, _, _, _ in units}
        for _ in range(runs):  # the sizes take turns, so that drift falls on all of them
            for resources, copies, target, listing in units:
                done = subprocess.run(
                    [sys.executable, os.path.join(HERE, "growth.py"), "--child", target, listing, str(repeat)],
                    env=env, capture_output=True, text=True, check=True,
                )
                measured = json.loads(done.stdout)  # one unit's time: the run's over its units
                times[resources][0].append(measured["fanout"] / copies)
                times[resources][1].append(measured["floor"] / copies)
        results[label] = {r: (statistics.median(f), statistics.median(p)) for r, (f, p) in times.items()}
        if one_process:
            mixed: dict = {resources: ([], []) for resources, _, _, _ in units}
            for _ in range(runs):
                done = subprocess.run(
                    [sys.executable, os.path.join(HERE, "growth.py"), "--mixed", str(repeat)]
                    + [part for _, _, target, listing in units for part in (target, listing)],
                    env=env, capture_output=True, text=True, check=True,
                )
                for (resources, copies, _, _), measured in zip(units, json.loads(done.stdout)):
                    mixed[resources][0].append(measured["fanout"] / copies)
                    mixed[resources][1].append(measured["floor"] / copies)
            results[f"{label} in one process"] = {
                r: (statistics.median(f), statistics.median(p)) for r, (f, p) in mixed.items()}
        sys.stderr.write(f"growth: {label} done\n")
    return results


def instructions(workdir: str, seed: int, series=SERIES, sizes=SIZES) -> dict:
    """{label: {resources: (fanout-lint's instructions, the floor's)}}: one whole process
    each, on one unit of each size, counted by valgrind (``count_instructions``)."""
    env = dict(os.environ, PYTHONHASHSEED="0")  # the same dict layouts, so the same count, every run
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.pop("CI", None)
    env["PYTHONPYCACHEPREFIX"] = os.path.join(workdir, "pycache")
    beside = os.path.join(os.path.dirname(sys.executable), "fanout-lint")
    fanout = [beside if os.path.exists(beside) else shutil.which("fanout-lint") or "fanout-lint",
              "--format", "json", "--no-cache", "-j", "1"]
    floor = [sys.executable, os.path.join(HERE, "floor.py")]
    results: dict = {}
    for fmt, label in series:
        counts = {}
        for number, size in enumerate(sizes):
            target, files, resources = write_unit(os.path.join(workdir, f"{fmt}-{size}"), fmt, size, seed)
            listing = os.path.join(workdir, f"{fmt}-{size}.txt")
            with open(listing, "w", encoding="utf-8") as handle:
                handle.write("\n".join(files))
            commands = ([*fanout, target], [*floor, "@" + listing])
            if number == 0:  # untimed: bytecode written, as every later run finds it
                for command in commands:
                    subprocess.run(command, env=env, capture_output=True)
            counts[resources] = tuple(count_instructions(command, env) for command in commands)
        results[label] = counts
        sys.stderr.write(f"growth: {label} counted\n")
    return results


def count_instructions(command: list[str], env: dict) -> int:
    """The instructions ``command`` executes, all its process's, as valgrind counts them."""
    done = subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
                           *command], env=env, capture_output=True, text=True)
    found = re.search(r"I\s+refs:\s+([0-9,]+)", done.stderr)
    if done.returncode not in (0, 1) or not found:
        raise SystemExit(f"valgrind could not count {' '.join(command)}: {done.stderr[-500:]}")
    return int(found.group(1).replace(",", ""))


def marginal(by_size: dict, index: int, which: int) -> float:
    """µs a resource from the size before ``index`` to it (``which``: 0 fanout, 1 floor),
    for times in seconds; a million times the amount a resource for counts."""
    sizes = sorted(by_size)
    low, high = sizes[index - 1], sizes[index]
    return 1e6 * (by_size[high][which] - by_size[low][which]) / (high - low)


def table(results: dict, counted: bool = False) -> str:
    """The sizes and their marginal costs, then the ratio at 10,000 against 1,000: times in
    seconds shown as ms a unit and µs a resource, or, ``counted``, instructions."""
    total, slope = ("instructions (whole process)", "instructions a resource") if counted else (
        "ms a unit (in process)", "µs a resource")
    unit = "" if counted else " µs"
    lines = [
        f"| unit | resources a unit | fanout-lint {total} | fair floor {'instructions' if counted else total} "
        f"| fanout-lint marginal {slope}, from the size before | floor's marginal{unit} |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    summary = [
        f"| unit | fanout-lint marginal at 1,000{unit} | at 10,000{unit} | ratio (target ≤ 1.2) "
        f"| floor's at 1,000{unit} | at 10,000{unit} | floor's ratio |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    scale, shown = (1e-6, "{:,.0f}") if counted else (1, "{:.0f}")  # marginal() is per million
    for label, by_size in results.items():
        sizes = sorted(by_size)
        for index, size in enumerate(sizes):
            fanout, floor_s = by_size[size]
            ours = shown.format(marginal(by_size, index, 0) * scale) if index else ""
            theirs = shown.format(marginal(by_size, index, 1) * scale) if index else ""
            amounts = f"{fanout:,} | {floor_s:,}" if counted else f"{1e3 * fanout:.1f} | {1e3 * floor_s:.1f}"
            lines.append(f"| {label} | {size:,} | {amounts} | {ours} | {theirs} |")
        if len(sizes) >= 3:
            at_1k, at_10k = 1, len(sizes) - 1  # 500 -> ~1,000 and ~5,000 -> ~10,000
            ours = (marginal(by_size, at_1k, 0) * scale, marginal(by_size, at_10k, 0) * scale)
            theirs = (marginal(by_size, at_1k, 1) * scale, marginal(by_size, at_10k, 1) * scale)
            summary.append(f"| {label} | {shown.format(ours[0])} | {shown.format(ours[1])} | {ours[1] / ours[0]:.2f} "
                           f"| {shown.format(theirs[0])} | {shown.format(theirs[1])} | {theirs[1] / theirs[0]:.2f} |")
    return "\n".join(lines) + "\n\n" + "\n".join(summary) + "\n"


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--child"]:
        target, listing, repeat = argv[1], argv[2], int(argv[3])
        sys.stdout.write(json.dumps(child(target, listing, repeat)) + "\n")
        return 0
    if argv[:1] == ["--mixed"]:
        repeat, rest = int(argv[1]), argv[2:]
        sys.stdout.write(json.dumps(mixed_child(list(zip(rest[::2], rest[1::2])), repeat)) + "\n")
        return 0
    parser = argparse.ArgumentParser(prog="python -m bench.growth", description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="rounds (median over them; default 5)")
    parser.add_argument("--repeat", type=int, default=REPEAT, help="timed checks a process (the fastest counts)")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--only", action="append", default=[], metavar="FORMAT", help="yaml, json or tf")
    parser.add_argument("--markdown", metavar="FILE", help="also write the tables to FILE")
    parser.add_argument("--one-process", action="store_true",
                        help="also time every size in one process, the sizes alternating")
    parser.add_argument("--instructions", action="store_true",
                        help="count the instructions of one process a size with valgrind instead of timing")
    args = parser.parse_args(argv)
    series = tuple(s for s in SERIES if not args.only or s[0] in args.only)
    if args.instructions:
        with tempfile.TemporaryDirectory(prefix="fanout-growth-") as workdir:
            text = "Instructions of one whole process a size (valgrind --tool=cachegrind)\n\n" + table(
                instructions(workdir, args.seed, series), counted=True)
        sys.stdout.write(text)
        if args.markdown:
            with open(args.markdown, "w", encoding="utf-8") as handle:
                handle.write(text)
        return 0
    with tempfile.TemporaryDirectory(prefix="fanout-growth-") as workdir:
        results = measure(workdir, args.runs, args.seed, series, repeat=args.repeat, one_process=args.one_process)
    text = f"Rounds: {args.runs}; fastest of {args.repeat} timed runs a process\n\n" + table(results)
    sys.stdout.write(text)
    if args.markdown:
        with open(args.markdown, "w", encoding="utf-8") as handle:
            handle.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
