"""The CI side of ``fanout-lint check``: configuration, baseline, report formats and ``--output``.

``cli.py`` parses the command line and runs the engine; this module turns the flags and
the configuration file into settings, and the result into a report and an exit code.
"""

from __future__ import annotations

import os
import sys

from typing import TYPE_CHECKING

from fanout_lint.findings import LoadError, where
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
    check.add_argument("--fix", action="store_true",
                       help="apply the safe fixes in place, then report what is left")
    check.add_argument("--unsafe-fixes", action="store_true",
                       help="with --fix or --diff, also apply the unsafe fixes (they change what consumers "
                            "see); alone, mark them as fixable in the report")
    check.add_argument("--diff", action="store_true",
                       help="print a unified diff of what --fix would change and write nothing "
                            "(exit 1 when there is something to change)")


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
    for notice in settings.notices:  # a rule named by a former name
        sys.stderr.write(clean(notice) + "\n")
    return settings


def run_fixes(args, rules: tuple[Rule, ...], settings: Settings, colour: bool, lint) -> int:
    """``--fix`` and ``--diff``: fix in rounds (``fixes/rounds.py``), then report or print the diff."""
    from fanout_lint.outcome import EXIT_ERROR, EXIT_FINDINGS, EXIT_OK
    from fanout_lint.fixes import rounds

    if args.write_baseline:
        sys.stderr.write("fanout-lint: error: --write-baseline cannot be combined with --fix or --diff\n")
        return EXIT_ERROR
    gating = _gating(args)
    if gating is None:
        return EXIT_ERROR
    outcome = rounds.run(lint, gating, args.unsafe_fixes, write=not args.diff)
    if args.diff:
        from fanout_lint.fixes import diff

        for error in outcome.result.errors + outcome.errors:
            sys.stderr.write(f"{error}\n")
        code = _emit(diff.render(outcome.changes), args)
        if code is not None:
            return code
        sys.stderr.write(_fixed_line(outcome, "would fix") + "\n")
        if outcome.result.errors or outcome.errors:
            return EXIT_ERROR
        return EXIT_FINDINGS if outcome.changes else EXIT_OK
    result = outcome.result
    result.errors = sorted(result.errors + outcome.errors, key=LoadError.sort_key)
    code = finish(result, args, rules, settings, colour)
    sys.stderr.write(_fixed_line(outcome, "fixed") + "\n")
    return code


def _gating(args):
    """The findings a fix may touch: those the baseline does not list (None after an error)."""
    if not args.baseline:
        return lambda result: result.findings
    from fanout_lint import baseline

    try:
        known = baseline.load(args.baseline)
    except baseline.BaselineError as exc:
        sys.stderr.write(f"fanout-lint: error: {clean(str(exc))}\n")
        return None
    return lambda result: baseline.split(result.findings, known, args.repo_root)[0]


def _fixed_line(outcome, verb: str) -> str:
    files = len(outcome.files)
    line = (f"fanout-lint: {verb} {outcome.fixed} finding{'s' if outcome.fixed != 1 else ''} "
            f"in {files} file{'s' if files != 1 else ''}")
    if outcome.waiting and verb != "fixed":
        line += f"; {outcome.waiting} more overlap them and take a second round of --fix"
    if outcome.unsafe:
        line += f"; {outcome.unsafe} more with --unsafe-fixes"
    return line


def _emit(output: str, args) -> int | None:
    """Write ``output`` to --output or standard output; an exit code when that failed."""
    from fanout_lint.outcome import EXIT_ERROR, discard_stdout, write_stdout

    if args.output:
        from fanout_lint.regular_files import write_atomic

        try:
            write_atomic(args.output, output.encode("utf-8"))
        except OSError as exc:
            sys.stderr.write(clean(f"fanout-lint: error: cannot write {args.output}: {exc.strerror or exc}") + "\n")
            return EXIT_ERROR
        return None
    try:
        write_stdout(output)
    except BrokenPipeError:
        raise
    except OSError as exc:
        discard_stdout()
        sys.stderr.write(f"fanout-lint: error: cannot write to standard output: {exc.strerror or exc}\n")
        return EXIT_ERROR
    return None


def finish(result: Result, args, rules: tuple[Rule, ...], settings: Settings, colour: bool) -> int:
    """Apply the baseline, write the report, and return the exit code."""
    from fanout_lint.outcome import EXIT_ERROR, EXIT_OK, discard_stdout, exit_code, write_stdout

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
    unsafe = getattr(args, "unsafe_fixes", False)
    output = render(result, args.format, rules, settings, root, args.show_suppressed, colour, unsafe)
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

        sys.stderr.write(clean(f"{summary(result, unsafe)} (report written to {args.output})") + "\n")
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
           show_suppressed: bool, colour: bool, unsafe_fixes: bool = False) -> str:
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

    output = text.render(result, colour=colour, unsafe_fixes=unsafe_fixes)
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
