"""Why the HCL parser cannot be imported, and which installed package is to blame.

python-hcl2 installs a top-level module named ``hcl2``; so does bc-python-hcl2, the fork
checkov depends on. This reads the installed distributions (``importlib.metadata``, which
costs more to import than a whole small run) to name the one whose ``hcl2`` Python
imports, and what to do; ``hcl_install.py`` asks it only when the parser's check failed.
"""

from __future__ import annotations

import base64
import hashlib
import os
from importlib import metadata, util

from fanout_lint.results.doc_links import INSTALL_SOURCE

OURS = "python-hcl2"
# Commands that work today: the package is installed from its repository until it is on PyPI.
ADVICE = (f"install fanout-lint in an environment of its own (pipx install {INSTALL_SOURCE}, "
          f"or a virtual environment for it alone)")
CHECKOV_ADVICE = (f"fanout-lint and checkov cannot share an environment, in either order: give each its own "
                  f"(pipx install {INSTALL_SOURCE}, and pipx install checkov; or a virtual environment per tool)")


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
    try:
        metadata.distribution(name)
    except metadata.PackageNotFoundError:
        return False
    return True


def _sha256(path: str) -> str:
    with open(path, "rb") as handle:
        raw = hashlib.sha256(handle.read()).digest()
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")
