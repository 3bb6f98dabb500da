"""A "did you mean" for mistyped flags, as argparse gives none before Python 3.14.

Imported only when the command line is wrong: a run that parses never loads it.
"""

from __future__ import annotations

import argparse

from fanout_lint.policy.settings import suggestion


def hints(parser: argparse.ArgumentParser, message: str) -> str:
    """`` (did you mean --select?)`` for each mistyped flag of an "unrecognized
    arguments" error, or ""."""
    head = "unrecognized arguments: "
    if not message.startswith(head):
        return ""
    known = option_strings(parser)
    found = []
    for word in message[len(head):].split():
        name = word.split("=", 1)[0]
        if not name.startswith("--") or name in known:
            continue
        # compared without the dashes, which every flag shares
        hint = suggestion([k[2:] for k in known if k.startswith("--")], name[2:])
        if hint:
            found.append((name, "--" + hint[len(" (did you mean "):-len("?)")]))
    if not found:
        return ""
    if len(found) == 1:
        return f" (did you mean {found[0][1]}?)"
    return " (" + "; ".join(f"{name}: did you mean {flag}?" for name, flag in found) + ")"


def option_strings(parser: argparse.ArgumentParser) -> set[str]:
    """The flags of ``parser`` and of the command parsers it holds (only the running
    command's is built, so only its flags are suggested)."""
    flags: set[str] = set()
    for action in parser._actions:
        flags.update(action.option_strings)
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                flags |= option_strings(sub)
    return flags
