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

import base64
import hashlib
import os

from fanout_lint.findings import LoadError

OURS = "python-hcl2"
ADVICE = "install fanout-lint in an environment of its own (pipx install fanout-lint, or a virtualenv)"


def parser_problem(candidates: list) -> tuple[list, list[LoadError]]:
    """(the candidates that can be linted, errors): when the HCL parser cannot be imported,
    the Terraform directories are left out and one error says why."""
    terraform = [c for c in candidates if c.kind == "terraform"]
    if not terraform:
        return candidates, []
    try:
        from fanout_lint.loaders import hcl_syntax  # noqa: F401  (python-hcl2 and lark)
    except ImportError as exc:
        count = len(terraform)
        units = f"{count} Terraform director{'y' if count == 1 else 'ies'} not linted"
        error = LoadError(terraform[0].path, None, f"{units}: {explain(exc)}")
        return [c for c in candidates if c.kind != "terraform"], [error]
    return candidates, []


def explain(exc: ImportError) -> str:
    """One sentence: why ``hcl2`` could not be imported and what to do."""
    shadow = shadowing_distribution()
    if shadow is not None:
        name, version = shadow
        return (f"the module hcl2 installed here is {name} {version}'s, not {OURS}'s: both install a module "
                f"named hcl2 and the last one installed wins (checkov depends on {name}); {ADVICE}")
    if not _installed(OURS):
        return f"{OURS} is not installed (cannot import hcl2: {exc}); {ADVICE}"
    return f"cannot import the HCL parser ({type(exc).__name__}: {exc}); {ADVICE}"


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
        if name.lower().replace("_", "-") == OURS:
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
    with open(path, "rb") as handle:
        raw = hashlib.sha256(handle.read()).digest()
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")
