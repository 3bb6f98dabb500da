"""``--var-file`` and ``var-files``: tfvars Terraform reads only when told to.

Terraform loads ``terraform.tfvars`` and ``*.auto.tfvars`` by itself; any other variables
file (``prod.tfvars``, ``envs/staging.tfvars.json``) only with ``-var-file``. tflint,
checkov and trivy take the same option. Every Terraform root unit of the run reads these
files after its own, in order (the configuration's ``var-files``, then each
``--var-file``), a later file's value winning, as ``terraform plan -var-file`` would in
each root directory. A local module called by a root gets its inputs from the call, as in
Terraform. The values are known values, like those of ``terraform.tfvars``.

A ``--var-file`` is named relative to the current directory, a ``var-files`` entry
relative to the configuration file's directory. The configuration is the repository's,
which a pull request may change: its entries must resolve inside the repository (the git
top level, else ``--repo-root``) or the configuration file's own directory.
"""

from __future__ import annotations

import os
import stat

from fanout_lint.files import confine

TFVARS_SUFFIXES = (".tfvars", ".tfvars.json")


def problem(var_files: tuple[str, ...], from_config: int, root: str, config_dir: str) -> str | None:
    """Why the run cannot read its var files (one line), or None. The first
    ``from_config`` come from the configuration file in ``config_dir`` and must lie inside
    the repository ``root`` or that directory."""
    for number, path in enumerate(var_files):
        option = "var-files" if number < from_config else "--var-file"
        # A configuration's entry keeps to the repository; an operator's flag to the root
        # of the file named, as any named path (confine.py). Neither passes a link.
        if number < from_config:
            reason = confine.problem(path, root)
            if reason is not None and confine.problem(path, config_dir) is None:
                reason = None  # inside the configuration's own directory
        else:
            reason = confine.Roots(root).read_problem(path)
        if reason is not None:
            return f"{option}: {path} is {reason}"
        try:
            mode = os.stat(path).st_mode
        except OSError as exc:
            return f"{option}: cannot read {path}: {exc.strerror or exc}"
        if not stat.S_ISREG(mode):
            return f"{option}: {path} is not a regular file"
        if not path.endswith(TFVARS_SUFFIXES):
            return f"{option}: {path} is not a variables file (.tfvars or .tfvars.json)"
    return None


