"""The benchmark: fanout-lint, cfn-lint and the bare-parse floor, whole-process, side by side.

    python -m bench                  # the full table (minutes; cfn-lint dominates)
    python -m bench --quick          # small sizes, one run each: a smoke test
    python -m bench --markdown docs/benchmarks.md.table
    python -m bench --corpus DIR --only corpus   # a real corpus (see docs/shakedown.md)
    python -m bench.growth           # the marginal cost per resource, in process

The floor is a bare parse (``bench/floor.py``); for HCL the fair floor is python-hcl2's
Lark parse (``parses_to_tree``), and the old floor (``hcl2.loads``, which also builds
python-hcl2's dict) is shown beside it. fanout-lint runs with ``--no-cache`` except in the
warm pre-commit scenario, so that every run parses what the floor parses.

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
    sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # after an installed fanout-lint

from bench.generate import generate_repo, terraform_directory, unit_files  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


@dataclass(frozen=True)
class Scenario:
    name: str
    units: int
    resources: int | tuple[int, int]
    formats: tuple[str, ...]
    cfn_lint_runs: int | None = None  # None: as many as the others; 0: skip cfn-lint
    flaw_rate: float = 0.2  # share of consumers with an anti-pattern; 0 for memory series
    # "repo": generated units; "precommit": one changed file of a 30-file Terraform
    # directory, the others cached; "tf-file": one Terraform file; "corpus": a real corpus
    kind: str = "repo"
    series: str | None = None  # rows of one growth series (one unit, growing)
    files: int = 1  # "tf-file": the unit's files (a .tf file may hold at most 512 KiB)
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
FULL += (
    Scenario("1,000 CFN templates (YAML, JSON, CDK JSON)", 1000, (10, 60), ("yaml", "json", "cdk"), cfn_lint_runs=0),
    Scenario("1 CDK JSON template of 5,000 resources", 1, 5000, ("cdk",), cfn_lint_runs=0),
    Scenario("cold start, 1 Terraform file of 10 resources", 1, 10, ("tf",), cfn_lint_runs=0, kind="tf-file"),
    Scenario("warm pre-commit, 1 changed .tf of a 30-file directory", 1, 600, ("tf",), cfn_lint_runs=0,
             kind="precommit"),
    Scenario("200 Terraform units", 200, (10, 60), ("tf",), cfn_lint_runs=0),
)
# Growth: one unit of each format at 500 to 10,000 resources, whole process (Terraform spread
# over files of 250 resources: one file may hold 512 KiB); the marginal cost per resource is
# measured in process on the same units (bench/growth.py), after these rows.
GROWTH_SIZES = (500, 1000, 2000, 5000, 10000)
GROWTH = tuple(
    Scenario(f"growth: 1 {label} unit of {size:,} resources", 1, size, (fmt,), cfn_lint_runs=0,
             kind="tf-file" if fmt == "tf" else "repo", series=label, files=max(1, size // 250))
    for fmt, label in (("yaml", "YAML"), ("json", "JSON"), ("tf", "Terraform"))
    for size in GROWTH_SIZES
)
FULL += GROWTH
QUICK = (
    Scenario("cold start, 1 template of 10 resources", 1, 10, ("yaml",)),
    Scenario("20 mixed units", 20, (10, 30), ("yaml", "json", "sam", "tf")),
    Scenario("cold start, 1 Terraform file of 10 resources", 1, 10, ("tf",), cfn_lint_runs=0, kind="tf-file"),
    Scenario("warm pre-commit, 1 changed .tf of a 30-file directory", 1, 600, ("tf",), cfn_lint_runs=0,
             kind="precommit"),
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
    PYTHONDONTWRITEBYTECODE (else every run of a source checkout compiles every module);
    fanout-lint's parse cache in the work directory, never the user's, and not turned off
    by a CI variable of the shell the harness runs in."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.pop("CI", None)
    env["PYTHONPYCACHEPREFIX"] = os.path.join(workdir, "pycache")
    env["XDG_CACHE_HOME"] = os.path.join(workdir, "xdg-cache")
    return env


def measure(argv: list[str], runs: int, cwd: str, env: dict | None = None, before=None) -> Measure:
    """Run ``argv`` ``runs`` times; wall time and the child's peak RSS each time."""
    return measure_together([argv], runs, cwd, env, before)[0]


def measure_together(commands: list[list[str]], runs: int, cwd: str, env: dict | None = None,
                     before=None) -> list[Measure]:
    """Run each command ``runs`` times, taking turns (the first, the second, ..., then the
    first again), so that the load of a shared machine falls on all of them alike and
    their ratios hold even when the absolute times drift. ``before(run)`` is called,
    untimed, before each command's run.

    Linux starts a child's peak RSS at its parent's size when it forks, and this harness
    grows while it generates templates; so the child is started from the small
    ``/usr/bin/time`` process when there is one, which reports the peak itself."""
    results = [Measure() for _ in commands]
    report = os.path.join(cwd, "rss.txt")
    use_time = os.path.exists(TIME)
    for run in range(runs):
        for argv, result in zip(commands, results):
            if before is not None:
                before(run)  # untimed: what the run must find changed
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
    return results


def _tool(name: str) -> str | None:
    beside = os.path.join(os.path.dirname(sys.executable), name)
    return beside if os.path.exists(beside) else shutil.which(name)


@dataclass
class Row:
    scenario: Scenario
    resources: int
    files: int
    floor: Measure  # the fair floor
    fanout: Measure
    fanout_serial: Measure | None
    cfn_lint: Measure | None
    old_floor: Measure | None = None  # hcl2.loads for HCL; None where it is the fair floor


def run_scenario(
    scenario: Scenario, workdir: str, runs: int, seed: int, with_cfn_lint: bool, env: dict | None = None,
    corpus: str | None = None,
) -> Row:
    if scenario.kind == "precommit":
        return _precommit(scenario, workdir, runs, seed, env)
    root = os.path.join(workdir, "repo")
    shutil.rmtree(root, ignore_errors=True)
    if scenario.kind == "corpus":
        targets, files, cfn_files = corpus_units(corpus, scenario.formats)
        resources = 0
    elif scenario.kind == "tf-file":
        files = terraform_directory(root, scenario.files, scenario.resources, seed=seed, flaw_rate=scenario.flaw_rate)
        targets, cfn_files = [root], []
        resources = sum(_count_resources(f) for f in files)
    else:
        units = generate_repo(
            root, scenario.units, scenario.resources, scenario.formats, seed=seed, flaw_rate=scenario.flaw_rate,
            link_rate=scenario.link_rate,
        )
        files, targets = unit_files(units), [root]
        cfn_files = [u.path for u in units if u.format != "tf"]
        resources = sum(u.resources for u in units)
    listing = os.path.join(workdir, "files.txt")
    with open(listing, "w", encoding="utf-8") as handle:
        handle.write("\n".join(files))
    python = sys.executable
    fanout = [_tool("fanout-lint"), "--format", "json", "--no-cache"]
    floor_py = os.path.join(HERE, "floor.py")
    has_hcl = any(f.endswith((".tf", ".tfvars")) for f in files)
    several = scenario.units > 1 or len(targets) > 1
    commands = [[python, floor_py, "@" + listing], [*fanout, *targets]]
    if has_hcl:
        commands.append([python, floor_py, "--hcl=dict", "@" + listing])
    if several:
        commands.append([*fanout, "-j", "1", *targets])
    measured = measure_together(commands, runs, workdir, env)
    floor, lint = measured[0], measured[1]
    old_floor = measured[2] if has_hcl else None
    serial = measured[-1] if several else None
    cfn = None
    cfn_runs = runs if scenario.cfn_lint_runs is None else scenario.cfn_lint_runs
    if with_cfn_lint and cfn_files and cfn_runs and _tool("cfn-lint"):
        cfn = measure([_tool("cfn-lint"), *cfn_files], min(cfn_runs, runs), workdir, env)
    return Row(scenario, resources, len(files), floor, lint, serial, cfn, old_floor)


def _count_resources(path: str) -> int:
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    return text.count('\nresource "') + text.startswith('resource "')


def _precommit(scenario: Scenario, workdir: str, runs: int, seed: int, env: dict | None) -> Row:
    """A commit that changes one file of a 30-file Terraform directory: pre-commit names
    that file, fanout-lint lints its directory, and the other 29 files are in the cache
    from the commit before. The floor parses the changed file alone."""
    root = os.path.join(workdir, "repo")
    shutil.rmtree(root, ignore_errors=True)
    files = terraform_directory(os.path.join(root, "infra"), 30, scenario.resources, seed=seed)
    changed = files[0]
    with open(changed, encoding="utf-8") as handle:
        original = handle.read()

    def change(run: int) -> None:  # new bytes each run, so the file is never in the cache
        with open(changed, "w", encoding="utf-8") as handle:
            handle.write(original + f"\n# edit {run}\n")

    command = [_tool("fanout-lint"), "--format", "json", changed]
    measure(command, 1, workdir, env, before=lambda run: change(-1))  # the commit before: warms the cache
    python, floor_py = sys.executable, os.path.join(HERE, "floor.py")
    lint, floor, old_floor = measure_together(
        [command, [python, floor_py, changed], [python, floor_py, "--hcl=dict", changed]], runs, workdir, env,
        before=change,
    )
    resources = sum(_count_resources(f) for f in files)
    return Row(scenario, resources, len(files), floor, lint, None, None, old_floor)


def corpus_units(corpus: str, formats: tuple[str, ...]) -> tuple[list[str], list[str], list[str]]:
    """For a real corpus: what fanout-lint is given (template files, or Terraform
    directories), the files the floor parses (the templates fanout-lint parses, and the
    ``.tf`` and tfvars files of every directory that has ``.tf`` files, local modules
    included), and the templates cfn-lint is given."""
    from fanout_lint.model.format import Format
    from fanout_lint.run.discover import SKIP_DIRS, discover

    candidates, _ = discover([corpus])
    targets, files, cfn_files = [], [], []
    if "cfn" in formats:
        for candidate in candidates:
            if candidate.format is Format.CLOUDFORMATION and _is_template(candidate.path):
                targets.append(candidate.path)
        files.extend(targets)
        cfn_files.extend(targets)
    if "tf" in formats:
        targets.extend(c.path for c in candidates if c.format is Format.TERRAFORM)
        for directory, subdirs, names in os.walk(corpus):
            subdirs[:] = sorted(d for d in subdirs if d not in SKIP_DIRS)
            if any(n.endswith(".tf") for n in names):
                files.extend(os.path.join(directory, n) for n in sorted(names)
                             if n.endswith(".tf") or n == "terraform.tfvars" or n.endswith(".auto.tfvars"))
    return targets, files, cfn_files


def _is_template(path: str) -> bool:
    """What fanout-lint parses: a file that holds one of the words every template holds."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError:
        return False
    return any(marker in data for marker in (b"Resources", b"AWSTemplateFormatVersion", b"planned_values"))


def warm_up(workdir: str, env: dict, with_cfn_lint: bool) -> None:
    """One untimed run of each tool, so that their bytecode is cached before timing."""
    units = generate_repo(os.path.join(workdir, "warm"), 2, 20, ("yaml", "tf"), seed=0)
    files = unit_files(units)
    measure([sys.executable, os.path.join(HERE, "floor.py"), *files], 1, workdir, env)
    measure([sys.executable, os.path.join(HERE, "floor.py"), "--hcl=dict", *files], 1, workdir, env)
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
    from fanout_lint.run.jobs import available_cpus

    return (
        f"{cpu}, {available_cpus()} CPUs available, Python {platform.python_version()}, "
        f"{platform.system()} {platform.release()}"
    )


def table(rows: list[Row]) -> str:
    lines = [
        "| scenario | resources | files | floor s (hcl2.loads) | fair floor s | fanout-lint s (-j auto) "
        "| fanout-lint s (-j 1) | cfn-lint s | fanout/fair floor (-j 1) | cfn-lint/fanout | floor MiB "
        "| fanout MiB (-j 1) | cfn-lint MiB |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        serial = row.fanout_serial or row.fanout
        cfn = row.cfn_lint
        old = f"{row.old_floor.seconds:.3f}" if row.old_floor else "="
        lines.append(
            f"| {row.scenario.name} | {row.resources:,} | {row.files:,} | {old} | {row.floor.seconds:.3f} "
            f"| {row.fanout.seconds:.3f} | {serial.seconds:.3f} | {f'{cfn.seconds:.2f}' if cfn else 'n/a'} "
            f"| {serial.seconds / row.floor.seconds:.2f} | {f'{cfn.seconds / row.fanout.seconds:.1f}' if cfn else 'n/a'} "
            f"| {row.floor.mib:.0f} | {serial.mib:.0f} | {f'{cfn.mib:.0f}' if cfn else 'n/a'} |"
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
    parser.add_argument("--corpus", metavar="DIR",
                        help="also measure a real corpus: one exported repository per subdirectory")
    args = parser.parse_args(argv)
    scenarios = QUICK if args.quick else FULL
    if args.corpus:
        scenarios += (
            Scenario("corpus: CloudFormation templates", 0, 0, ("cfn",), cfn_lint_runs=1, kind="corpus"),
            Scenario("corpus: Terraform units", 0, 0, ("tf",), cfn_lint_runs=0, kind="corpus"),
            Scenario("corpus: all", 0, 0, ("cfn", "tf"), cfn_lint_runs=0, kind="corpus"),
        )
    if args.only:
        scenarios = tuple(s for s in scenarios if any(t in s.name for t in args.only))
    runs = args.runs or (1 if args.quick else 5)
    rows = []
    with tempfile.TemporaryDirectory(prefix="fanout-bench-") as workdir:
        env = child_env(workdir)
        warm_up(workdir, env, not args.no_cfn_lint)
        for scenario in scenarios:
            sys.stderr.write(f"bench: {scenario.name} ...\n")
            rows.append(run_scenario(scenario, workdir, runs, args.seed, not args.no_cfn_lint, env, args.corpus))
    text = f"Machine: {machine()}\n\nRuns per measurement: {runs} (median; cfn-lint once on the large repositories)\n\n"
    text += table(rows)
    if any(row.scenario.series for row in rows):
        # The whole-process rows above include start-up, and the noise of a shared machine
        # exceeds the difference between two sizes: the marginal cost per resource is
        # measured in process (bench/growth.py), on units of the same sizes.
        from bench import growth

        labels = {row.scenario.series for row in rows if row.scenario.series}
        series = tuple(s for s in growth.SERIES if s[1] in labels)
        with tempfile.TemporaryDirectory(prefix="fanout-growth-") as workdir:
            results = growth.measure(workdir, runs, args.seed, series)
        text += f"\nGrowth in process (`python -m bench.growth --runs {runs}`; fastest of {growth.REPEAT} a process, "
        text += "median of the rounds):\n\n" + growth.table(results)
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
