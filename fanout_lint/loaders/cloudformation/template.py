"""A CloudFormation template as a list of raw resources, before they become graph nodes.

The SAM expansion works at this level: it turns ``AWS::Serverless::*`` resources into
the plain CloudFormation resources the SAM translator would create, so the graph
builder only knows plain CloudFormation.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from fanout_lint.loaders.parsing.located import Map, loc_of
from fanout_lint.model.nodes import Body, Loc, Written
from fanout_lint.model.schema import ALIAS_TYPES, BY_TYPE, KEY_ALIAS_TYPES

if TYPE_CHECKING:
    from typing import Any

TEMPLATE_VERSION_KEY = "AWSTemplateFormatVersion"
SAM_TRANSFORM = "AWS::Serverless-2016-10-31"


@dataclass(eq=False, repr=False)
class RawResource:
    """A template resource as written: logical ID, type, properties, location."""

    id: str
    type: str
    props: dict
    loc: Loc
    metadata: dict = field(default_factory=dict)
    written: Written | None = None  # the construct that generated it (SAM), when not a plain resource
    resource: str = ""  # what findings name, when not the id
    connectors: dict = field(default_factory=dict)  # SAM's resource-level Connectors attribute
    # False when the template hides the properties (an intrinsic or an AWS::Include in place
    # of them): none is absent, every one is unknown.
    props_known: bool = True
    condition: str | None = None  # the resource's Condition attribute
    node: dict | None = None  # the resource's own mapping (Type, Properties, ...)
    body: Body | None = None  # where a new setting goes, when not in ``props`` (a SAM event's)
    # the construct that wrote its list items, when not the template (the Serverless
    # Framework's sns event writes a topic's inline subscriptions)
    items_written: Written | None = None
    syntax: str = "yaml"  # yaml or json: how a fix writes


def is_read(body: Any) -> bool:
    """Whether anything fanout-lint reads looks into this resource's body: a type the schema
    maps (or a Lambda alias or version), a SAM resource (expanded into such types), or a
    body with SAM connectors. The others are known by their type and logical ID alone, so
    a JSON template's locator steps over them (``json_source``)."""
    if not isinstance(body, dict):
        return True
    type_ = body.get("Type")
    if not isinstance(type_, str) or "Connectors" in body:
        return True
    return type_ in BY_TYPE or type_ in ALIAS_TYPES or type_ in KEY_ALIAS_TYPES or type_.startswith("AWS::Serverless::")


def is_template(data: Any) -> bool:
    """A file is a template when its content says so, whatever its extension."""
    if not isinstance(data, dict):
        return False
    if TEMPLATE_VERSION_KEY in data:
        return True
    resources = data.get("Resources")
    if not isinstance(resources, dict) or not resources:
        return False
    return any(
        isinstance(r, dict)
        and isinstance(r.get("Type"), str)
        and r["Type"].startswith(("AWS::", "Custom::", "Alexa::"))
        for r in resources.values()
    )


def uses_sam(data: dict) -> bool:
    transform = data.get("Transform")
    names = transform if isinstance(transform, list) else [transform]
    return SAM_TRANSFORM in [n for n in names if isinstance(n, str)]


def means_sam(data: dict, resources: list["RawResource"]) -> bool:
    """The SAM transform applies, declared or not.

    CloudFormation rejects ``AWS::Serverless::*`` types without the transform, so a
    template that has them can only mean SAM (the SAM translator's own test inputs, and
    templates whose transform a pipeline adds, leave the line out). Read literally, its
    connectors and events would vanish and rules would report what they grant as missing.
    """
    return uses_sam(data) or any(r.type.startswith("AWS::Serverless::") for r in resources)


def raw_resources(data: dict, file: str, syntax: str = "yaml") -> list[RawResource]:
    resources = data.get("Resources")
    if not isinstance(resources, dict):
        return []
    out = []
    fallback = data.loc if isinstance(data, Map) else Loc(file, 1, 1)
    for logical_id, body in resources.items():
        if not isinstance(body, dict):
            continue
        type_ = body.get("Type")
        if not isinstance(type_, str):
            continue
        props = body.get("Properties")
        if len(body) == 2 and props is not None:
            # Type and Properties alone (most resources): no attribute to read
            metadata, connectors, condition = {}, {}, None
        else:
            metadata = body.get("Metadata")
            metadata = metadata if isinstance(metadata, dict) else {}
            connectors = body.get("Connectors")
            connectors = connectors if isinstance(connectors, dict) else {}
            condition = body.get("Condition")
            condition = condition if isinstance(condition, str) else None
        out.append(
            RawResource(
                id=logical_id if type(logical_id) is str else str(logical_id),
                type=type_,
                props=props if isinstance(props, dict) else {},
                loc=loc_of(resources, logical_id, fallback),
                metadata=metadata,
                connectors=connectors,
                props_known=_shows_properties(props),
                condition=condition,
                node=body,
                syntax=syntax,
            )
        )
    return out


def _shows_properties(props: Any) -> bool:
    """The template states the properties: none at all, or a mapping without intrinsics."""
    if props is None:
        return True
    if not isinstance(props, dict):
        return False
    for key in props:  # a loop, not any(generator): this runs for every property of every resource
        if (key if type(key) is str else str(key)).startswith("Fn::"):
            return False
    return True
