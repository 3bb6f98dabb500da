"""A CDK cloud assembly (``cdk.out``): which templates are stacks, and their names.

``manifest.json`` lists the assembly's artifacts; each of type
``aws:cloudformation:stack`` names its template (``properties.templateFile``, relative to
the assembly) and the stack's name (``properties.stackName``, else the artifact's ID). A
stage is a nested assembly (an artifact of type ``cdk:cloud-assembly`` whose
``directoryName`` holds a manifest of its own); its templates sit beside that manifest,
so each template's assembly is the manifest in its own directory. Nested stacks are no
artifacts: their parents name them (``aws:asset:path``, see ``stack_links.py``).

What the name gives linking: ``AWS::StackName`` in export and import names. CDK's own
cross-stack references are exports with literal names already.
"""

from __future__ import annotations

import json
import os

from fanout_lint.files.regular_files import TEMPLATE_BYTES, read_bounded

MANIFEST = "manifest.json"
STACK_ARTIFACT = "aws:cloudformation:stack"


def stack_names(directory: str) -> dict[str, str]:
    """Template file name (as the manifest in ``directory`` writes it, a plain name in the
    directory) -> stack name; empty when there is no readable manifest."""
    try:
        data = json.loads(read_bounded(os.path.join(directory, MANIFEST), TEMPLATE_BYTES, follow=False))
    except (OSError, ValueError, RecursionError):
        return {}
    artifacts = data.get("artifacts") if isinstance(data, dict) else None
    if not isinstance(artifacts, dict):
        return {}
    names: dict[str, str] = {}
    for artifact_id, artifact in artifacts.items():
        if not isinstance(artifact, dict) or artifact.get("type") != STACK_ARTIFACT:
            continue
        properties = artifact.get("properties")
        template = properties.get("templateFile") if isinstance(properties, dict) else None
        if not isinstance(template, str) or os.path.basename(template) != template:
            continue  # a template outside its assembly's directory is no stack of it
        name = properties.get("stackName")
        names[template] = name if isinstance(name, str) and name else str(artifact_id)
    return names
