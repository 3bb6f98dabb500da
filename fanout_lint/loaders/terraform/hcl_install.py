"""Whether the HCL parser can be used, and when not, which installed package is to blame.

python-hcl2 installs a top-level module named ``hcl2``; so does bc-python-hcl2, the fork
checkov depends on. Installed into one environment, the last one wins the files, and with
the fork's module fanout-lint cannot import what it parses with. Every Terraform unit
would then fail the same way, so the run says it once, naming the package that took the
module over and what to do, instead of one "internal error" per directory.

Only runs with Terraform directories import the parser, and only a failed import costs
the look into the installed distributions.
"""

from __future__ import annotations

import os

from fanout_lint.model.format import Format
from fanout_lint.results.doc_links import INSTALL_SOURCE
from fanout_lint.results.records import LoadError

OURS = "python-hcl2"
# Commands that work today: the package is installed from its repository until it is on PyPI.
ADVICE = (f"install fanout-lint in an environment of its own (pipx install {INSTALL_SOURCE}, "
          f"or a virtual environment for it alone)")
CHECKOV_ADVICE = (f"fanout-lint and checkov cannot share an environment, in either order: give each its own "
                  f"(pipx install {INSTALL_SOURCE}, and pipx install checkov; or a virtual environment per tool)")


def parser_problem(candidates: list) -> tuple[list, list[LoadError]]:
    """(the candidates that can be linted, errors): when the HCL parser cannot be imported,
    the Terraform directories are left out and one error says why."""
    terraform = [c for c in candidates if c.format is Format.TERRAFORM]
    if not terraform:
        return candidates, []
    try:
        # what the parser needs (loaders/hcl_parser.py): python-hcl2's grammar file and Lark
        from fanout_lint.loaders.terraform.hcl.parser import grammar_path, grammar_text

        grammar = grammar_text()
        if not _recorded_size_matches(grammar_path(), len(grammar.encode("utf-8"))):
            raise ImportError("the grammar file hcl2/hcl2.lark is not the one python-hcl2 installed")
        from importlib.util import find_spec

        if find_spec("lark") is None:  # found, not imported: a run whose files are all cached never loads it
            raise ImportError("No module named 'lark'")
    except (ImportError, OSError) as exc:
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


def explain(exc: Exception) -> str:
    """One sentence: why ``hcl2`` could not be imported and what to do."""
    shadow = shadowing_distribution()
    if shadow is not None:
        name, version = shadow
        return (f"the module hcl2 installed here is {name} {version}'s, not {OURS}'s: both install a module "
                f"named hcl2 and the last one installed wins (checkov depends on {name}); {CHECKOV_ADVICE}")
    if not _installed(OURS):
        return f"{OURS} is not installed (cannot import hcl2: {exc}); {ADVICE}"
    return f"cannot load the HCL parser ({type(exc).__name__}: {exc}); {ADVICE}"


def shadowing_distribution() -> tuple[str, str] | None:
    """(name, version) of the distribution other than python-hcl2 whose ``hcl2`` is the
    one Python imports, or None."""
    from importlib import metadata, util

    try:
        spec = util.find_spec("hcl2")
    except (ImportError, ValueError):
        return None
    origin = getattr(spec, "origin", None)
    if not origin or not os.path.isfile(origin):
        return None
    digest = _sha256(origin)
    providers = metadata.packages_distributions().get("hcl2", [])
    for name in dict.fromkeys(providers):
        if not name or name.lower().replace("_", "-") == OURS:
            continue
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue
        if _owns(dist, origin, digest):
            return dist.metadata["Name"] or name, dist.version
    return None


def _owns(dist, origin: str, digest: str) -> bool:
    """The distribution's record lists ``origin`` with this content (or without a hash)."""
    for file in dist.files or ():
        if str(file).replace("\\", "/") != "hcl2/__init__.py":
            continue
        located = os.path.realpath(str(dist.locate_file(file)))
        if file.hash is not None and file.hash.mode == "sha256":
            if file.hash.value == digest:
                return True
        elif located == os.path.realpath(origin):
            return True
    return False


def _installed(name: str) -> bool:
    from importlib import metadata

    try:
        metadata.distribution(name)
    except metadata.PackageNotFoundError:
        return False
    return True


def _sha256(path: str) -> str:
    import base64  # only when the parser cannot be imported: OpenSSL alone costs milliseconds to load
    import hashlib

    with open(path, "rb") as handle:
        raw = hashlib.sha256(handle.read()).digest()
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")
