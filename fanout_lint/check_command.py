"""The CI side of ``fanout-lint check``: configuration, baseline, report formats and ``--output``.

``cli.py`` parses the command line and runs the engine; this module turns the flags and
the configuration file into settings, and the result into a report and an exit code.
"""

from __future__ import annotations

import os
import sys

from typing import TYPE_CHECKING

from fanout_lint.findings import where
from fanout_lint.settings import Settings, enabled_rules, severity_for
from fanout_lint.untrusted import clean

if TYPE_CHECKING:  # the engine is imported only when a check runs
    from fanout_lint.findings import Result
    from fanout_lint.rule import Rule

FORMATS = ("text", "json", "sarif", "github", "junit")


def add_arguments(check) -> None:
    check.add_argument("--config", metavar="FILE",
                       help="configuration file (default: .fanout-lint.toml or pyproject.toml [tool.fanout-lint], "
                            "searched from the current directory upward)")
    check.add_argument("--output", "-o", metavar="FILE",
                       help="write the report to FILE instead of standard output (the exit code still gates)")
    check.add_argument("--repo-root", metavar="DIR", default=".",
                       help="paths in SARIF, GitHub, JUnit output and fingerprints are relative to DIR (default: .)")
    check.add_argument("--baseline", metavar="FILE", help="report only findings not recorded in this baseline")
    check.add_argument("--write-baseline", metavar="FILE",
                       help="record the current findings in FILE and exit 0 (unless a file could not be linted)")
    check.add_argument("--show-suppressed", action="store_true",
                       help="also list findings hidden by inline suppressions, with their reasons")
    check.add_argument("--no-cache", action="store_true",
                       help="parse every file, and neither read nor write the cache of parsed Terraform files "
                            "(off in CI anyway; it lives in $XDG_CACHE_HOME/fanout-lint)")


def settings_for(args, rules: tuple[Rule, ...], split) -> Settings | None:
    """Settings from the configuration file and the flags; None after printing a configuration error."""
    from fanout_lint.config import ConfigError, Flags, resolve

    flags = Flags(
        select=split(args.select),
        ignore=split(args.ignore),
        exclude=split(args.exclude),
        fail_on=args.fail_on,
        config=args.config,
    )
    try:
        settings, _ = resolve(flags, rules, os.getcwd())
    except ConfigError as exc:
        sys.stderr.write(f"fanout-lint: error: {clean(str(exc))}\n")
        return None
    return settings


def finish(result: Result, args, rules: tuple[Rule, ...], settings: Settings, colour: bool) -> int:
    """Apply the baseline, write the report, and return the exit code."""
    from fanout_lint.cli import EXIT_ERROR, EXIT_OK, discard_stdout, exit_code, write_stdout

    root = args.repo_root
    if args.baseline or args.write_baseline:
        from fanout_lint import baseline  # hashing only when fingerprints are needed
    if args.baseline:
        try:
            known = baseline.load(args.baseline)
        except baseline.BaselineError as exc:
            sys.stderr.write(f"fanout-lint: error: {clean(str(exc))}\n")
            return EXIT_ERROR
        result.findings, old = baseline.split(result.findings, known, root)
        result.baselined = len(old)
    if args.write_baseline:
        # the baseline records everything found, whatever --baseline hid
        found = result.findings if not args.baseline else result.findings + old
        try:
            baseline.write(args.write_baseline, sorted(found, key=lambda f: f.sort_key()), root)
        except OSError as exc:
            reason = exc.strerror or exc
            sys.stderr.write(clean(f"fanout-lint: error: cannot write {args.write_baseline}: {reason}") + "\n")
            return EXIT_ERROR
        for error in result.errors:
            sys.stderr.write(f"{error}\n")
        sys.stderr.write(clean(f"fanout-lint: wrote {len(found)} finding(s) to {args.write_baseline}") + "\n")
        return EXIT_ERROR if result.errors else EXIT_OK

    if args.output and args.color == "auto":
        colour = False  # the terminal decided "auto", but the report goes to a file
    output = render(result, args.format, rules, settings, root, args.show_suppressed, colour)
    if args.format != "github":
        for notice in result.notices:
            sys.stderr.write(f"{notice}\n")
    if args.output:
        from fanout_lint.regular_files import write_atomic

        try:
            write_atomic(args.output, output.encode("utf-8"))  # a failed write keeps the old report
        except OSError as exc:
            sys.stderr.write(clean(f"fanout-lint: error: cannot write {args.output}: {exc.strerror or exc}") + "\n")
            return EXIT_ERROR
        from fanout_lint.report.text import summary

        sys.stderr.write(clean(f"{summary(result)} (report written to {args.output})") + "\n")
    else:
        try:
            write_stdout(output)
        except BrokenPipeError:
            raise  # `| head`: the reader has what it wanted (cli.main)
        except OSError as exc:  # a full disk, a closed stdout
            discard_stdout()
            sys.stderr.write(f"fanout-lint: error: cannot write the report to standard output: {exc.strerror or exc}\n")
            return EXIT_ERROR
    return exit_code(result, settings.fail_on)


def render(result: Result, fmt: str, rules: tuple[Rule, ...], settings: Settings, root: str,
           show_suppressed: bool, colour: bool) -> str:
    if fmt == "json":
        from fanout_lint.report import json_report

        return json_report.render(result, show_suppressed=show_suppressed)
    if fmt == "sarif":
        from fanout_lint.report import sarif

        ran = enabled_rules(rules, settings)
        severities = {rule.id: severity_for(rule, settings) for rule in ran}
        return sarif.render(result, ran, severities, root, show_suppressed)
    if fmt == "github":
        from fanout_lint.report import github

        return github.render(result, root)
    if fmt == "junit":
        from fanout_lint.report import junit

        return junit.render(result, root)
    from fanout_lint.report import text

    output = text.render(result, colour=colour)
    if show_suppressed and result.suppressed:
        lines = output.splitlines()
        # after the findings, before the summary line, which stays last
        lines[-1:-1] = [suppressed_line(s) for s in result.suppressed]
        output = "\n".join(lines) + "\n"
    return output


def suppressed_line(s) -> str:
    f, why = s.finding, s.suppression
    until = f", until {why.until}" if why.until else ""
    at = where(f.loc.file, f.loc.line, f.loc.column)
    return f"{at}: {f.rule} [suppressed] {f.message} ({f.resource}) -- {why.reason}{until}"
