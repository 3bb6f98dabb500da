"""cfn-lint's command line, run many times in one process: what the ``cfn-lint`` script
calls (``cfnlint.runner.main``, with its arguments in ``sys.argv``), once per request.

cfn-lint takes about two seconds to import before it reads a template; the plugin's tests
run it some twenty times, so they start it once (``test_cfnlint_plugin.py``, the
``cfn_lint`` fixture) and send it one JSON line per run, ``{"args": [...], "cwd": ...}``.
Each answer is one JSON line: the exit code and what the run wrote to stdout and stderr.

A request may say ``"own_rules": false``: that run loads none of cfn-lint's own rules,
only those ``-a`` appends. cfn-lint runs every loaded rule on every template and applies
``--ignore-checks`` to the matches afterwards, so a run that ignores all of its own rules
still spends nine tenths of its time in them (its JSON-schema validation, some 0.1 s a
template). Everything else is cfn-lint's as usual: decoding, the SAM transform, the
metadata directives, the formatter and the exit code.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
import tempfile
import traceback
from unittest import mock

from cfnlint.runner import main


def run(args: list[str], cwd: str, own_rules: bool = True) -> dict:
    out, err = io.StringIO(), io.StringIO()
    saved_argv, saved_cwd, saved_stdin = sys.argv, os.getcwd(), sys.stdin
    sys.argv = ["cfn-lint", *args]
    # cfn-lint reads a template from standard input when it is given none (a command that
    # takes its template for one more rule module): an empty one, as from /dev/null, and
    # never the requests this process reads
    sys.stdin = io.StringIO()
    code = 0
    try:
        os.chdir(cwd)
        with contextlib.ExitStack() as stack:
            stack.enter_context(contextlib.redirect_stdout(out))
            stack.enter_context(contextlib.redirect_stderr(err))
            if not own_rules:
                # the directory cfn-lint always loads first (its config's append_rules): an
                # empty one; mock.patch fails loudly should cfn-lint rename it
                empty = stack.enter_context(tempfile.TemporaryDirectory())
                stack.enter_context(mock.patch("cfnlint.config._DEFAULT_RULESDIR", empty))
            try:
                main()
            except SystemExit as done:  # how cfn-lint ends every run, with its exit code
                if isinstance(done.code, str):
                    err.write(done.code + "\n")
                code = done.code if isinstance(done.code, int) else int(done.code is not None)
            except Exception:  # as the interpreter would end a process
                traceback.print_exc(file=err)
                code = 1
    finally:
        sys.argv, sys.stdin = saved_argv, saved_stdin
        os.chdir(saved_cwd)
    return {"returncode": code, "stdout": out.getvalue(), "stderr": err.getvalue()}


if __name__ == "__main__":
    answers = sys.stdout
    for line in sys.stdin:
        request = json.loads(line)
        answers.write(json.dumps(run(request["args"], request["cwd"], request.get("own_rules", True))) + "\n")
        answers.flush()
