"""What a change in the editor costs: ``fanout-lint server``'s change-to-diagnostics time
against the command line linting the same file in the same repository.

    python -m bench.server                      # 2,000 templates, 7 runs of each (about a minute)
    python -m bench.server --units 500 --runs 3

One repository of seeded templates (``bench/generate.py``, YAML and JSON, 30% written as a
producer and a consumer stack joined by an export and an import) in a git directory. The
file is a consumer stack: linked with its producer, as every named template is linked with
its repository. The command line runs ``fanout-lint -j 1 --format json FILE`` from the
repository (start-up, the repository's scan for links, the lint); the server is started
once with ``debounceMs`` 0, the file opened and its first diagnostics awaited (untimed),
then each run changes the buffer (a function timeout, unsaved) and times from the change
sent to its diagnostics published (``publishDiagnostics`` with that version). Both run
with ``CI=true`` (no parse cache on disk: the memory the server keeps is what is measured).
Wall seconds, medians; the machine's other load falls on both alike.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
if __package__ in (None, ""):  # `python bench/server.py`
    sys.path.append(os.path.dirname(HERE))
sys.path.append(os.path.join(os.path.dirname(HERE), "tests"))  # the tests' JSON-RPC client

from bench.generate import generate_repo  # noqa: E402
from bench.run import _tool  # noqa: E402
from lsp_client import Client, uri  # noqa: E402


def cli_seconds(fanout: str, path: str, root: str, env: dict) -> float:
    start = time.perf_counter()
    subprocess.run([fanout, "-j", "1", "--format", "json", "--output", os.devnull, path], cwd=root, env=env,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - start


def published(client: Client, path: str, version: int) -> list[dict]:
    """Wait for the diagnostics of ``path`` at ``version``."""
    target = uri(path)
    seen = 0
    while True:
        for message in client.notifications[seen:]:
            seen += 1
            params = message.get("params") or {}
            if message["method"] == "textDocument/publishDiagnostics" and params.get("uri") == target \
                    and params.get("version") == version:
                return params["diagnostics"]
        client._take()


def server_seconds(root: str, path: str, runs: int) -> tuple[list[float], int]:
    client = Client(root)
    try:
        client.initialize([root], {"debounceMs": 0})
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
        client.open(path, text, 1)
        found = len(published(client, path, 1))
        times = []
        for run in range(runs):
            version = run + 2
            changed = text.replace("Timeout: ", f"Timeout: {run + 1}", 1)  # a new function timeout
            start = time.perf_counter()
            client.change(path, changed, version)
            published(client, path, version)
            times.append(time.perf_counter() - start)
        client.close()
        return times, found
    finally:
        client.kill()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.server", description=__doc__.splitlines()[0])
    parser.add_argument("--units", type=int, default=2000, help="templates before splitting (default 2000)")
    parser.add_argument("--runs", type=int, default=7, help="runs of each (default 7)")
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args(argv)
    fanout = _tool("fanout-lint")
    if fanout is None:
        parser.error("fanout-lint is not installed beside this Python")
    with tempfile.TemporaryDirectory(prefix="fanout-server-") as workdir:
        root = os.path.join(workdir, "repo")
        units = generate_repo(root, args.units, (10, 60), ("yaml", "json"), seed=args.seed, link_rate=0.3)
        os.makedirs(os.path.join(root, ".git"))
        path = next(u.path for u in units if u.path.endswith("-consumers.yaml"))
        env = {**os.environ, "CI": "true", "PYTHONPYCACHEPREFIX": os.path.join(workdir, "pycache")}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        cli_seconds(fanout, path, root, env)  # untimed warm-up: bytecode and page cache
        cli = [cli_seconds(fanout, path, root, env) for _ in range(args.runs)]
        server, found = server_seconds(root, path, args.runs)
    cli_s, server_s = statistics.median(cli), statistics.median(server)
    print(f"{len(units):,} files ({args.units:,} templates, 30% as linked pairs), one consumer stack, "
          f"{found} diagnostics; wall seconds, median of {args.runs}\n")
    print("| command line, `fanout-lint -j 1 FILE` | server, change to diagnostics (`debounceMs` 0) | ratio |")
    print("|---:|---:|---:|")
    print(f"| {cli_s:.3f} | {server_s:.3f} | {cli_s / server_s:.1f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
