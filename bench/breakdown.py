"""Where one process's time goes on the generated 1,000-template repository.

    python -m bench.breakdown            # 1,000 templates (YAML, JSON), seed 2024
    python -m bench.breakdown --units 200
    python -m bench.breakdown --formats yaml,json,cdk   # CDK-shaped JSON among them
    python -m bench.breakdown --terraform DIR   # the Terraform units under DIR
    python -m bench.breakdown --cloudformation DIR   # the CloudFormation templates under DIR

In one process, after an untimed pass: the fair floor's parse of every file
(``bench/floor.py``), then fanout-lint's own steps on the same files, each timed per
template and summed: the located parse (``loaders.parse_file``), the graph
(``loaders.cloudformation.load_template``: resources, values, references), the rules with
their findings and fix plans (``unit.check_graph``) and the inline suppressions
(``policy.apply_inline``), with the cyclic collector paused for each template as a run
pauses it. Each figure is the fastest of ``--passes`` passes. The whole check
(``cli.main``, ``-j 1 --no-cache --format json``: discovery, linking, the report
included) is timed the same way, and again with ``--no-link``: the difference is linking.
Files discovery hands over that are no template (a real corpus holds other YAML and
JSON that names ``Resources`` or ``service``) are timed apart, parsed as a run parses
them to find that out; what the whole check without linking adds to those steps is the
rest.
"""

from __future__ import annotations

import argparse
import gc
import io
import os
import sys
import tempfile
import time

if __package__ in (None, ""):
    sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # after an installed fanout-lint

from bench.generate import generate_repo, unit_files  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def measure(root: str, files: list[str], passes: int, whole: list[str] | None = None) -> dict[str, float]:
    """The steps over the templates among ``files``; the whole check over ``whole`` (default:
    ``root``)."""
    sys.path.insert(0, HERE)
    import floor

    from fanout_lint.cli.main import main
    from fanout_lint.loaders import parse_file
    from fanout_lint.loaders.cloudformation.loader import load_template
    from fanout_lint.policy.suppressions import apply_inline
    from fanout_lint.rules import ALL_RULES
    from fanout_lint.policy.settings import Settings, enabled_rules
    from fanout_lint.run.unit import check_graph

    settings = Settings()
    ran = enabled_rules(ALL_RULES, settings)
    templates = [path for path in files if _is_template_file(path)]  # a real corpus holds other YAML and JSON
    others = [path for path in files if path not in set(templates)]
    files = templates

    def floor_pass() -> list[float]:
        start = time.perf_counter()
        for path in files:
            floor.parse(path)
        return [time.perf_counter() - start]

    def steps_pass() -> list[float]:
        spent = [0.0] * 4
        for path in files:
            gc.disable()
            try:
                t0 = time.perf_counter()
                parsed = parse_file(path)
                t1 = time.perf_counter()
                graph = load_template(parsed.data, path, parsed.syntax, parsed.text)
                t2 = time.perf_counter()
                findings, _ = check_graph(graph, ALL_RULES, settings)
                t3 = time.perf_counter()
                apply_inline(graph, findings, ALL_RULES, settings.today, ran=ran)
                t4 = time.perf_counter()
            finally:
                gc.enable()
            for index, (begin, end) in enumerate(((t0, t1), (t1, t2), (t2, t3), (t3, t4))):
                spent[index] += end - begin
        return spent

    def others_pass() -> list[float]:
        start = time.perf_counter()
        for path in others:  # read, and parsed as far as it takes to tell it is no template
            parse_file(path)
        return [time.perf_counter() - start]

    def whole_pass(*options: str) -> list[float]:
        saved, sys.stdout = sys.stdout, io.StringIO()  # the report is written, then dropped
        start = time.perf_counter()
        try:
            main(["check", "-j", "1", "--no-cache", "--format", "json", *options, *(whole or [root])])
        finally:
            sys.stdout = saved
        return [time.perf_counter() - start]

    def fastest(work) -> list[float]:
        work()  # untimed
        runs = [work() for _ in range(passes)]
        return [min(run[i] for run in runs) for i in range(len(runs[0]))]

    result = {"fair floor: parse": fastest(floor_pass)[0]}
    steps = fastest(steps_pass)
    names = ("fanout-lint: located parse", "fanout-lint: graph", "fanout-lint: rules, findings, fix plans",
             "fanout-lint: inline suppressions")
    result.update(zip(names, steps))
    if others:
        result["fanout-lint: candidates that are no template"] = fastest(others_pass)[0]
    checked = fastest(whole_pass)[0]
    unlinked = fastest(lambda: whole_pass("--no-link"))[0]
    result["fanout-lint: whole check in process"] = checked
    result["fanout-lint: linking (the whole check less one with --no-link)"] = checked - unlinked
    result["fanout-lint: the rest (discovery, report)"] = unlinked - sum(steps) - result.get(
        "fanout-lint: candidates that are no template", 0.0)
    return result


def _is_template_file(path: str) -> bool:
    from fanout_lint.loaders import Parsed, parse_file
    from fanout_lint.loaders.cloudformation.template import is_template

    parsed = parse_file(path, located=False)
    return isinstance(parsed, Parsed) and is_template(parsed.data) and "service" not in parsed.data


def templates_under(directory: str) -> list[str]:
    """The CloudFormation candidates discovery finds under ``directory`` (files, not
    Terraform directories); ``measure`` keeps the templates among them."""
    from fanout_lint.model.format import Format
    from fanout_lint.run.discover import discover

    return [c.path for c in discover([directory])[0] if c.format is Format.CLOUDFORMATION]


def measure_terraform(directory: str, passes: int) -> dict[str, float]:
    """The Terraform units under ``directory`` (as discovery finds them), step by step: the
    fair floor's parse of their files, fanout-lint's HCL parse of the same files into its
    syntax tree (``hcl_syntax.parse_hcl``, comments included), the units loaded as a run
    loads them (``load_terraform_dir`` with the in-memory cache of ``--no-cache``: each file,
    the modules' too, parsed once a pass, then evaluated into the graph) and the rules."""
    sys.path.insert(0, HERE)
    import floor

    from fanout_lint.model.format import Format
    from fanout_lint.run.discover import discover
    from fanout_lint.loaders.terraform.hcl.syntax import parse_hcl
    from fanout_lint.loaders.terraform.loader import load_terraform_dir
    from fanout_lint.loaders.parsing.parse_cache import ParseCache
    from fanout_lint.rules import ALL_RULES
    from fanout_lint.policy.settings import Settings
    from fanout_lint.run.unit import check_graph

    settings = Settings()
    units = [c.path for c in discover([directory])[0] if c.format is Format.TERRAFORM]
    texts = {}
    for unit in units:
        for name in sorted(os.listdir(unit)):
            if name.endswith(".tf"):
                with open(os.path.join(unit, name), encoding="utf-8", errors="replace") as handle:
                    texts[os.path.join(unit, name)] = handle.read()

    def one_pass() -> list[float]:
        t0 = time.perf_counter()
        for path in texts:
            try:
                floor.parse(path)
            except Exception:  # a file the floor cannot parse costs what it cost
                pass
        t1 = time.perf_counter()
        gc.disable()  # as a run pauses the collector while it parses and loads
        try:
            for path, text in texts.items():
                try:
                    parse_hcl(text, path)
                except Exception:
                    pass
            t2 = time.perf_counter()
            cache = ParseCache(None)
            graphs = [graph for unit in units for graph in load_terraform_dir(unit, cache)[0]]
            t3 = time.perf_counter()
            for graph in graphs:
                check_graph(graph, ALL_RULES, settings)
            t4 = time.perf_counter()
        finally:
            gc.enable()
        return [t1 - t0, t2 - t1, t3 - t2, t4 - t3]

    one_pass()  # untimed
    runs = [one_pass() for _ in range(passes)]
    names = ("fair floor: parse", "fanout-lint: HCL parse", "fanout-lint: units loaded (their parse included)",
             "fanout-lint: rules, findings, fix plans")
    return dict(zip(names, (min(run[i] for run in runs) for i in range(4))))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.breakdown", description=__doc__.splitlines()[0])
    parser.add_argument("--units", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--passes", type=int, default=3)
    parser.add_argument("--formats", default="yaml,json", metavar="LIST",
                        help="formats of the generated templates, comma-separated (yaml, json, cdk; default yaml,json)")
    parser.add_argument("--terraform", metavar="DIR", help="the Terraform units under DIR instead")
    parser.add_argument("--cloudformation", metavar="DIR", help="the CloudFormation templates under DIR instead")
    args = parser.parse_args(argv)
    if args.cloudformation:
        templates = templates_under(args.cloudformation)
        result = measure(args.cloudformation, templates, args.passes, whole=templates)
        title = f"CloudFormation templates of {args.cloudformation}"
    elif args.terraform:
        result = measure_terraform(args.terraform, args.passes)
        title = f"Terraform units of {args.terraform}"
    else:
        with tempfile.TemporaryDirectory(prefix="fanout-breakdown-") as workdir:
            root = os.path.join(workdir, "repo")
            formats = tuple(f.strip() for f in args.formats.split(",") if f.strip())
            units = generate_repo(root, args.units, (10, 60), formats, seed=args.seed)
            result = measure(root, unit_files(units), args.passes)
        title = f"{args.units:,} templates ({', '.join(formats)})"
    floor_s = result["fair floor: parse"]
    lines = ["| step | seconds | × the fair floor |", "|---|---:|---:|"]
    lines += [f"| {name} | {seconds:.3f} | {seconds / floor_s:.2f} |" for name, seconds in result.items()]
    sys.stdout.write(f"{title}, fastest of {args.passes} passes in one process\n\n" + "\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
