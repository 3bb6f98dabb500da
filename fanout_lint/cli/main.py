"""The command line: ``fanout-lint [check] PATHS``, ``rules``, ``explain``.

It never imports cfn-lint, and the HCL parser only when a Terraform directory is
linted (tests/test_import_discipline.py lists what is imported only when needed).
"""

from __future__ import annotations

import argparse
import dataclasses
import gc
import os
import sys

from fanout_lint import __version__
from fanout_lint.cli import check as check_command
from fanout_lint.cli import graph as graph_command
from fanout_lint.cli import standard_input
from fanout_lint.cli.arguments import ArgumentsError, paths_of, split
from fanout_lint.cli.check import UsageError, finish, reports_of, run_fixes, say_configuration, settings_for
from fanout_lint.cli.explain import render
from fanout_lint.cli.flag_hints import hints
from fanout_lint.cli.progress import Progress, wanted
from fanout_lint.cli.show_settings import render_rules, render_settings
from fanout_lint.cli.standard_input import substituted
from fanout_lint.cli.stdout import StdoutError, discard_stdout, write_stdout
from fanout_lint.files.repository import repo_root
from fanout_lint.loaders.parsing.parse_cache import open_cache
from fanout_lint.policy.baseline import config_problem
from fanout_lint.policy.config import ConfigError, Flags, unknown_rule
from fanout_lint.policy.fail_level import EXIT_ERROR, EXIT_OK
from fanout_lint.policy.hierarchy import resolve
from fanout_lint.policy.settings import find_rule, renamed, suggestion
from fanout_lint.policy.var_files import problem
from fanout_lint.results.doc_links import RULE_DOCS_URL
from fanout_lint.results.untrusted import clean
from fanout_lint.rules import ALL_RULES
from fanout_lint.run.engine import lint_paths
from fanout_lint.run.unit import describe
from fanout_lint.server.launch import run

COMMANDS = ("check", "rules", "explain", "graph")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # usage errors exit 2 with one line, never a traceback
        self.print_usage(sys.stderr)
        sys.stderr.write(f"fanout-lint: error: {clean(message + hints(self, message))}\n")
        raise SystemExit(EXIT_ERROR)

    def _get_formatter(self):
        # argparse's default formatter imports shutil (and with it zlib, bz2 and lzma)
        # for the terminal width on every run; os gives the width without them.
        return self.formatter_class(prog=self.prog, width=_terminal_width() - 2)


def _terminal_width() -> int:
    try:
        return int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        pass
    try:
        return os.get_terminal_size(sys.__stdout__.fileno()).columns
    except (AttributeError, ValueError, OSError):
        return 80


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of ``command`` (of every command when None: ``--help``). A run builds
    only its own command: each other parser would cost its translated help texts at
    every start."""
    parser = _Parser(
        prog="fanout-lint",
        description="Lint SNS/SQS/Lambda fan-out topologies in CloudFormation (SAM, CDK output), "
                    "Serverless Framework, Terraform and OpenTofu.",
    )
    parser.add_argument("--version", action="version", version=f"fanout-lint {__version__}")
    # every command in the usage line, also of a parser that knows only the one that runs
    sub = parser.add_subparsers(dest="command", parser_class=_Parser, metavar="{" + ",".join(COMMANDS) + "}")
    helps = {
        "check": "lint files and directories (the default command)",
        "rules": "list the rules, as the configuration sets them (on/off, severity)",
        "explain": "print a rule's documentation",
        "graph": "draw the topology with its findings (Mermaid, DOT, JSON, markdown)",
    }
    for name in COMMANDS if command is None else (command,):
        _OPTIONS[name](sub.add_parser(name, help=helps[name]))
    return parser


def _check_options(check: argparse.ArgumentParser) -> None:
    check.add_argument("paths", nargs="*", default=None,
                       help="files or directories (default: .): CloudFormation, SAM and CDK output templates, "
                            "serverless.yml, Terraform and OpenTofu directories, plan JSON; after `--` every "
                            "argument is a path")

    check.add_argument("--pre-commit", action="store_true",
                       help="the pre-commit hook's entry: the file names follow `--` (end the hook's args with it)")

    check.add_argument("--format", choices=check_command.FORMATS, default="text")
    check.add_argument("--fail-on", choices=check_command.FAIL_LEVELS, default=None,
                       help="exit 1 when a finding at or above this severity exists (default: warning; "
                            "none: never, as --exit-zero)")
    check.add_argument("--select", action="append", default=[], metavar="RULE",
                       help="run only these rules (ID or name; repeat or comma-separate)")
    check.add_argument("--ignore", action="append", default=[], metavar="RULE",
                       help="do not run these rules (ID or name)")
    check.add_argument("--extend-select", action="append", default=[], metavar="RULE",
                       help="also run these rules, besides those select runs")
    check.add_argument("--extend-ignore", action="append", default=[], metavar="RULE",
                       help="also do not run these rules (as --ignore: it adds to the configuration's)")
    check.add_argument("--exclude", action="append", default=[], metavar="GLOB",
                       help="skip paths matching this glob")
    check.add_argument("--color", choices=("auto", "always", "never"), default="auto")
    check.add_argument("-j", "--jobs", type=_jobs, default=None, metavar="N",
                       help="lint units in N parallel processes (default: chosen from the CPUs and the "
                            "number of units; 1 for few units)")
    check_command.add_arguments(check)  # --config, --output, --baseline, ...


def _rules_options(rules: argparse.ArgumentParser) -> None:
    rules.add_argument("--format", choices=("text", "json"), default="text")
    rules.add_argument("--config", metavar="FILE", help="configuration file (default: searched as for check)")
    rules.add_argument("--isolated", action="store_true", help="read no configuration file")


def _explain_options(explain: argparse.ArgumentParser) -> None:
    explain.add_argument("rule", help="rule ID or name")


def _graph_options(graph: argparse.ArgumentParser) -> None:
    graph_command.add_options(graph)


_OPTIONS = {"check": _check_options, "rules": _rules_options, "explain": _explain_options, "graph": _graph_options}


def main(argv: list[str] | None = None) -> int:
    """Run a command; its exit code. Whatever fails, the run ends with one line on stderr
    and exit 2, never a traceback, and never 1, which means findings."""
    # The process's own command line: its start-up (arguments, configuration, the rules,
    # the report's modules) makes objects that live until exit and none that is garbage;
    # the cyclic collector would only scan them, a dozen times (about 3 ms of a
    # one-template run). It is paused until the units are linted.
    startup = StartUp(pause=argv is None and gc.isenabled())
    try:
        code = _run(argv, startup)
        stdout = sys.stdout
        if stdout is not None:
            stdout.flush()  # here, not at exit, where a failure is a message we do not control
        if argv is None:  # the process's own command line: it exits next
            # The interpreter's last collection at exit walks every object still alive
            # (the modules, the rules, the report), none of it garbage: a tenth of a
            # one-file run. A program that calls main() itself keeps its collector whole.
            gc.freeze()
        return code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `fanout-lint ... | head`
        discard_stdout()
        return EXIT_OK
    except Exception as exc:
        _say(_failure(exc))
        return EXIT_ERROR
    finally:
        startup.over()


class StartUp:
    """The cyclic collector paused for one run's start-up, when ``pause``."""

    def __init__(self, pause: bool):
        self.paused = pause
        if pause:
            gc.disable()

    def over(self) -> None:
        """The start-up is over: the objects it made are frozen (never scanned again, as
        the collector would at every full collection of the run) and the collector runs
        again."""
        if self.paused:
            self.paused = False
            gc.freeze()
            gc.enable()


def _failure(exc: Exception) -> str:
    """The one line that ends a run that failed with ``exc``."""
    problem = str(exc.strerror or exc) if isinstance(exc, StdoutError) else _stdout_problem()
    if problem is not None:
        discard_stdout()
        return f"fanout-lint: error: cannot write to standard output: {problem}"
    if isinstance(exc, OSError):  # the machine, not the code: a full disk, no processes left
        where = f" ({exc.filename})" if exc.filename else ""
        return f"fanout-lint: error: {exc.strerror or exc}{where}"

    return f"fanout-lint: internal error: {describe(exc)}"


def _run(argv: list[str] | None, startup: StartUp) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["server"]:  # the language server: its own module, and pygls only there
        startup.over()
        return run(argv[1:])
    if not argv or (argv[0] not in COMMANDS and argv[0] not in ("-h", "--help", "--version")):
        mistyped = _mistyped_command(argv[0]) if argv else None
        if mistyped:
            sys.stderr.write(clean(mistyped) + "\n")
            return EXIT_ERROR
        argv = ["check", *argv]

    try:
        line = split(argv)  # a file name after `--` is never an option
    except ArgumentsError as exc:
        sys.stderr.write(clean(f"fanout-lint: error: {exc}") + "\n")
        return EXIT_ERROR
    command = argv[0] if argv[0] in COMMANDS else None
    if command in ("check", "graph"):
        args = build_parser(command).parse_args(line.options)
        args.paths = paths_of(args.paths, line.paths)
    else:  # `explain -- NAME`: a rule name, which never starts with "-"
        args = build_parser(command).parse_args([*line.options, *line.paths])
    if args.command == "rules":
        return _rules(args)
    if args.command == "explain":
        return _explain(args)
    if args.command == "graph":
        startup.over()  # it lints
        return graph_command.run(args)
    return _check(args, startup)


def _mistyped_command(word: str) -> str | None:
    """The error for a first word that is no path and almost a command (``chek``)."""
    if word.startswith("-") or os.path.lexists(word) or "/" in word or "." in word:
        return None
    hint = suggestion(COMMANDS, word)
    if not hint:
        return None
    return f"fanout-lint: error: unknown command {word!r}{hint} (a path that does not exist either)"


def _stdout_problem() -> str | None:
    """Why standard output cannot be written, or None when it can."""
    if sys.stdout is None:
        return "it is closed"
    try:
        sys.stdout.flush()
    except (OSError, ValueError) as exc:
        return getattr(exc, "strerror", None) or str(exc)
    return None


def _say(line: str) -> None:
    try:
        sys.stderr.write(line + "\n")
        sys.stderr.flush()
    except (OSError, ValueError, AttributeError):
        pass  # stderr is gone too: the exit code is all that is left


def _all_rules():
    return ALL_RULES


def _jobs(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of processes, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError("the number of processes must be at least 1")
    return value


def _split(values: list[str]) -> tuple[str, ...]:
    return tuple(v.strip() for value in values for v in value.split(",") if v.strip())


def _check(args, startup: StartUp) -> int:
    rules = _all_rules()
    resolved = settings_for(args, rules, _split)  # configuration file, then flags
    if resolved is None:
        return EXIT_ERROR
    settings, config_path = resolved
    if args.jobs is not None:
        settings = dataclasses.replace(settings, jobs=args.jobs)
    given_root = args.repo_root is not None
    args.repo_root = repo_root(args.repo_root, os.getcwd())
    args.repo_root_given = given_root  # then every path read must be inside it (confine.py)
    # a named template links with its repository: the git top level, else --repo-root
    settings = dataclasses.replace(settings, repo_root=args.repo_root, repo_root_given=given_root,
                                   link=not args.no_link)
    # --write-baseline records every finding, so it needs no baseline to read (and may
    # be what creates the configured one)
    if not getattr(args, "baseline", None) and not getattr(args, "write_baseline", None) and settings.baseline:
        refused = config_problem(settings.baseline, args.repo_root, settings.per_file_base)
        if refused:
            sys.stderr.write(clean(f"fanout-lint: error: {refused}") + "\n")
            return EXIT_ERROR
        args.baseline = settings.baseline  # the configuration's, when the flag is not given
    if settings.var_files:
        unreadable = problem(settings.var_files, settings.config_var_files, args.repo_root, settings.per_file_base)
        if unreadable:
            sys.stderr.write(clean(f"fanout-lint: error: {unreadable}") + "\n")
            return EXIT_ERROR
    stdin = None
    if args.stdin_filename is not None or "-" in args.paths:
        try:
            named = standard_input.check_request(args.paths, args.stdin_filename, args.repo_root, args.fix)
            stdin = (named, standard_input.read(getattr(sys.stdin, "buffer", None), named))
        except standard_input.StdinError as exc:
            sys.stderr.write(clean(f"fanout-lint: error: {exc}") + "\n")
            return EXIT_ERROR
        args.paths = [named]
        settings = dataclasses.replace(settings, jobs=1)  # the text is this process's
    try:
        reports_of(args)  # a usage error (a bad --report) before anything is linted
    except UsageError as exc:
        sys.stderr.write(clean(f"fanout-lint: error: {exc}") + "\n")
        return EXIT_ERROR
    if args.show_settings:
        return _show_settings(args, rules, settings, config_path)

    cache = open_cache(os.environ, disabled=args.no_cache,
                       warn=lambda message: sys.stderr.write(clean(f"fanout-lint: warning: {message}") + "\n"))
    settings = dataclasses.replace(settings, cache=cache)
    progress = _progress(args)

    def lint():
        startup.over()
        try:
            return lint_paths(args.paths, rules, settings, root=args.repo_root, progress=progress)
        finally:
            if progress is not None:
                progress.close()

    if stdin is not None:  # the text stands in for the file until the run is reported
        with substituted(*stdin):
            return _lint_and_report(args, rules, settings, lint)
    return _lint_and_report(args, rules, settings, lint)


def _lint_and_report(args, rules, settings, lint) -> int:
    try:
        if args.fix or args.diff:
            return run_fixes(args, rules, settings, _colour(args.color), lint)
        return finish(lint(), args, rules, settings, colour=_colour(args.color))
    except ConfigError as exc:  # a configuration file below the paths: found as the run walks to it
        sys.stderr.write(f"fanout-lint: error: {clean(str(exc))}\n")
        return EXIT_ERROR


def _show_settings(args, rules, settings, config_path) -> int:
    """``--show-settings [PATH...]``: the settings each path is linted under, and the file
    they come from (the paths' common directory's without a path)."""
    hierarchy = settings.configuration
    try:
        scopes = list(dict.fromkeys(hierarchy.scope_of_path(p, record=False) for p in args.paths))
        if len(scopes) <= 1:  # one file for all the paths: shown as it always was
            scopes = [hierarchy.primary_scope(args.paths)]
    except ConfigError as exc:
        sys.stderr.write(f"fanout-lint: error: {clean(str(exc))}\n")
        return EXIT_ERROR
    if len(scopes) == 1:
        say_configuration(settings, args.quiet, scopes)
        write_stdout(render_settings(settings, rules, config_path, args.repo_root, settings.docs_url or RULE_DOCS_URL))
        return EXIT_OK
    say_configuration(settings, args.quiet, scopes)
    blocks = []
    for scope in scopes:
        own = [p for p in args.paths if hierarchy.scope_of_path(p, record=False) is scope]
        blocks.append(render_settings(scope.settings, rules, scope.path, args.repo_root,
                                      scope.settings.docs_url or RULE_DOCS_URL, paths=own))
    write_stdout("\n".join(blocks))
    return EXIT_OK


def _progress(args):
    return Progress(sys.stderr) if wanted(sys.stderr, args.quiet, os.environ) else None


def _colour(choice: str) -> bool:
    """``--color`` first; then, as CPython's own colour decides: a non-empty NO_COLOR
    (no-color.org) turns colour off, else a non-empty FORCE_COLOR (force-color.org) turns
    it on where standard output is no terminal (a CI log), else TERM=dumb turns it off."""
    if choice in ("always", "never"):
        return choice == "always"
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    if os.environ.get("TERM") == "dumb":
        return False
    return sys.stdout.isatty()


def _rules(args) -> int:
    rules = _all_rules()
    try:
        settings, _ = resolve(Flags(config=args.config, isolated=args.isolated), rules, os.getcwd())
    except ConfigError as exc:
        sys.stderr.write(f"fanout-lint: error: {clean(str(exc))}\n")
        return EXIT_ERROR
    write_stdout(render_rules(rules, settings, args.format))
    return EXIT_OK


def _explain(args) -> int:
    rule = find_rule(_all_rules(), args.rule)
    if rule is None:
        sys.stderr.write(clean(f"fanout-lint: error: {unknown_rule(_all_rules(), args.rule)}") + "\n")
        return EXIT_ERROR
    notice = renamed(_all_rules(), args.rule)
    if notice:
        sys.stderr.write(clean(f"fanout-lint: warning: {notice}") + "\n")
    write_stdout(render(rule))
    return EXIT_OK
