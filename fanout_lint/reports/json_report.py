"""``--format json``: a stable, documented interface (see README, "JSON output")."""

from __future__ import annotations

import json

from fanout_lint import __version__
from fanout_lint.results.records import Result

SCHEMA_VERSION = 1


def render(result: Result, show_suppressed: bool = False) -> str:
    document = {
        "version": SCHEMA_VERSION,
        "tool": {"name": "fanout-lint", "version": __version__},
        "findings": [f.as_dict() for f in result.findings],
        "errors": [e.as_dict() for e in result.errors],
        "notices": [n.as_dict() for n in result.notices],  # suppression warnings; not-modelled notes
        "summary": {"units": result.units, "findings": len(result.findings), "errors": len(result.errors)},
    }
    if show_suppressed:
        document["suppressed"] = [s.as_dict() for s in result.suppressed]
    return json.dumps(document, indent=2) + "\n"
