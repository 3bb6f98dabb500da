"""Hostile input that once stalled a run or exhausted its memory: each shape at two sizes.

    python -m bench.bombs                    # every shape, at both sizes (seconds; before this round, minutes)
    python -m bench.bombs --only heredoc-blank-lines --timeout 120

Each shape is written into a temporary directory and linted by the installed CLI in a child
process (``fanout-lint check --format json --no-cache -j 1``); the table gives its wall
seconds, its peak memory (the child's maximum resident set, from the kernel's accounting)
and its exit code. A child still running after ``--timeout`` seconds is stopped and shown
as such. The sizes are those of ``docs/benchmarks.md``: the second is four to ten times
the first, so that linear work shows as a ratio of about that much and worse shows at once.

The shapes:

- ``sls-nested-self``: one Serverless string of ``${self:...}`` variables nested in one
  another's fallbacks, 200 deep, around a quoted fallback of N KB;
- ``sls-shared-doubling``: ``custom`` values each a list holding the one before twice
  (YAML stays small, the value it names doubles per level), N levels, placed in a
  resource of ``resources``;
- ``nested-instances``: one parent nesting one child template N times;
- ``nesting-chain``: a chain of N templates each nesting the next, in a git repository,
  linted by naming the last one only (as pre-commit does);
- ``heredoc-blank-lines``: an HCL heredoc whose body is N blank lines and a line of text;
- ``nested-heredocs``: heredocs inside interpolations of heredocs, 150 deep, around N KB
  of text.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

if __package__ in (None, ""):  # `python bench/bombs.py`
    sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable

SLS_HEAD = "service: bomb\nprovider:\n  name: aws\n"


def sls_nested_self(directory: str, kilobytes: int) -> list[str]:
    depth = 200
    inner = "'" + "x" * (kilobytes * 1024) + "'"
    value = "${self:custom.absent, " * depth + inner + "}" * depth
    text = (SLS_HEAD + "custom:\n  name: \"" + value + "\"\n"
            "functions:\n  worker:\n    handler: h.main\n    name: ${self:custom.name}\n")
    return [_write(directory, "serverless.yml", text)]


def sls_shared_doubling(directory: str, levels: int) -> list[str]:
    lines = ["custom:", "  l0: [x]"]
    for level in range(1, levels + 1):
        lines.append(f"  l{level}: ['${{self:custom.l{level - 1}}}', '${{self:custom.l{level - 1}}}']")
    text = (SLS_HEAD + "\n".join(lines) + "\n"
            f"functions:\n  worker:\n    handler: h.main\n    onError: ${{self:custom.l{levels}}}\n"
            "resources:\n  Resources:\n    WorkerLambdaFunction:\n      Properties:\n"
            f"        DeadLetterConfig:\n          TargetArn: ${{self:custom.l{levels}}}\n")
    return [_write(directory, "serverless.yml", text)]


CHILD = """\
AWSTemplateFormatVersion: "2010-09-09"
Parameters:
  Name:
    Type: String
Resources:
{resources}
Metadata:
  Notes:
{notes}
Outputs:
  QueueArn:
    Value: !GetAtt Queue0.Arn
"""


def nested_instances(directory: str, instances: int) -> list[str]:
    resources = "".join(
        f"  Queue{i}:\n    Type: AWS::SQS::Queue\n    Properties:\n      QueueName: !Sub '${{Name}}-{i}'\n"
        f"      VisibilityTimeout: 60\n"
        for i in range(5))
    notes = "".join(f"    - note {i} {'n' * 100}\n" for i in range(5000))  # 550 KB the child is read for
    _write(directory, "child.yaml", CHILD.format(resources=resources, notes=notes))
    parent = 'AWSTemplateFormatVersion: "2010-09-09"\nResources:\n' + "".join(
        f"  Child{i}:\n    Type: AWS::CloudFormation::Stack\n    Properties:\n      TemplateURL: child.yaml\n"
        f"      Parameters:\n        Name: n{i}\n" for i in range(instances))
    return [_write(directory, "parent.yaml", parent)]


def nesting_chain(directory: str, length: int) -> list[str]:
    subprocess.run(["git", "init", "-q", directory], check=True)
    for i in range(length):
        nested = (f"  Next:\n    Type: AWS::CloudFormation::Stack\n    Properties:\n"
                  f"      TemplateURL: link{i + 1}.yaml\n" if i + 1 < length else "")
        _write(directory, f"link{i}.yaml", 'AWSTemplateFormatVersion: "2010-09-09"\nParameters:\n  P:\n'
               f"    Type: String\nResources:\n  Queue:\n    Type: AWS::SQS::Queue\n{nested}"
               "Outputs:\n  Arn:\n    Value: !GetAtt Queue.Arn\n")
    return [os.path.join(directory, f"link{length - 1}.yaml")]


def heredoc_blank_lines(directory: str, lines: int) -> list[str]:
    text = 'resource "aws_sqs_queue" "q" {\n  name = <<EOF\n' + "\n" * lines + "text\nEOF\n}\n"
    os.makedirs(os.path.join(directory, "tf"))
    _write(os.path.join(directory, "tf"), "main.tf", text)
    return [os.path.join(directory, "tf")]


def nested_heredocs(directory: str, kilobytes: int) -> list[str]:
    body = "x" * (kilobytes * 1024)
    for level in range(150):
        body = f"<<H{level}\n${{{body}}}\nH{level}\n" if level else f'<<H0\n{body}\nH0\n'
    text = f'resource "aws_sqs_queue" "q" {{\n  name = {body}}}\n'
    os.makedirs(os.path.join(directory, "tf"))
    _write(os.path.join(directory, "tf"), "main.tf", text)
    return [os.path.join(directory, "tf")]


# name -> (generator, the two sizes, what a size counts)
SHAPES: dict[str, tuple[Callable[[str, int], list[str]], tuple[int, int], str]] = {
    "sls-nested-self": (sls_nested_self, (50, 200), "KB of fallback"),
    "sls-shared-doubling": (sls_shared_doubling, (16, 20), "levels"),
    "nested-instances": (nested_instances, (100, 1000), "instances"),
    "nesting-chain": (nesting_chain, (100, 400), "templates"),
    "heredoc-blank-lines": (heredoc_blank_lines, (10_000, 40_000), "blank lines"),
    "nested-heredocs": (nested_heredocs, (100, 400), "KB of text"),
}


def _write(directory: str, name: str, text: str) -> str:
    path = os.path.join(directory, name)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)
    return path


def measure(paths: list[str], cwd: str, timeout: float) -> tuple[float | None, float, int | None]:
    """Wall seconds (None past ``timeout``), peak resident MB and exit code of one check."""
    argv = [sys.executable, "-m", "fanout_lint", "check", "--format", "json", "--no-cache", "-j", "1", *paths]
    start = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = start + timeout
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            proc.returncode = os.waitstatus_to_exitcode(status)
            return time.perf_counter() - start, usage.ru_maxrss / 1024, proc.returncode
        if time.perf_counter() > deadline:
            proc.kill()
            _, _, usage = os.wait4(proc.pid, 0)
            proc.returncode = -9
            return None, usage.ru_maxrss / 1024, None
        time.sleep(0.02)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=sorted(SHAPES), action="append", help="one shape (repeatable)")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds before a run is stopped")
    parser.add_argument("--sizes", type=lambda s: tuple(int(x) for x in s.split(",")),
                        help="sizes to run instead of the shape's two (comma-separated)")
    args = parser.parse_args(argv)
    print("| shape | size | seconds | peak MB | exit |")
    print("|---|---:|---:|---:|---:|")
    for name in args.only or SHAPES:
        generate, sizes, unit = SHAPES[name]
        for size in args.sizes or sizes:
            with tempfile.TemporaryDirectory(prefix="fanout-bomb-") as directory:
                paths = generate(directory, size)
                seconds, peak, code = measure(paths, directory, args.timeout)
            shown = f"{seconds:.2f}" if seconds is not None else f"> {args.timeout:.0f} (stopped)"
            print(f"| {name} | {size:,} {unit} | {shown} | {peak:.0f} | {code if code is not None else '-'} |",
                  flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
