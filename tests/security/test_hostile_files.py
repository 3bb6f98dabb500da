"""Files, the walk, the worker pool and exit codes under input a pull request controls.

Each case runs the real CLI, in a subprocess wherever the exit code, a signal, memory or
standard output is what is tested, and checks three things: the one-line error naming
the file, the exit code (2: something could not be linted; never a traceback, never 1),
and that the other files were still linted. Time bounds are generous: a regression here
is a hang or a crawl of minutes, not a few seconds on a loaded machine.
"""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import tempfile
import textwrap
import time
from dataclasses import dataclass

import pytest

from fanout_lint.cli.main import main

LINUX = sys.platform.startswith("linux")
POSIX = os.name == "posix"

# A template that fires (a queue without a DLQ read by a function): "still linted".
GOOD = """\
AWSTemplateFormatVersion: "2010-09-09"
Resources:
  Queue:
    Type: AWS::SQS::Queue
  Worker:
    Type: AWS::Lambda::Function
  Mapping:
    Type: AWS::Lambda::EventSourceMapping
    Properties:
      EventSourceArn: !GetAtt Queue.Arn
      FunctionName: !Ref Worker
      FunctionResponseTypes: [ReportBatchItemFailures]
"""

# Its Terraform twin.
TF_GOOD = """\
resource "aws_sqs_queue" "lonely" {}
resource "aws_lambda_function" "reader" {
  function_name = "r"
}
resource "aws_lambda_event_source_mapping" "m" {
  event_source_arn        = aws_sqs_queue.lonely.arn
  function_name           = aws_lambda_function.reader.arn
  function_response_types = ["ReportBatchItemFailures"]
}
"""


@dataclass
class Run:
    code: int
    out: str
    err: str
    peak_rss: int  # bytes, of the process and the workers it waited for
    seconds: float

    def report(self) -> dict:
        try:
            return json.loads(self.out)
        except ValueError:
            raise AssertionError(f"not a JSON report (exit {self.code}):\n{self.out[-2000:]}\n{self.err[-2000:]}") from None


# Linux carries a process's peak memory across exec, and a child forked from this (large)
# test process starts with its pages: so the CLI is started by a small launcher, and its
# peak is what the launcher's wait4 reports, written to a file the test reads.
LAUNCHER = """
import json, os, sys
report, command = sys.argv[1], sys.argv[2:]
pid = os.fork()
if pid == 0:
    os.execv(command[0], command)
_, status, usage = os.wait4(pid, 0)
with open(report, "w") as handle:
    json.dump({"maxrss": usage.ru_maxrss}, handle)
sys.exit(os.waitstatus_to_exitcode(status) & 0xFF)
"""


def run(*args, cwd, timeout: float = 120, argv0=None, stdout=None, env=None) -> Run:
    """The CLI in a subprocess, started by ``LAUNCHER`` so that its peak memory is its own."""
    report = tempfile.NamedTemporaryFile(delete=False, suffix=".json")
    report.close()
    command = [sys.executable, "-c", LAUNCHER, report.name,
               sys.executable, *(argv0 or ["-m", "fanout_lint"]), *map(str, args)]
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.monotonic()
        proc = subprocess.Popen(command, cwd=cwd, stdout=out if stdout is None else stdout, stderr=err,
                                env={**os.environ, **(env or {})})
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() - started > timeout:
                proc.kill()
                proc.wait()
                pytest.fail(f"fanout-lint {' '.join(map(str, args))} ran for more than {timeout} s")
            time.sleep(0.02)
        seconds = time.monotonic() - started
        proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
        out.seek(0)
        err.seek(0)
        try:
            with open(report.name) as handle:
                maxrss = json.load(handle)["maxrss"]
        except (OSError, ValueError):
            maxrss = usage.ru_maxrss
        finally:
            os.unlink(report.name)
        result = Run(proc.returncode, out.read().decode(), err.read().decode(),
                     maxrss * (1024 if LINUX else 1), seconds)
    assert "Traceback" not in result.err, result.err
    assert "Exception ignored" not in result.err, result.err
    return result


def one_error(report: dict, path, *words: str) -> dict:
    errors = [e for e in report["errors"] if e["file"] == str(path)]
    assert len(errors) == 1, report["errors"]
    assert "\n" not in errors[0]["message"]
    for word in words:
        assert word in errors[0]["message"], errors[0]["message"]
    return errors[0]


def linted(report: dict, path) -> bool:
    return any(f["file"] == str(path) and f["name"] == "missing-dlq" for f in report["findings"])


def one_line(err: str, *words: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


@pytest.fixture
def good(tmp_path):
    path = tmp_path / "good.yaml"
    path.write_text(GOOD)
    return path


# -- the walk ------------------------------------------------------------------

def _deep_chain(top: str, name: str, depth: int, files: dict[str, str]) -> None:
    """``depth`` nested directories called ``name`` under ``top`` with ``files`` at the
    bottom, made relative to a descriptor: their full paths exceed PATH_MAX."""
    fd = os.open(top, os.O_RDONLY)
    try:
        for _ in range(depth):
            os.mkdir(name, dir_fd=fd)
            child = os.open(name, os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = child
        for file, text in files.items():
            handle = os.open(file, os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
            os.write(handle, text.encode())
            os.close(handle)
    finally:
        os.close(fd)


def _remove_chain(top: str, name: str) -> None:
    # shutil.rmtree recurses once per level; this moves each level up and removes it
    current = os.path.join(top, name)
    spare = os.path.join(top, name + ".up")
    while os.path.lexists(current):
        for entry in os.listdir(current):
            if entry != name:
                os.unlink(os.path.join(current, entry))
        if os.path.lexists(os.path.join(current, name)):
            os.rename(os.path.join(current, name), spare)
            os.rmdir(current)
            os.rename(spare, current)
        else:
            os.rmdir(current)


@pytest.fixture
def deep_trees(tmp_path):
    made = []
    yield made
    for top, name in made:
        _remove_chain(top, name)


@pytest.mark.skipif(not POSIX, reason="PATH_MAX and dir_fd are POSIX")
def test_a_1500_deep_tree_is_an_error_for_the_subtree_not_a_crash(tmp_path, good, deep_trees):
    # Short names: the walk's depth bound (100) comes first; long names: paths pass
    # PATH_MAX (ENAMETOOLONG) at about 20 levels. Both trees are 1,500 deep.
    _deep_chain(str(tmp_path), "ddd", 1500, {"deep.yaml": GOOD, "main.tf": 'resource "aws_sqs_queue" "q" {}\n'})
    deep_trees.append((str(tmp_path), "ddd"))
    long_name = "l" * 200
    _deep_chain(str(tmp_path), long_name, 1500, {"deep.yaml": GOOD})
    deep_trees.append((str(tmp_path), long_name))
    # module_calls and the module loader meet the same tree through a source path
    # longer than PATH_MAX; two Terraform units, so that the module scan runs
    for unit in ("live", "other"):
        (tmp_path / unit).mkdir()
        (tmp_path / unit / "main.tf").write_text(
            'module "deep" {\n  source = "../' + "ddd/" * 1500 + '"\n}\n'
            'resource "aws_sqs_queue" "q" {}\n'
        )
    result = run("check", "--format", "json", tmp_path, cwd=tmp_path, timeout=120)
    assert result.code == 2, result.err
    report = result.report()
    too_deep = [e for e in report["errors"] if "levels below" in e["message"]]
    assert len(too_deep) == 1, report["errors"]
    assert too_deep[0]["file"] == os.path.join(str(tmp_path), *["ddd"] * 101)
    assert "more than 100 levels" in too_deep[0]["message"]
    too_long = [e for e in report["errors"] if "File name too long" in e["message"]]
    assert len(too_long) == 1 and too_long[0]["file"].startswith(os.path.join(str(tmp_path), long_name))
    assert all("\n" not in e["message"] for e in report["errors"])
    assert linted(report, good)


@pytest.mark.skipif(not POSIX, reason="symlink chains are POSIX")
def test_module_scan_survives_deep_interpolations_and_long_symlink_chains(tmp_path, good):
    # Strings nested in interpolations 20,000 deep, and a module source through a chain
    # of 1,500 symlinks (Python's realpath recurses once per link).
    chain = tmp_path / "chain"
    chain.mkdir()
    (chain / "real").mkdir()
    previous = "real"
    for i in range(1500):
        os.symlink(previous, chain / f"l{i}")
        previous = f"l{i}"
    nested = '"${' * 20_000 + "x" + '}"' * 20_000
    units = {
        "nested": f'locals {{\n  deep = {nested}\n}}\nmodule "m" {{\n  source = "../shared"\n}}\n',
        "chained": 'module "m" {\n  source = "../chain/l1499"\n}\n',
    }
    for unit, text in units.items():
        (tmp_path / unit).mkdir()
        (tmp_path / unit / "main.tf").write_text(text)
    for unit in ("healthy", "shared"):
        (tmp_path / unit).mkdir()
        (tmp_path / unit / "main.tf").write_text(TF_GOOD)
    healthy = tmp_path / "healthy"
    result = run("check", "--format", "json", tmp_path, cwd=tmp_path, timeout=120)
    assert result.code == 2, result.err
    report = result.report()
    # the scan read the module block after the nesting: shared is no unit of its own
    assert not [f for f in report["findings"] if f["file"].startswith(str(tmp_path / "shared"))]
    for unit in units:
        assert [e for e in report["errors"] if e["file"].startswith(str(tmp_path / unit))], report["errors"]
    assert all("\n" not in e["message"] for e in report["errors"])
    assert linted(report, good) and linted(report, healthy / "main.tf")


@pytest.mark.skipif(not POSIX, reason="symlinks to / are POSIX")
def test_symlinks_to_the_root_and_the_parent_are_not_followed(tmp_path):
    tree = tmp_path / "tree"
    (tree / "sub").mkdir(parents=True)
    (tree / "sub" / "good.yaml").write_text(GOOD)
    (tmp_path / "outside.yaml").write_text(GOOD)  # reachable only through `up`
    os.symlink("/", tree / "root")
    os.symlink("..", tree / "up")
    os.symlink("../..", tree / "sub" / "upup")
    os.symlink("sub", tree / "zz-link")  # inside the tree: not followed either (confine.py)
    result = run("check", "--format", "json", tree, cwd=tmp_path, timeout=60)
    report = result.report()
    # the link out of the repository (the current directory: no git) is an error; the
    # links inside it are notices; nothing is read through any of them
    assert result.code == 2, result.err
    assert [(e["file"], e["message"]) for e in report["errors"]] == [
        (str(tree / "root"), "not read: a symbolic link to outside the repository (.)")]
    noticed = [line.split(":")[0] for line in result.err.splitlines() if "a symbolic link: not followed" in line]
    assert noticed == [str(tree / "sub" / "upup"), str(tree / "up"), str(tree / "zz-link")]
    assert [f["file"] for f in report["findings"]] == [str(tree / "sub" / "good.yaml")]
    assert report["summary"]["units"] == 1


# -- what is read, and how much -------------------------------------------------

@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
@pytest.mark.parametrize("option", ["--config", "--baseline"])
@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_fifo_and_dev_zero_as_config_or_baseline(tmp_path, good, option, kind):
    if kind == "fifo":
        special = tmp_path / "special"
        os.mkfifo(special)
    else:
        special = "/dev/zero"
        if not os.path.exists(special):
            pytest.skip("no /dev/zero")
    result = run("check", option, special, good, cwd=tmp_path, timeout=60)
    assert result.code == 2
    one_line(result.err, str(special), "not a regular file")


def test_a_3_gb_sparse_template_is_refused_before_it_is_read(tmp_path, good):
    huge = tmp_path / "template.yaml"
    with open(huge, "wb") as handle:
        handle.write(b"Resources:\n")
    os.truncate(huge, 3 * 1024 ** 3)  # sparse: no disk used
    result = run("check", "--format", "json", tmp_path, cwd=tmp_path, timeout=60)
    assert result.code == 2
    report = result.report()
    one_error(report, huge, "larger than 64 MiB")
    assert linted(report, good)
    if LINUX:
        assert result.peak_rss < 200 * 1024 ** 2, result.peak_rss


def test_a_20_mb_tfvars_is_refused_with_bounded_memory(tmp_path, good):
    unit = tmp_path / "stack"
    unit.mkdir()
    (unit / "main.tf").write_text('variable "tags" {}\nresource "aws_sqs_queue" "q" {\n  tags = var.tags\n}\n')
    item = '{ name = "a", value = 0 },'
    (unit / "terraform.tfvars").write_text("tags = [" + item * (20 * 1024 * 1024 // len(item)) + "]\n")
    healthy = tmp_path / "healthy"
    healthy.mkdir()
    (healthy / "main.tf").write_text(TF_GOOD)
    result = run("check", "--format", "json", tmp_path, cwd=tmp_path, timeout=120)
    assert result.code == 2
    report = result.report()
    one_error(report, unit / "terraform.tfvars", "larger than 512 KiB", "not linted")
    assert linted(report, good) and linted(report, healthy / "main.tf")
    if LINUX:
        assert result.peak_rss < 1024 ** 3, result.peak_rss


def test_a_unit_over_its_total_is_refused_at_the_file_that_crosses_it(tmp_path, good):
    # nine files of one long comment each (cheap to parse), 4.3 MB in all: the ninth
    # crosses the 4 MiB total
    unit = tmp_path / "stack"
    unit.mkdir()
    for i in range(9):
        (unit / f"f{i}.tf").write_text("# " + "x" * (480 * 1024) + "\n")
    result = run("check", "--format", "json", tmp_path, cwd=tmp_path, timeout=120)
    assert result.code == 2
    report = result.report()
    one_error(report, unit / "f8.tf", "4 MiB in total", "not linted")
    assert len(report["errors"]) == 1
    assert linted(report, good)


@pytest.mark.parametrize("where", ["pyproject.toml", "module.tf"])
def test_300k_blank_lines_scan_in_linear_time(tmp_path, good, where):
    # A pattern whose line anchor is followed by \s* retries the run of blank lines from
    # each line in it when the line after them does not match: quadratic.
    blank = "\n" * 300_000
    if where == "pyproject.toml":
        (tmp_path / "pyproject.toml").write_text(
            '[project]\n' + blank + 'name = "x"\n[tool.fanout-lint.severity]\nmissing-dlq = "info"\n'
        )
    else:
        # two units, so that the module scan runs; the scan reads each file alone, so one
        # file of blank lines shows it linear (the HCL parse of a second one, a token a
        # line, was most of the test's time and none of what it checks)
        for unit, lines in (("live", blank), ("other", "")):
            (tmp_path / unit).mkdir()
            (tmp_path / unit / "main.tf").write_text(
                lines + 'locals {}\nmodule "m" {\n  source = "../shared"\n}\n'
            )
        (tmp_path / "shared").mkdir()
        (tmp_path / "shared" / "main.tf").write_text(TF_GOOD)
    result = run("check", "--format", "json", tmp_path, cwd=tmp_path, timeout=90)
    report = result.report()
    assert report["errors"] == [] and linted(report, good), result.err
    if where == "pyproject.toml":
        assert result.code == 0  # the configuration was found and read: missing-dlq is info
        assert {f["severity"] for f in report["findings"]} == {"info"}
    else:
        assert result.code == 1
        # the scan found the calls: the module is linted inside each caller, not alone
        resources = sorted(f["resource"] for f in report["findings"] if f["name"] == "missing-dlq" and f["file"] != str(good))
        assert resources == ["module.m.aws_sqs_queue.lonely"] * 2, report["findings"]
        assert report["summary"]["units"] == 3


# -- malformed baselines and configuration --------------------------------------

BAD_BASELINES = {
    "not-json": b'{"version": 1, "findings": [',
    "not-utf8": b'{"version": 1, "findings": ["\xff"]}',
    "a-list": b"[1, 2, 3]",
    "version-text": b'{"version": "1", "findings": []}',
    "version-true": b'{"version": true, "findings": []}',
    "findings-table": b'{"version": 1, "findings": {"fingerprint": "x"}}',
    "entry-number": b'{"version": 1, "findings": [7]}',
    "fingerprint-number": b'{"version": 1, "findings": [{"fingerprint": 7}]}',
    "deep": b'{"version": 1, "findings": [' + b"[" * 100_000 + b"]" * 100_000 + b"]}",
    "huge-number": b'{"version": 1' + b"0" * 10_000 + b', "findings": []}',
    "huge-entry": b'{"version": 1, "findings": [[' + b'"x",' * 2_000_000 + b'"x"]]}',
}


@pytest.mark.parametrize("case", sorted(BAD_BASELINES))
def test_malformed_baselines_are_one_line_errors(tmp_path, good, capsys, case):
    path = tmp_path / "baseline.json"
    path.write_bytes(BAD_BASELINES[case])
    assert main(["check", "--baseline", str(path), str(good)]) == 2
    captured = capsys.readouterr()
    line = one_line(captured.err, str(path))
    assert len(line) < 400


def test_a_baseline_above_its_limit_is_not_read(tmp_path, good, capsys):
    path = tmp_path / "baseline.json"
    path.write_bytes(b"{")
    os.truncate(path, 2 * 1024 ** 3)
    assert main(["check", "--baseline", str(path), str(good)]) == 2
    one_line(capsys.readouterr().err, str(path), "larger than 32 MiB")


BAD_CONFIGS = {
    "deep-array": "[tool.fanout-lint]\nexclude = " + "[" * 50_000 + "]" * 50_000 + "\n",
    "huge-int": "[tool.fanout-lint]\nx = " + "9" * 10_000 + "\n",
    # tomllib would hold about 1.6 GB for this one 40 KB line
    "dotted-keys": "[tool.fanout-lint]\nk" + ".a" * 20_000 + " = 1\n",
    # the header in a string makes the file look like ours before it is parsed
    "tool-number": 'tool = 5\nx = """\n[tool.fanout-lint]\n"""\n',
    "table-number": '[tool]\nfanout-lint = 5\nx = """\n[tool.fanout-lint]\n"""\n',
    "select-table": "[tool.fanout-lint]\nselect = { a = 1 }\n",
    "long-key-line": "[tool.fanout-lint]\n[" + " " * 200_000 + "tool.fanout-lint.severity]\nnope = 'error'\n",
}


@pytest.mark.parametrize("name", ["pyproject.toml", ".fanout-lint.toml"])
@pytest.mark.parametrize("case", sorted(BAD_CONFIGS))
def test_malformed_configuration_is_a_one_line_error(tmp_path, good, capsys, monkeypatch, name, case):
    text = BAD_CONFIGS[case]
    if name == ".fanout-lint.toml":
        text = text.replace("[tool.fanout-lint.", "[").replace("[tool.fanout-lint]\n", "")
        text = text.replace("[tool]\nfanout-lint = 5\n", "severity = 5\n").replace("tool = 5\n", "options = 5\n")
    path = tmp_path / name
    path.write_text(text)
    monkeypatch.chdir(tmp_path)
    started = time.monotonic()
    assert main(["check", str(good)]) == 2
    assert time.monotonic() - started < 30
    line = one_line(capsys.readouterr().err, str(path), CONFIG_ERRORS.get(case, ""))
    assert len(line) < 400


CONFIG_ERRORS = {"deep-array": "nested too deep", "huge-int": "invalid TOML", "dotted-keys": "dotted keys"}


def test_a_configuration_above_its_limit_is_not_read(tmp_path, good, capsys, monkeypatch):
    path = tmp_path / "pyproject.toml"
    path.write_text("[tool.fanout-lint]\n")
    os.truncate(path, 1024 ** 3)
    monkeypatch.chdir(tmp_path)
    assert main(["check", str(good)]) == 2
    one_line(capsys.readouterr().err, str(path), "larger than 1 MiB")


# -- the worker pool -------------------------------------------------------------

# Run as a script, it makes a worker (never this process) die, exit, raise or send back
# what cannot be sent on the units named in HOSTILE, then runs the CLI. Nothing of it
# lives in the package.
HOSTILE = textwrap.dedent("""\
    import os, signal, sys, time
    import fanout_lint.run.unit as unit
    from fanout_lint.cli.main import main

    parent = os.getpid()
    lint = unit.lint_candidate
    hostile = os.environ["HOSTILE"].split(",")

    def lint_candidate(candidate, *args, **kwargs):
        name = os.path.basename(candidate.path).split(".")[0]
        if os.getpid() != parent and name in hostile:
            if name == "killed":
                os.kill(os.getpid(), signal.SIGKILL)
            if name == "exits":
                os._exit(3)
            if name == "raises":
                raise RuntimeError("boom")
            if name == "unsendable":
                result = lint(candidate, *args, **kwargs)
                result.graphs.append(lambda: None)  # a lambda does not pickle
                return result
            if name == "sleeps":
                with open(os.environ["WORKER_PIDS"], "a") as pids:
                    pids.write(f"{os.getpid()}\\n")
                time.sleep(300)
        return lint(candidate, *args, **kwargs)

    unit.lint_candidate = lint_candidate
    sys.exit(main(sys.argv[1:]))
    """)


@pytest.fixture
def pool_repo(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    for i in range(30):
        (repo / f"t{i:02d}.yaml").write_text(GOOD)
    for name in ("killed", "exits", "raises", "unsendable", "sleeps"):
        (repo / f"{name}.yaml").write_text(GOOD)
    script = tmp_path / "hostile.py"
    script.write_text(HOSTILE)
    return repo, script


@pytest.mark.skipif(not POSIX, reason="SIGKILL and fork are POSIX")
def test_a_dying_or_raising_worker_is_an_error_for_its_unit_alone(tmp_path, pool_repo):
    repo, script = pool_repo
    hostile = {"killed": "worker process died while linting this unit",
               "exits": "worker process died while linting this unit",
               "raises": "internal error while linting: RuntimeError: boom",
               "unsendable": "internal error while linting:"}
    env = {"HOSTILE": ",".join(hostile)}
    parallel = run("check", "-j", "2", "--format", "json", repo, argv0=[script], cwd=tmp_path, env=env, timeout=120)
    serial = run("check", "-j", "1", "--format", "json", repo, argv0=[script], cwd=tmp_path, env=env, timeout=120)
    assert parallel.code == 2 and serial.code == 1  # serially nothing is hostile: no workers
    report, expected = parallel.report(), serial.report()
    for name, message in hostile.items():
        one_error(report, repo / f"{name}.yaml", message)
    assert len(report["errors"]) == len(hostile)
    # every other unit is linted, exactly as a serial run lints it
    others = [f for f in expected["findings"] if os.path.basename(f["file"]).split(".")[0] not in hostile]
    assert report["findings"] == others and len(others) == 31


@pytest.mark.skipif(not LINUX, reason="reads /proc")
def test_sigterm_ends_the_workers_and_the_run_promptly(tmp_path, pool_repo):
    repo, script = pool_repo
    pids = tmp_path / "pids"
    proc = subprocess.Popen([sys.executable, str(script), "check", "-j", "2", str(repo)], cwd=tmp_path,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            env={**os.environ, "HOSTILE": "sleeps", "WORKER_PIDS": str(pids)})
    deadline = time.monotonic() + 60
    while not (pids.exists() and pids.read_text().strip()):
        assert proc.poll() is None and time.monotonic() < deadline, "no worker started the slow unit"
        time.sleep(0.05)
    workers = {int(p) for p in pids.read_text().split()} | _children(proc.pid)
    assert workers
    proc.send_signal(signal.SIGTERM)
    signalled = time.monotonic()
    _, err = proc.communicate(timeout=30)
    assert time.monotonic() - signalled < 15
    assert proc.returncode == 128 + signal.SIGTERM
    assert "Traceback" not in err.decode()
    time.sleep(0.2)
    assert [pid for pid in workers if _alive(pid)] == []


def _children(pid: int) -> set[int]:
    found = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as handle:
                    if int(handle.read().rsplit(")", 1)[1].split()[1]) == pid:
                        found.add(int(entry))
            except (OSError, ValueError, IndexError):
                continue
    return found


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


# -- writing the report ------------------------------------------------------------

@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")
@pytest.mark.parametrize("command", [["check"], ["rules"], ["explain", "FL101"]])
def test_a_full_disk_on_stdout_is_one_line_and_exit_2(tmp_path, good, command):
    args = [*command, good] if command == ["check"] else command
    with open("/dev/full", "w") as full:
        result = run(*args, cwd=tmp_path, stdout=full, timeout=60)
    assert result.code == 2
    one_line(result.err, "cannot write", "standard output", "No space left on device")


@pytest.mark.skipif(not POSIX, reason="closes descriptor 1 from the shell")
def test_a_closed_stdout_is_one_line_and_exit_2(tmp_path, good):
    proc = subprocess.run(["sh", "-c", 'exec "$0" -m fanout_lint check "$1" >&-', sys.executable, str(good)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr and "Exception ignored" not in proc.stderr
    one_line(proc.stderr, "cannot write", "standard output", "closed")


@pytest.mark.skipif(not POSIX, reason="pipes with a closed end are POSIX")
def test_a_broken_pipe_stays_quiet_and_exit_0(tmp_path, good):
    read, write = os.pipe()
    os.close(read)
    try:
        result = run("check", good, cwd=tmp_path, stdout=write, timeout=60)
    finally:
        os.close(write)
    assert (result.code, result.err) == (0, "")


def test_output_is_replaced_atomically_and_kept_when_writing_fails(tmp_path, good, capsys, monkeypatch):
    report = tmp_path / "out" / "report.json"
    report.parent.mkdir()
    report.write_text("old report\n")
    report.chmod(0o640)
    # a failed write (the disk fills while it is flushed) leaves the old file and no temp
    def full(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    for flag in ("--output", "--write-baseline"):
        assert main(["check", "--format", "json", flag, str(report), str(good)]) == 2
        one_line(capsys.readouterr().err, str(report), "No space left on device")
        assert report.read_text() == "old report\n"
        assert os.listdir(report.parent) == ["report.json"]
    monkeypatch.undo()
    # then a write that succeeds replaces it whole, with the old file's mode
    assert main(["check", "--format", "json", "--output", str(report), str(good)]) == 1
    assert linted(json.loads(report.read_text()), good)
    assert stat.S_IMODE(report.stat().st_mode) == 0o640
    assert os.listdir(report.parent) == ["report.json"]


@pytest.mark.skipif(not POSIX, reason="symlinks and /dev/null are POSIX")
def test_output_replaces_a_planted_symlink_and_writes_to_streams(tmp_path, good, capsys):
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    planted = tmp_path / "report.json"
    os.symlink(victim, planted)
    assert main(["check", "--format", "json", "--output", str(planted), str(good)]) == 1
    assert victim.read_text() == "precious\n"
    assert not planted.is_symlink() and linted(json.loads(planted.read_text()), good)
    # a device or a pipe is written to, never replaced (as root, /dev/null could be)
    assert main(["check", "--output", os.devnull, str(good)]) == 1
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)
    capsys.readouterr()
