"""What links one CloudFormation template to others: the names it exports and imports,
and the templates it nests.

Both sides of linking read templates through here, so they cannot disagree: the run's
plan (``fanout_lint/run/link_plan.py``, which templates form an application) and the
application's loader (``application.py``, which links them into one graph).

- An export is an ``Outputs`` entry with ``Export: {Name: ...}``; an import is a
  ``Fn::ImportValue`` anywhere in the template. Names are evaluated like any value
  (literals, ``!Sub``/``!Join`` of parameter defaults, mappings) with pseudo parameters
  as stand-ins (``Intrinsics.link_name``): ``AWS::Region`` and ``AWS::AccountId`` are the
  same for both ends, since imports only work within one account and Region.
  ``AWS::StackName`` is known only when a CDK cloud assembly names the stack; a name the
  template does not prove links nothing.
- A nested stack is an ``AWS::CloudFormation::Stack`` whose ``TemplateURL`` is a local
  path (as ``aws cloudformation package`` and ``sam build`` read it, relative to the
  template), or whose CDK metadata ``aws:asset:path`` names the ``*.nested.template.json``
  beside it; or an ``AWS::Serverless::Application`` whose ``Location`` is a local path.

Deciding cheaply comes first: the run's plan looks for the link words in each file's bytes
(``applications.marks``), so a template without them is never parsed twice, and this
module is not even imported.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

from fanout_lint.files.confine import lexists, problem
from fanout_lint.loaders.cloudformation.intrinsics import Intrinsics
from fanout_lint.loaders.parsing.budget import Budget
from fanout_lint.loaders.parsing.located import Map

if TYPE_CHECKING:
    from typing import Any

# The words whose entries of Resources and Outputs can link (``link_sections.cut``); a
# CDK nested stack names its template in ``aws:asset:path`` metadata.
LINK_WORDS = ("ImportValue", "Export", "TemplateURL", "Serverless::Application", "aws:asset:path")

NESTED_TYPES = {"AWS::CloudFormation::Stack": "TemplateURL", "AWS::Serverless::Application": "Location"}
TEMPLATE_SUFFIXES = (".yaml", ".yml", ".json", ".template")
_REMOTE = ("http://", "https://", "s3://")


@dataclass(eq=False, repr=False)
class Nested:
    """A nested stack resource: its logical ID, the template it names (a path, or None when
    that is not a local file), the parameters it passes, and its Condition."""

    id: str
    template: str | None
    parameters: Any  # the resource's Parameters as written (a mapping, or an intrinsic)
    props_known: bool  # False: the template hides the resource's properties
    condition: str | None
    line: int | None
    refused: str | None = None  # why the local template it names is not read (confine.py)


def naming(data: dict, file: str, budget: Budget, stack_name: str | None) -> Intrinsics:
    """An evaluator for export and import names of the template (no resources needed)."""
    parameters = data.get("Parameters") if isinstance(data.get("Parameters"), dict) else {}
    mappings = data.get("Mappings") if isinstance(data.get("Mappings"), dict) else {}
    return Intrinsics(file=file, parameters=parameters, mappings=mappings, resource_types={}, budget=budget,
                      pseudo=stack_pseudo(stack_name))


def stack_pseudo(stack_name: str | None) -> dict:
    return {"AWS::StackName": stack_name} if stack_name else {}


def exports(data: dict, x: Intrinsics) -> list[tuple[str, str, Any]]:
    """(name, output key, value as written) of each export whose name the template proves."""
    outputs = data.get("Outputs")
    found = []
    if not isinstance(outputs, dict):
        return found
    for key, output in outputs.items():
        if not isinstance(output, dict) or not isinstance(output.get("Export"), dict):
            continue
        name = x.link_name(output["Export"].get("Name"))
        if name is not None and "Value" in output:
            found.append((name, str(key), output["Value"]))
    return found


def imports(data: dict, x: Intrinsics) -> set[str]:
    """The names the template imports (those it proves), wherever ``Fn::ImportValue`` is."""
    names: set[str] = set()
    seen: set[int] = set()  # YAML aliases share nodes: each is walked once
    stack: list[Any] = [data]
    containers = (dict, list)
    while stack:  # only containers are pushed: most values of a template are scalars
        item = stack.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, dict):
            if len(item) == 1 and "Fn::ImportValue" in item:
                name = x.link_name(item["Fn::ImportValue"])
                if name is not None:
                    names.add(name)
                continue
            stack.extend(v for v in item.values() if isinstance(v, containers))
        else:
            stack.extend(v for v in item if isinstance(v, containers))
        if len(seen) % 1024 == 0:
            x.budget.step(1024)
    return names


def nested_stacks(data: dict, file: str, root: str) -> list[Nested]:
    """The template's nested stack resources, each with its local template when it has one
    inside ``root``."""
    resources = data.get("Resources")
    found = []
    if not isinstance(resources, dict):
        return found
    for logical_id, body in resources.items():
        if not isinstance(body, dict) or body.get("Type") not in NESTED_TYPES:
            continue
        props = body.get("Properties")
        known = isinstance(props, dict) and not any(str(k).startswith("Fn::") for k in props)
        props = props if known else {}
        reference = props.get(NESTED_TYPES[body["Type"]])
        metadata = body.get("Metadata") if isinstance(body.get("Metadata"), dict) else {}
        asset = metadata.get("aws:asset:path")
        template = refused = None
        if isinstance(reference, str) and not reference.startswith(_REMOTE):
            template, refused = local_child(file, reference, root)
        elif isinstance(asset, str) and metadata.get("aws:asset:property", "TemplateURL") == "TemplateURL":
            template, refused = local_child(file, asset, root)  # CDK: the nested template beside the parent's
        condition = body.get("Condition")
        found.append(Nested(
            id=str(logical_id), template=template, parameters=props.get("Parameters"), props_known=known,
            condition=condition if isinstance(condition, str) else None,
            line=resources.loc_of(logical_id).line if isinstance(resources, Map) else None,
            refused=refused,
        ))
    return found


def local_child(parent: str, reference: str, root: str) -> tuple[str | None, str | None]:
    """(the path of a nested template named ``reference`` in ``parent``, spelled as the
    parent is (``./a/b.yaml`` stays ``./``-relative, as a walk of ``.`` spells it), None),
    or (None, why it is not read) when it names a template file outside ``root`` or
    through a symbolic link (``confine.py``), or (None, None) when it names no local
    template file.

    The author of the template chooses the reference: it must not make the linter read
    files elsewhere (``/proc/self/environ``, ``../../secrets.json``).
    """
    if not reference or "\x00" in reference or not reference.lower().endswith(TEMPLATE_SUFFIXES):
        return None, None
    joined = os.path.normpath(os.path.join(os.path.dirname(parent), reference))
    if not os.path.isabs(joined) and parent.startswith("./") and not joined.startswith(".."):
        joined = "./" + joined
    if not lexists(joined):
        return None, None
    refused = problem(joined, root)
    if refused is not None:
        return None, f"not read: {joined} is {refused}"
    return joined, None
