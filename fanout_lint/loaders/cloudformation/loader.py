"""CloudFormation (YAML, JSON, SAM, CDK output) into the resource graph.

The template level is read here: parameters and mappings for ``Intrinsics``, the SAM
expansion, which resources ``Outputs`` export, CDK construct paths and the inline
suppressions in ``Metadata``. Each resource is then handed to the one builder
(``build.py``) as a ``CfnView``, so what a property means is written once, in
``model/schema.py``, for CloudFormation and Terraform alike.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from fanout_lint.loaders.build import build
from fanout_lint.loaders.cloudformation.intrinsics import Intrinsics
from fanout_lint.loaders.cloudformation.sam import expand as expand_sam
from fanout_lint.loaders.cloudformation.template import RawResource, means_sam, raw_resources
from fanout_lint.loaders.cloudformation.view import CfnView
from fanout_lint.loaders.links.linker import Linker
from fanout_lint.loaders.parsing.budget import Budget
from fanout_lint.loaders.parsing.located import loc_of
from fanout_lint.model.format import Format
from fanout_lint.model.graph import Graph
from fanout_lint.model.nodes import CLOUDFORMATION, Loc, Suppression, Unit, Written
from fanout_lint.results.not_modelled import NotModelled, of_cloudformation

if TYPE_CHECKING:
    from typing import Any

# CDK output is generated: a fix goes to the CDK app, never into the template.
CDK = Written(Format.CLOUDFORMATION, "CDK", generated=True)


@dataclass(eq=False, repr=False)
class Stack:
    """One template read at the template level, ready to become views: alone, or one
    stack of an application (``application.py``), behind its ``namespace`` there."""

    file: str
    data: dict
    syntax: str
    text: str | None
    resources: list[RawResource]
    intrinsics: Intrinsics
    linker: Linker
    not_modelled: list[NotModelled]

    def views(self) -> list[CfnView]:
        exported = exported_ids(self.data, self.intrinsics)
        return [_view(r, self.intrinsics, exported, self.syntax) for r in self.resources]


def open_stack(data: dict, file: str, syntax: str, text: str | None, budget: Budget, namespace: str = "",
               **linked) -> Stack:
    """The template's resources (SAM expanded), parameters and mappings. ``linked``: what
    linking sets on the evaluator (``bound``, ``pseudo``, ``stack_condition``)."""
    resources = raw_resources(data, file, syntax)
    passed_over = of_cloudformation(resources)  # before SAM drops the events it does not expand
    if means_sam(data, resources):
        resources = expand_sam(resources, data)
    parameters = data.get("Parameters") if isinstance(data.get("Parameters"), dict) else {}
    mappings = data.get("Mappings") if isinstance(data.get("Mappings"), dict) else {}
    types = {r.id: r.type for r in resources}
    linker = Linker({namespace + i: t for i, t in types.items()} if namespace else types, namespace)
    intrinsics = Intrinsics(
        file=file,
        parameters=parameters,
        mappings=mappings,
        resource_types=types,
        linker=linker,
        budget=budget,
        namespace=namespace,
        **linked,
    )
    return Stack(file, data, syntax, text, resources, intrinsics, linker, passed_over)


def load_template(data: dict, file: str, syntax: str = "yaml", text: str | None = None) -> Graph:
    stack = open_stack(data, file, syntax, text, Budget(file=file))
    nodes, uses, mentions = build(stack.views(), stack.linker)
    graph = Graph(Unit(file, Format.CLOUDFORMATION, (file,)), nodes, uses, sources={file: text} if text else {},
                  mentions=mentions)
    graph.not_modelled.extend(stack.not_modelled)
    return graph


def _view(resource: RawResource, intrinsics: Intrinsics, exported: set[str], syntax: str) -> CfnView:
    metadata = resource.metadata
    cdk_path = metadata.get("aws:cdk:path") if isinstance(metadata, dict) else None
    cdk_path = cdk_path if isinstance(cdk_path, str) else None
    written = CDK if cdk_path else resource.written or CLOUDFORMATION
    intrinsics.budget.at(intrinsics.file, resource.loc.line, resource.id)
    node_id = intrinsics.namespace + resource.id if intrinsics.namespace else resource.id
    suppressions = metadata_suppressions(metadata, resource.loc) if metadata else ()  # most have no Metadata
    return CfnView(resource, intrinsics, written, syntax, suppressions, node_id in exported, cdk_path)


def exported_ids(data: dict, intrinsics: Intrinsics, every_output: bool = False) -> set[str]:
    """Node ids of the resources an ``Outputs`` entry with ``Export`` names (any entry, for
    ``every_output``: the Serverless Framework exports them all): other stacks may use them."""
    outputs = data.get("Outputs")
    exported: set[str] = set()
    if not isinstance(outputs, dict):
        return exported
    for output in outputs.values():
        if isinstance(output, dict) and (every_output or "Export" in output):
            target = intrinsics.internal_target(output.get("Value"), "any")
            if target:
                exported.add(target)
    return exported


def metadata_suppressions(metadata: Any, loc: Loc) -> tuple[Suppression, ...]:
    """``Metadata: {fanout-lint: {ignore: [...]}}``; entries may carry a reason and expiry."""
    if not isinstance(metadata, dict):
        return ()
    section = metadata.get("fanout-lint")
    if not isinstance(section, dict):
        return ()
    entries = section.get("ignore")
    entries = entries if isinstance(entries, list) else [entries] if entries else []
    # plain strings take the section's reason and until; a mapping gives its own
    reason, until = _text(section.get("reason")), section.get("until")
    found = []
    for index, entry in enumerate(entries):
        entry_loc = loc_of(entries, index, loc)
        if isinstance(entry, str):
            found.append(Suppression(rule=entry, reason=reason, until=_text(until) or None, loc=entry_loc))
        elif isinstance(entry, dict) and isinstance(entry.get("rule"), str):
            found.append(Suppression(
                rule=entry["rule"],
                reason=_text(entry.get("reason")) or reason,
                until=_text(entry.get("until", until)) or None,
                loc=entry_loc,
            ))
    return tuple(found)


def _text(value: Any) -> str:
    # a reason is a short text: a mapping or list (an alias of a large one) is no reason
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)):
        return str(value)
    return ""
