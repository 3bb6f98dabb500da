"""The CI side of ``fanout-lint check``: configuration, baseline, report formats and outputs.

``cli/main.py`` parses the command line and runs the engine; this module turns the flags and
the configuration file into settings, and the result into reports and an exit code. One
run writes its main report (``--format``, to standard output or ``--output``) and any
number of further reports to files (``--report sarif=fanout-lint.sarif``), all from the
same findings, so a CI job prints text to its log and hands SARIF or JUnit to the
platform without linting twice.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from fanout_lint.cli.stdout import discard_stdout, write_stdout
from fanout_lint.files.confine import Roots
from fanout_lint.files.repository import repo_root
from fanout_lint.fixes import diff, rounds
from fanout_lint.policy import baseline
from fanout_lint.policy.baseline import Baseline
from fanout_lint.policy.config import ConfigError, Flags
from fanout_lint.policy.fail_level import EXIT_ERROR, EXIT_FINDINGS, EXIT_OK, exit_code, fails
from fanout_lint.policy.hierarchy import Hierarchy
from fanout_lint.policy.settings import Settings, enabled_rules, severity_for, suggestion
from fanout_lint.reports import github, gitlab, json_report, statistics, text
from fanout_lint.reports.text import summary
from fanout_lint.results.records import LoadError, where
from fanout_lint.results.untrusted import clean

if TYPE_CHECKING:
    from fanout_lint.results.records import Result
    from fanout_lint.rule import Rule

FORMATS = ("text", "json", "sarif", "github", "junit", "gitlab")
FAIL_LEVELS = ("error", "warning", "info", "none")
# How many skipped files a run that linted nothing lists before it counts the rest.
MAX_SKIPPED_SHOWN = 20


@dataclass(eq=False, repr=False)
class Report:
    """One report a run writes: its format and where (None: standard output)."""

    format: str
    path: str | None


class UsageError(Exception):
    """A combination of flags that cannot run; the message is one line."""


def add_arguments(check) -> None:
    check.add_argument("--config", metavar="FILE",
                       help="configuration file, instead of any the paths have (default: .fanout-lint.toml or "
                            "pyproject.toml [tool.fanout-lint], the nearest to the paths, up to the repository root)")
    check.add_argument("--isolated", action="store_true",
                       help="read no configuration file: the defaults and the flags only (pins the gate in CI)")
    check.add_argument("--output", "-o", metavar="FILE",
                       help="write the report to FILE instead of standard output (the exit code still gates)")
    check.add_argument("--report", action="append", default=[], metavar="FORMAT=FILE",
                       help="also write a report in FORMAT to FILE (repeatable): "
                            "--report sarif=fanout-lint.sarif --report junit=fanout-lint.xml")
    check.add_argument("--repo-root", metavar="DIR", default=None,
                       help="paths in SARIF, GitHub, JUnit, GitLab output and fingerprints are relative to DIR "
                            "(default: the git top level, else .)")
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
    check.add_argument("--exit-zero", action="store_true",
                       help="exit 0 whatever the findings, as --fail-on none (2 still means a file could not be linted)")
    check.add_argument("--statistics", action="store_true",
                       help="print how many findings each rule has instead of the findings (text or json)")
    check.add_argument("-q", "--quiet", action="store_true",
                       help="print the findings and errors only: no summary, progress or other messages")
    check.add_argument("--show-settings", action="store_true",
                       help="print the settings the run would use (configuration file, rules, levels) and exit")
    check.add_argument("--docs-url", metavar="URL", default=None,
                       help="where the rule pages are, for SARIF helpUri: <URL><rule-name>.md "
                            "(default: the pages of this release)")
    check.add_argument("--no-link", action="store_true",
                       help="lint every template alone: no Fn::ImportValue resolved through another template's "
                            "export, no nested stack read, no CDK assembly as one application")
    check.add_argument("--var-file", action="append", default=[], metavar="FILE",
                       help="a tfvars file every Terraform root unit reads after its terraform.tfvars and "
                            "*.auto.tfvars, as terraform's -var-file (repeatable; later files win)")
    check.add_argument("--stdin-filename", metavar="PATH", default=None,
                       help="with - as the path: lint standard input as the content of PATH, a file of the "
                            "repository (for editors)")
    check.add_argument("--no-cache", action="store_true",
                       help="parse every file, and neither read nor write the cache of parsed Terraform files "
                            "(off in CI anyway; it lives in $XDG_CACHE_HOME/fanout-lint)")


def settings_for(args, rules: tuple[Rule, ...], split) -> tuple[Settings, str | None] | None:
    """Settings from the configuration file and the flags, and the file they came from
    (those of the paths' common directory; ``settings.configuration`` gives each unit its
    own directory's); None after printing a configuration error."""
    flags = Flags(
        select=split(args.select),
        ignore=split(args.ignore),
        exclude=split(args.exclude),
        fail_on="none" if args.exit_zero else args.fail_on,
        config=args.config,
        docs_url=args.docs_url,
        extend_select=split(args.extend_select),
        extend_ignore=split(args.extend_ignore),
        var_files=tuple(args.var_file),
        isolated=args.isolated,
        paths=tuple(args.paths),
    )
    cwd = os.getcwd()
    try:
        # the configuration is read as the run's paths are: inside the repository, through no link
        hierarchy = Hierarchy(flags, rules, cwd, Roots(repo_root(args.repo_root, cwd), args.repo_root is not None))
        settings, path = hierarchy.primary(flags.paths)
    except ConfigError as exc:
        sys.stderr.write(f"fanout-lint: error: {clean(str(exc))}\n")
        return None
    return replace(settings, configuration=hierarchy), path


def say_configuration(settings: Settings, quiet: bool, scopes=None) -> None:
    """On standard error: the configuration's warnings (unless ``quiet``), then what each
    configuration file that governed part of the run lowers of the gate, whatever
    ``quiet`` says. ``scopes``: only these (``--show-settings``)."""
    notices, gate = configuration_notices(settings, scopes)
    if not quiet:  # -q: findings and errors only
        for notice in notices:  # a near-miss table, a rule named by a former name
            sys.stderr.write(clean(notice) + "\n")
    for notice in gate:
        sys.stderr.write(f"{notice}\n")


def configuration_notices(settings: Settings, scopes=None) -> tuple[tuple[str, ...], tuple]:
    """The configuration's warnings and gate notices: of every file that governed part of
    the run (or of ``scopes``), else of ``settings`` alone."""
    hierarchy = settings.configuration
    if hierarchy is None:
        return settings.notices, settings.gate
    return hierarchy.notices(scopes), hierarchy.gate(scopes)


def reports_of(args) -> list[Report]:
    """The reports the flags ask for, the main one first (UsageError when they conflict)."""
    reports = [Report(args.format, args.output)]
    for value in args.report:
        fmt, separator, path = value.partition("=")
        fmt = fmt.strip().lower()
        if not separator or not path:
            raise UsageError(f"--report takes FORMAT=FILE, as in sarif=fanout-lint.sarif, not {value!r}")
        if fmt not in FORMATS:
            raise UsageError(f"--report: unknown format {fmt!r}{suggestion(FORMATS, fmt) or ''} "
                             f"(formats: {', '.join(FORMATS)})")
        reports.append(Report(fmt, path))
    files = [os.path.abspath(r.path) for r in reports if r.path]
    if len(files) != len(set(files)):
        raise UsageError("two reports name the same file")
    if args.write_baseline and args.report:
        raise UsageError("--write-baseline writes a baseline, not reports: run it without --report")
    if args.write_baseline and args.output:
        raise UsageError("--write-baseline writes a baseline, not a report: run it without --output")
    if args.show_settings and args.format != "text":
        raise UsageError("--show-settings prints text only; --format is for the findings")
    if args.statistics and args.format not in ("text", "json"):
        raise UsageError("--statistics is for --format text or json (write other formats with --report)")
    return reports


def roots_of(args):
    """The run's repository (``confine.Roots``): reports, baselines and fixed files are
    read and written only as its rule allows."""
    return Roots(args.repo_root, getattr(args, "repo_root_given", False))


def _refused_read(path: str, args) -> bool:
    """Whether the file ``path`` the operator named may not be read (after saying why)."""
    reason = roots_of(args).read_problem(path)
    if reason is None:
        return False
    sys.stderr.write(clean(f"fanout-lint: error: cannot read {path}: {reason}") + "\n")
    return True


def run_fixes(args, rules: tuple[Rule, ...], settings: Settings, colour: bool, lint) -> int:
    """``--fix`` and ``--diff``: fix in rounds (``fixes/rounds.py``), then report or print the diff."""
    if args.write_baseline:
        sys.stderr.write("fanout-lint: error: --write-baseline cannot be combined with --fix or --diff\n")
        return EXIT_ERROR
    usable, known = load_baseline(args)
    if not usable:
        return EXIT_ERROR
    root = args.repo_root

    def gating(result: Result) -> list:  # a fix touches only what the baseline does not list
        return known.new(result.findings, root) if known is not None else result.findings

    outcome = rounds.run(lint, gating, args.unsafe_fixes, write=not args.diff, roots=roots_of(args))
    if args.diff:
        say_configuration(settings, args.quiet)

        for error in outcome.result.errors + outcome.errors:
            sys.stderr.write(f"{error}\n")
        code = _emit(diff.render(outcome.changes), args)
        if code is not None:
            return code
        # the further reports describe the findings as they are, before the diff is applied
        result = _baselined(outcome.result, args, known)
        code = _write_reports(result, reports_of(args)[1:], args, rules, settings)
        if code is not None:
            return code
        if not args.quiet:
            sys.stderr.write(_fixed_line(outcome, "would fix") + "\n")
        if outcome.result.errors or outcome.errors:
            return EXIT_ERROR
        return EXIT_FINDINGS if outcome.changes else EXIT_OK
    result = outcome.result
    result.errors = sorted(result.errors + outcome.errors, key=LoadError.sort_key)
    code = finish(result, args, rules, settings, colour, (True, known))
    if not args.quiet:
        sys.stderr.write(_fixed_line(outcome, "fixed") + "\n")
    return code


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
    if args.output:
        return _write_file(args.output, output, args)
    try:
        write_stdout(output)
    except BrokenPipeError:
        raise
    except OSError as exc:
        discard_stdout()
        sys.stderr.write(f"fanout-lint: error: cannot write to standard output: {exc.strerror or exc}\n")
        return EXIT_ERROR
    return None


def _write_file(path: str, output: str, args) -> int | None:
    try:
        roots_of(args).write(path, output.encode("utf-8"))  # a failed write keeps the old report
    except OSError as exc:
        sys.stderr.write(clean(f"fanout-lint: error: cannot write {path}: {exc.strerror or exc}") + "\n")
        return EXIT_ERROR
    return None


def load_baseline(args) -> tuple[bool, Baseline | None]:
    """The run's baseline (``--baseline``, else the configuration's), read once: (usable,
    the baseline or None when there is none). Not usable after saying why."""
    if not args.baseline:
        return True, None

    if _refused_read(args.baseline, args):
        return False, None
    try:
        return True, baseline.read(args.baseline)
    except baseline.BaselineError as exc:
        sys.stderr.write(f"fanout-lint: error: {clean(str(exc))}\n")
        return False, None


def _baselined(result: Result, args, known: Baseline | None) -> Result:
    """``result`` with the findings the baseline lists moved aside, and the stale entries counted."""
    if known is None:
        return result
    result = known.apply(result, args.repo_root)
    if not args.write_baseline and not getattr(args, "quiet", False):
        line = baseline.stale_notice(known.entries, result, args.paths, args.repo_root, known.path)
        if line:
            sys.stderr.write(clean(line) + "\n")
    return result


def finish(result: Result, args, rules: tuple[Rule, ...], settings: Settings, colour: bool,
           read: tuple[bool, Baseline | None] | None = None) -> int:
    """Apply the baseline (``read``: as ``load_baseline`` read it; read here when not
    given), write the reports, and return the exit code."""
    root = args.repo_root
    # said once the run has met every configuration file that governs a part of it
    say_configuration(settings, getattr(args, "quiet", False))
    usable, known = read if read is not None else load_baseline(args)
    if not usable:
        return EXIT_ERROR
    result = _baselined(result, args, known)
    if args.write_baseline:
        # the baseline records everything found, whatever --baseline hid
        found = result.findings + result.in_baseline
        try:
            baseline.write(args.write_baseline, sorted(found, key=lambda f: f.sort_key()), root, roots_of(args).write)
        except OSError as exc:
            reason = exc.strerror or exc
            sys.stderr.write(clean(f"fanout-lint: error: cannot write {args.write_baseline}: {reason}") + "\n")
            return EXIT_ERROR
        for error in result.errors:
            sys.stderr.write(f"{error}\n")
        sys.stderr.write(clean(f"fanout-lint: wrote {len(found)} finding(s) to {args.write_baseline}") + "\n")
        return EXIT_ERROR if result.errors else EXIT_OK

    reports = reports_of(args)
    main, further = reports[0], reports[1:]
    github_on_stdout = main.format == "github" or any(r.format == "github" and r.path is None for r in further)
    if not github_on_stdout and not args.quiet:  # -q: findings and errors only
        for notice in result.notices:
            if not (notice.kind and args.quiet):  # -q hides the notes on what is not modelled
                sys.stderr.write(f"{notice}\n")
    code = _write_reports(result, further, args, rules, settings)
    if code is not None:
        return code
    if main.path and args.color == "auto":
        colour = False  # the terminal decided "auto", but the report goes to a file
    if args.statistics:
        output = statistics.render(result, main.format, getattr(args, "unsafe_fixes", False), args.quiet)
    else:
        output = render_report(result, main.format, rules, settings, args, colour)
    code = _emit(output, args)
    if code is not None:
        return code
    if not args.quiet:
        _say_what_was_written(result, main, further, args)
    return exit_code(result, settings.fail_on)


def _write_reports(result: Result, reports: list[Report], args, rules, settings) -> int | None:
    """Write each of ``reports`` to its file; an exit code when one could not be written."""
    for report in reports:
        code = _write_file(report.path, render_report(result, report.format, rules, settings, args, colour=False), args)
        if code is not None:
            return code
    return None


def _say_what_was_written(result: Result, main: Report, further: list[Report], args) -> None:
    unsafe = getattr(args, "unsafe_fixes", False)
    written = [r.path for r in ([main] if main.path else []) + further]
    if written:
        names = ", ".join(written)
        plural = "s" if len(written) > 1 else ""
        if main.path is None and main.format == "text":  # the summary is on standard output already
            sys.stderr.write(clean(f"fanout-lint: report{plural} written to {names}") + "\n")
        else:
            sys.stderr.write(clean(f"{summary(result, unsafe)} (report{plural} written to {names})") + "\n")
    if result.units == 0:
        for line in nothing_linted(result):
            sys.stderr.write(line + "\n")


def nothing_linted(result: Result) -> list[str]:
    """What a run that linted no unit says: which files it passed over, and why. Not that
    there was nothing to lint when a unit failed to load: its error said what there was."""
    if not result.skipped:
        if result.errors:
            return []
        return ["fanout-lint: nothing to lint: no CloudFormation template, Serverless Framework service, "
                "Terraform or OpenTofu directory or plan in the paths given"]
    count = len(result.skipped)
    lines = [f"fanout-lint: nothing linted; {count} file{'s' if count != 1 else ''} skipped:"]
    lines += [f"  {skipped}" for skipped in result.skipped[:MAX_SKIPPED_SHOWN]]
    if count > MAX_SKIPPED_SHOWN:
        lines.append(f"  ... and {count - MAX_SKIPPED_SHOWN} more")
    return lines


def render_report(result: Result, fmt: str, rules: tuple[Rule, ...], settings: Settings, args,
                  colour: bool) -> str:
    return render(result, fmt, rules, settings, args.repo_root, args.show_suppressed, colour,
                  getattr(args, "unsafe_fixes", False), quiet=getattr(args, "quiet", False),
                  baseline_used=bool(getattr(args, "baseline", None)))


def render(result: Result, fmt: str, rules: tuple[Rule, ...], settings: Settings, root: str,
           show_suppressed: bool, colour: bool, unsafe_fixes: bool = False, quiet: bool = False,
           baseline_used: bool = False) -> str:
    gate = configuration_notices(settings)[1]
    if gate and fmt in ("json", "sarif", "github"):  # text has it on stderr already
        result = replace(result, notices=[*gate, *result.notices])
    if fmt == "json":
        return json_report.render(result, show_suppressed=show_suppressed)
    if fmt == "sarif":
        from fanout_lint.reports import sarif  # pathlib and urllib.parse: only for the format that needs them

        ran, severities = _rules_ran(rules, settings)
        return sarif.render(result, ran, severities, root, show_suppressed, docs_url=settings.docs_url,
                            baseline_used=baseline_used)
    if fmt == "github":
        return github.render(result, root)
    if fmt == "junit":
        from fanout_lint.reports import junit  # xml.etree and pyexpat: only for the format that needs them

        return junit.render(result, root, lambda finding: fails(finding, settings.fail_on))
    if fmt == "gitlab":
        return gitlab.render(result, root)

    output = text.render(result, colour=colour, unsafe_fixes=unsafe_fixes, quiet=quiet)
    if show_suppressed and result.suppressed:
        lines = output.splitlines()
        # after the findings, before the summary line, which stays last
        at = len(lines) if quiet else len(lines) - 1
        lines[at:at] = [suppressed_line(s) for s in result.suppressed]
        output = "\n".join(lines) + "\n"
    return output


def _rules_ran(rules: tuple[Rule, ...], settings: Settings):
    """The rules the run ran, and each one's severity: with a configuration per directory,
    every rule some unit's settings run, at the severity of the first settings that run
    it (the paths' common directory's first)."""
    hierarchy = settings.configuration
    each = [settings] + ([scope.settings for scope in hierarchy.used()] if hierarchy is not None else [])
    severities = {}
    for own in each:
        for rule in enabled_rules(rules, own):
            severities.setdefault(rule.id, severity_for(rule, own))
    return tuple(rule for rule in rules if rule.id in severities), severities


def suppressed_line(s) -> str:
    f, why = s.finding, s.suppression
    until = f", until {why.until}" if why.until else ""
    at = where(f.loc.file, f.loc.line, f.loc.column)
    return f"{at}: {f.rule} [suppressed] {f.message} ({f.resource}) -- {why.reason}{until}"
