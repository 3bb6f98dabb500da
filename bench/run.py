"""The benchmark: fanout-lint, cfn-lint and the bare-parse floor, whole-process, side by side.

    python -m bench                  # the full table (minutes; cfn-lint dominates)
    python -m bench --quick          # small sizes, one run each: a smoke test
    python -m bench --markdown docs/benchmarks.md.table

Each tool runs as a fresh process on the same files; wall time and peak RSS (of the
largest single process, from /usr/bin/time or wait4) are the median of the runs. Ratios are the result:
absolute times depend on the machine.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field

if __package__ in (None, ""):  # `python bench/run.py`
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench.generate import generate_repo, unit_files  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


@dataclass(frozen=True)
class Scenario:
    name: str
    units: int
    resources: int | tuple[int, int]
    formats: tuple[str, ...]
    cfn_lint_runs: int | None = None  # None: as many as the others; 0: skip cfn-lint
    flaw_rate: float = 0.2  # share of consumers with an anti-pattern; 0 for memory series
    link_rate: float = 0.0  # share of templates written as two stacks linked by exports and imports


FULL = (
    Scenario("cold start, 1 template of 10 resources", 1, 10, ("yaml",)),
    Scenario("1 template of 50 resources", 1, 50, ("yaml",)),
    Scenario("1 template of 500 resources", 1, 500, ("yaml",)),
    Scenario("1 template of 5,000 resources", 1, 5000, ("yaml",), cfn_lint_runs=1),
    Scenario("1 JSON template of 5,000 resources", 1, 5000, ("json",), cfn_lint_runs=0),
    Scenario("10 CFN templates", 10, (10, 60), ("yaml", "json"), cfn_lint_runs=1),
    Scenario("100 CFN templates", 100, (10, 60), ("yaml", "json"), cfn_lint_runs=1),
    Scenario("1,000 CFN templates", 1000, (10, 60), ("yaml", "json"), cfn_lint_runs=1),
    Scenario("2,000 CFN templates", 2000, (10, 60), ("yaml", "json"), cfn_lint_runs=0),
    # The same 1,000 templates, 30% of them split into a producer and a consumer stack
    # (1,300 files): what linking costs when there is something to link.
    Scenario("1,000 CFN templates, 30% as linked stacks", 1000, (10, 60), ("yaml", "json"), cfn_lint_runs=0,
             link_rate=0.3),
    Scenario("200 mixed units (CFN, SAM, Terraform)", 200, (10, 60), ("yaml", "json", "sam", "tf"), cfn_lint_runs=1),
    # Memory against the number of units, without findings (the report itself grows with them).
    Scenario("10 clean CFN templates", 10, (10, 60), ("yaml", "json"), cfn_lint_runs=0, flaw_rate=0.0),
    Scenario("1,000 clean CFN templates", 1000, (10, 60), ("yaml", "json"), cfn_lint_runs=0, flaw_rate=0.0),
    Scenario("2,000 clean CFN templates", 2000, (10, 60), ("yaml", "json"), cfn_lint_runs=0, flaw_rate=0.0),
)
QUICK = (
    Scenario("cold start, 1 template of 10 resources", 1, 10, ("yaml",)),
    Scenario("20 mixed units", 20, (10, 30), ("yaml", "json", "sam", "tf")),
)


@dataclass
class Measure:
    wall: list[float] = field(default_factory=list)
    rss_kib: list[int] = field(default_factory=list)
    exit_codes: set[int] = field(default_factory=set)

    @property
    def seconds(self) -> float:
        return statistics.median(self.wall)

    @property
    def mib(self) -> float:
        return statistics.median(self.rss_kib) / 1024


TIME = "/usr/bin/time"


def child_env(workdir: str) -> dict:
    """Bytecode cached as an installed package has it, even where the environment says
    PYTHONDONTWRITEBYTECODE (else every run of a source checkout compiles every module)."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = os.path.join(workdir, "pycache")
    return env


def measure(argv: list[str], runs: int, cwd: str, env: dict | None = None) -> Measure:
    """Run ``argv`` ``runs`` times; wall time and the child's peak RSS each time.

    Linux starts a child's peak RSS at its parent's size when it forks, and this harness
    grows while it generates templates; so the child is started from the small
    ``/usr/bin/time`` process when there is one, which reports the peak itself."""
    result = Measure()
    report = os.path.join(cwd, "rss.txt")
    use_time = os.path.exists(TIME)
    for _ in range(runs):
        command = [TIME, "-f", "%M", "-o", report, *argv] if use_time else argv
        start = time.perf_counter()
        proc = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(proc.pid, 0)
        result.wall.append(time.perf_counter() - start)
        proc.returncode = os.waitstatus_to_exitcode(status)  # so Popen does not wait again
        rss = usage.ru_maxrss  # KiB on Linux
        if use_time:
            with open(report, encoding="utf-8") as handle:
                rss = int(handle.read().split()[-1])
        result.rss_kib.append(rss)
        result.exit_codes.add(proc.returncode)
    return result


def _tool(name: str) -> str | None:
    beside = os.path.join(os.path.dirname(sys.executable), name)
    return beside if os.path.exists(beside) else shutil.which(name)


@dataclass
class Row:
    scenario: Scenario
    resources: int
    files: int
    floor: Measure
    fanout: Measure
    fanout_serial: Measure | None
    cfn_lint: Measure | None


def run_scenario(
    scenario: Scenario, workdir: str, runs: int, seed: int, with_cfn_lint: bool, env: dict | None = None
) -> Row:
    root = os.path.join(workdir, "repo")
    shutil.rmtree(root, ignore_errors=True)
    units = generate_repo(
        root, scenario.units, scenario.resources, scenario.formats, seed=seed, flaw_rate=scenario.flaw_rate,
        link_rate=scenario.link_rate,
    )
    files = unit_files(units)
    listing = os.path.join(workdir, "files.txt")
    with open(listing, "w", encoding="utf-8") as handle:
        handle.write("\n".join(files))
    python = sys.executable
    fanout = _tool("fanout-lint")
    floor = measure([python, os.path.join(HERE, "floor.py"), "@" + listing], runs, workdir, env)
    lint = measure([fanout, "--format", "json", root], runs, workdir, env)
    serial = measure([fanout, "--format", "json", "-j", "1", root], runs, workdir, env) if scenario.units > 1 else None
    cfn = None
    cfn_files = [u.path for u in units if u.format != "tf"]
    cfn_runs = runs if scenario.cfn_lint_runs is None else scenario.cfn_lint_runs
    if with_cfn_lint and cfn_files and cfn_runs and _tool("cfn-lint"):
        cfn = measure([_tool("cfn-lint"), *cfn_files], min(cfn_runs, runs), workdir, env)
    return Row(scenario, sum(u.resources for u in units), len(files), floor, lint, serial, cfn)


def warm_up(workdir: str, env: dict, with_cfn_lint: bool) -> None:
    """One untimed run of each tool, so that their bytecode is cached before timing."""
    units = generate_repo(os.path.join(workdir, "warm"), 2, 20, ("yaml", "tf"), seed=0)
    files = unit_files(units)
    measure([sys.executable, os.path.join(HERE, "floor.py"), *files], 1, workdir, env)
    measure([_tool("fanout-lint"), os.path.join(workdir, "warm")], 1, workdir, env)
    if with_cfn_lint and _tool("cfn-lint"):
        measure([_tool("cfn-lint"), units[0].path], 1, workdir, env)


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            names = [line.split(":", 1)[1].strip() for line in handle if line.startswith("model name")]
        cpu = names[0] if names else cpu
    except OSError:
        pass
    from fanout_lint.parallel import available_cpus

    return (
        f"{cpu}, {available_cpus()} CPUs available, Python {platform.python_version()}, "
        f"{platform.system()} {platform.release()}"
    )


def table(rows: list[Row]) -> str:
    lines = [
        "| scenario | resources | files | floor s | fanout-lint s (-j auto) | fanout-lint s (-j 1) | cfn-lint s "
        "| fanout/floor (-j 1) | cfn-lint/fanout | floor MiB | fanout MiB (-j 1) | cfn-lint MiB |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        serial = row.fanout_serial or row.fanout
        cfn = row.cfn_lint
        lines.append(
            f"| {row.scenario.name} | {row.resources:,} | {row.files:,} | {row.floor.seconds:.2f} "
            f"| {row.fanout.seconds:.2f} | {serial.seconds:.2f} | {cfn.seconds:.2f} | "
            f"{serial.seconds / row.floor.seconds:.2f} | {cfn.seconds / row.fanout.seconds:.1f} | "
            f"{row.floor.mib:.0f} | {serial.mib:.0f} | {cfn.mib:.0f} |"
            if cfn else
            f"| {row.scenario.name} | {row.resources:,} | {row.files:,} | {row.floor.seconds:.2f} "
            f"| {row.fanout.seconds:.2f} | {serial.seconds:.2f} | n/a | "
            f"{serial.seconds / row.floor.seconds:.2f} | n/a | {row.floor.mib:.0f} | {serial.mib:.0f} | n/a |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small scenarios, one run: a smoke test")
    parser.add_argument("--runs", type=int, default=None, help="runs per measurement (default 5; quick 1)")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--no-cfn-lint", action="store_true", help="skip cfn-lint")
    parser.add_argument("--only", action="append", default=[], metavar="TEXT",
                        help="only the scenarios whose name contains TEXT")
    parser.add_argument("--markdown", metavar="FILE", help="also write the table and the machine to FILE")
    args = parser.parse_args(argv)
    scenarios = QUICK if args.quick else FULL
    if args.only:
        scenarios = tuple(s for s in scenarios if any(t in s.name for t in args.only))
    runs = args.runs or (1 if args.quick else 5)
    rows = []
    with tempfile.TemporaryDirectory(prefix="fanout-bench-") as workdir:
        env = child_env(workdir)
        warm_up(workdir, env, not args.no_cfn_lint)
        for scenario in scenarios:
            sys.stderr.write(f"bench: {scenario.name} ...\n")
            rows.append(run_scenario(scenario, workdir, runs, args.seed, not args.no_cfn_lint, env))
    text = f"Machine: {machine()}\n\nRuns per measurement: {runs} (median; cfn-lint once on the large repositories)\n\n"
    text += table(rows)
    sys.stdout.write(text)
    if args.markdown:
        with open(args.markdown, "w", encoding="utf-8") as handle:
            handle.write(text)
    failed = [r.scenario.name for r in rows if r.fanout.exit_codes - {0, 1}]
    if failed:
        sys.stderr.write(f"bench: fanout-lint reported errors (exit 2) on: {', '.join(failed)}\n")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
