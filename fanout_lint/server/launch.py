"""``fanout-lint server``: the language server over standard input and output."""

from __future__ import annotations

import os
import sys

from fanout_lint.rules import ALL_RULES

EXTRA = ("fanout-lint: error: the server needs pygls and lsprotocol: install fanout-lint with its "
         "server extra (fanout-lint[server])")


def run(argv: list[str]) -> int:
    """Serve until the editor says ``exit``; 2 with one line when the extra is missing."""
    if argv and argv[0] in ("-h", "--help"):
        sys.stdout.write("usage: fanout-lint server\n\nA Language Server Protocol server over stdio "
                         "(an editor starts it); see docs/editors.md.\n")
        return 0
    if argv:
        sys.stderr.write("fanout-lint: error: server takes no arguments (settings come from the editor)\n")
        return 2
    try:
        from fanout_lint.server.protocol import build
    except ImportError as exc:
        if getattr(exc, "name", "") and exc.name.split(".")[0] in ("pygls", "lsprotocol", "cattrs", "attrs"):
            sys.stderr.write(EXTRA + "\n")
            return 2
        raise

    # The protocol owns the process's standard output: it gets the descriptor, and
    # anything else that would print goes to standard error, the editor's log.
    protocol_out = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    stdout, sys.stdout = sys.stdout, sys.stderr
    server = build(ALL_RULES)
    try:
        server.start_io(sys.stdin.buffer, protocol_out)  # until ``exit``, or the end of the input
    finally:
        sys.stdout = stdout
    return 0 if server.shut_down else 1  # as the protocol says: ``exit`` after ``shutdown`` is 0
