"""Whether the HCL parser can be used, and when not, which installed package is to blame.

python-hcl2 installs a top-level module named ``hcl2``; so does bc-python-hcl2, the fork
checkov depends on. Installed into one environment, the last one wins the files, and with
the fork's module fanout-lint cannot import what it parses with. Every Terraform unit
would then fail the same way, so the run says it once, naming the package that took the
module over and what to do, instead of one "internal error" per directory.

Only runs with Terraform directories import the parser, and only a failed import costs
the look into the installed distributions (``hcl_shadow.py``).
"""

from __future__ import annotations

import os
from importlib.util import find_spec

from fanout_lint.loaders.terraform.hcl.parser import grammar_path, grammar_text
from fanout_lint.model.format import Format
from fanout_lint.results.records import LoadError


def parser_problem(candidates: list) -> tuple[list, list[LoadError]]:
    """(the candidates that can be linted, errors): when the HCL parser cannot be imported,
    the Terraform directories are left out and one error says why."""
    terraform = [c for c in candidates if c.format is Format.TERRAFORM]
    if not terraform:
        return candidates, []
    try:
        # what the parser needs (loaders/hcl_parser.py): python-hcl2's grammar file and Lark
        grammar = grammar_text()
        if not _recorded_size_matches(grammar_path(), len(grammar.encode("utf-8"))):
            raise ImportError("the grammar file hcl2/hcl2.lark is not the one python-hcl2 installed")

        if find_spec("lark") is None:  # found, not imported: a run whose files are all cached never loads it
            raise ImportError("No module named 'lark'")
    except (ImportError, OSError) as exc:
        from fanout_lint.loaders.terraform.hcl_shadow import explain  # importlib.metadata: only for a broken install

        count = len(terraform)
        units = f"{count} Terraform director{'y' if count == 1 else 'ies'} not linted"
        error = LoadError(terraform[0].path, None, f"{units}: {explain(exc)}")
        return [c for c in candidates if c.format is not Format.TERRAFORM], [error]
    return candidates, []


def _recorded_size_matches(grammar: str, size: int) -> bool:
    """Whether the grammar has the size python-hcl2's installation record gives it: a
    fork installed over python-hcl2 overwrites the file (its grammar builds other trees).
    The record beside the package is read directly: ``importlib.metadata`` costs more to
    import than the whole check. True when there is no record to compare with."""
    site = os.path.dirname(os.path.dirname(grammar))
    try:
        infos = [n for n in os.listdir(site) if n.lower().startswith("python_hcl2-") and n.endswith(".dist-info")]
        if len(infos) != 1:
            return True
        with open(os.path.join(site, infos[0], "RECORD"), encoding="utf-8") as handle:
            for line in handle:
                name, _, rest = line.rstrip("\n").partition(",")
                if name == "hcl2/hcl2.lark":
                    recorded = rest.rpartition(",")[2]
                    return not recorded.isdigit() or int(recorded) == size
    except OSError:
        return True
    return True
