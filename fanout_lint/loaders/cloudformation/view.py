"""A CloudFormation resource (plain, SAM-generated or CDK output) as ``build.View``.

Values are evaluated by ``Intrinsics`` (parameters, ``Fn::Sub``, ``Fn::If``, ...);
references go through it to the ``Linker``; JSON documents held by properties
(``RedrivePolicy``, ``PolicyDocument``) are decoded by ``cfn_documents``. A value the
template writes carries a ``MapSite``: the property's entry in its mapping, which
locates findings and fixes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fanout_lint.loaders.cloudformation.documents import json_property
from fanout_lint.loaders.cloudformation.intrinsics import Intrinsics, pseudo_text
from fanout_lint.loaders.cloudformation.template import RawResource
from fanout_lint.loaders.parsing.located import Map, MapSite, loc_of
from fanout_lint.model.format import Format
from fanout_lint.model.nodes import Body, Loc, Suppression, Written
from fanout_lint.model.schema import Items
from fanout_lint.model.values import LITERAL, Known, Value, with_site

if TYPE_CHECKING:
    from typing import Any

_ABSENT = object()


class CfnView:
    multi_instance = False

    def __init__(self, raw: RawResource, intrinsics: Intrinsics, written: Written, syntax: str,
                 suppressions: tuple[Suppression, ...], exported: bool, cdk_path: str | None):
        self.raw = raw
        self.x = intrinsics
        namespace = intrinsics.namespace
        # linked with other units: the id is namespaced, what findings name is not
        self.id = namespace + raw.id if namespace else raw.id
        self.type = raw.type
        self.loc = raw.loc
        self.resource = (raw.resource or raw.id) if namespace else raw.resource
        self.written = written
        self.syntax = syntax
        self.cdk_path = cdk_path
        self.suppressions = suppressions
        self.condition = intrinsics.condition_of(raw.condition)
        self.exported = exported
        self.shows_properties = raw.props_known
        self.props = props = raw.props
        # a setting missing from a plain mapping is unset (see build.View.plain_keys)
        self.plain_keys = props if self.shows_properties and isinstance(props, dict) and not _intrinsic(props) else None
        self.body = raw.body or _body(raw, syntax)

    def evaluating(self) -> None:
        self.x.budget.at(self.x.file, self.loc.line, self.raw.id)

    # -- values ----------------------------------------------------------------
    def _find(self, path: tuple[str, ...]) -> tuple[Any, Any]:
        """(container, raw value) at ``path``; the raw value is _ABSENT when unset."""
        if len(path) == 1:  # most settings: the shown properties are a plain mapping
            return self.props, self.props.get(path[0], _ABSENT)
        container: Any = self.props
        for key in path[:-1]:
            container = container.get(key) if isinstance(container, dict) and not _intrinsic(container) else None
            if container is None:
                return None, _ABSENT
        if not isinstance(container, dict) or _intrinsic(container) or path[-1] not in container:
            return container, _ABSENT
        return container, container[path[-1]]

    def value(self, path, default: Value | None = None) -> Value:
        if len(path) == 1:  # _find's common case, without the call: a value is read per setting
            container = self.props
            raw = container.get(path[0], _ABSENT)
        else:
            container, raw = self._find(path)
        if raw is _ABSENT:
            return default if default is not None else Known(None)
        site = MapSite(container, path[-1]) if isinstance(container, Map) else None
        if raw is not None and not isinstance(raw, dict):  # a literal, most properties
            return Known(raw, LITERAL, "", site)
        return with_site(self.x.value(raw, default), site)

    def is_written(self, path) -> bool:
        return self._find(path)[1] is not _ABSENT

    def site(self, path):
        container, raw = self._find(path)
        return MapSite(container, path[-1]) if raw is not _ABSENT and isinstance(container, Map) else None

    def proves_absent(self, path) -> bool:
        container: Any = self.props
        for key in path:
            if not isinstance(container, dict) or _intrinsic(container):
                return False  # an intrinsic may set it
            if key not in container:
                return True
            container = container[key]
            if _no_value(container):
                return True
        return container is None

    def name(self, path) -> str | None:
        _, raw = self._find(path)
        if raw is _ABSENT:
            return None
        value = self.x.value(raw)
        if isinstance(value, Known) and isinstance(value.value, str):
            return value.value
        return pseudo_text(raw)

    # -- references --------------------------------------------------------------
    def target(self, path, kind: str | None) -> str | None:
        container, raw = self._find(path)
        if raw is _ABSENT or raw is None:
            return None
        # _target's two questions, without its deferred location: a reference is read per resource
        return self.x.internal_target(raw, kind) or self.x.target(raw, kind, loc_of(container, path[-1], self.loc))

    def _target(self, raw: Any, kind: str | None, where) -> str | None:
        # The location is looked up only for a target outside the unit.
        return self.x.internal_target(raw, kind) or self.x.target(raw, kind, where())

    def targets(self, path, kind: str | None) -> tuple[str, ...]:
        if len(path) == 1 and self.plain_keys is not None:  # most: _find_all's walk is not needed
            raw = self.props.get(path[0])
            if raw is None:
                return ()
            if not isinstance(raw, list):
                one = self._target(raw, kind, lambda: loc_of(self.props, path[0], self.loc))
                return (one,) if one else ()
        found = []
        for container, raw in self._find_all(path):
            if isinstance(raw, list):
                found += [self._target(item, kind, lambda raw=raw, i=i: loc_of(raw, i, self.loc))
                          for i, item in enumerate(raw)]
            else:
                found.append(self._target(raw, kind, lambda c=container: loc_of(c, path[-1], self.loc)))
        return tuple(dict.fromkeys(f for f in found if f))

    def _find_all(self, path: tuple[str, ...]) -> list[tuple[Any, Any]]:
        """(container, raw value) of every value at ``path``, through lists of mappings on
        the way (an Auto Scaling group's ``NotificationConfigurations[].TopicARN``)."""
        containers: list[Any] = [self.props]
        for key in path[:-1]:
            following = []
            for container in containers:
                if isinstance(container, dict) and not _intrinsic(container):
                    child = container.get(key)
                    following.extend(child if isinstance(child, list) else [child])
            containers = [c for c in following if c is not None]
        return [(c, c[path[-1]]) for c in containers
                if isinstance(c, dict) and not _intrinsic(c) and c.get(path[-1]) is not None]

    # -- documents ---------------------------------------------------------------
    def document(self, path) -> Value:
        _, raw = self._find(path)
        if raw is _ABSENT:
            return Known(None)
        return json_property(self.x, raw)

    def leaf(self, raw: Any) -> Value:
        return self.x.value(raw)

    def doc_target(self, path, raw: Any, kind: str) -> str | None:
        if raw is None:
            return None  # a document we cannot read names nothing we can follow
        container, _ = self._find(path)
        return self._target(raw, kind, lambda: loc_of(container, path[-1], self.loc))

    def doc_site(self, path, key: str):
        _, raw = self._find(path)
        if isinstance(raw, Map) and not _intrinsic(raw) and key in raw:
            return MapSite(raw, key)
        return None

    def doc_body(self, path) -> Body | None:
        _, raw = self._find(path)
        if isinstance(raw, Map) and not _intrinsic(raw):
            return Body(raw, self.syntax)
        return None

    def items(self, items: Items) -> list["CfnView"]:
        _, raw = self._find(tuple(items.path.split(".")))
        if not isinstance(raw, list):
            return []
        out = []
        for index, item in enumerate(raw):
            if not isinstance(item, dict) or _intrinsic(item):
                continue
            loc = loc_of(raw, index, self.loc)
            view = CfnItemView(self, item, index, items, loc)
            out.append(view)
        return out


class CfnItemView(CfnView):
    """An item of a list property that is a node of its own (a topic's inline subscription)."""

    def __init__(self, parent: CfnView, item: dict, index: int, items: Items, loc: Loc):
        self.raw = parent.raw
        self.x = parent.x
        self.id = f"{parent.id}.{items.path.rsplit('.', 1)[-1]}[{index}]"
        self.type = f"{parent.type}.{items.path}"
        self.loc = loc
        self.resource = parent.raw.id
        self.written = parent.raw.items_written or ITEM_WRITTEN.get(items.construct, parent.written)
        self.syntax = parent.syntax
        self.cdk_path = parent.cdk_path
        self.suppressions = parent.suppressions
        self.condition = parent.condition
        self.exported = False
        self.shows_properties = True
        self.props = self.plain_keys = item  # items() hands over plain mappings only
        self.body = Body(item, parent.syntax) if isinstance(item, Map) else None


# What an item construct cannot express, and what to write instead.
ITEM_WRITTEN = {
    "inline subscription": Written(
        Format.CLOUDFORMATION, "inline subscription",
        fixed=(
            ("raw_message_delivery", "inline topic subscriptions cannot enable it: declare an "
                                     "AWS::SNS::Subscription with RawMessageDelivery: true"),
            ("redrive_dlq", "inline topic subscriptions cannot have one: declare an AWS::SNS::Subscription "
                            "with a RedrivePolicy"),
            ("filter_policy", "inline topic subscriptions cannot filter: declare an AWS::SNS::Subscription "
                              "with a FilterPolicy"),
        ),
    ),
}


def _body(raw: RawResource, syntax: str) -> Body | None:
    props = raw.props
    if isinstance(props, Map):  # `Properties: {}` too: a new setting goes inside the braces
        return Body(props, syntax)
    if isinstance(raw.node, Map):  # no Properties: a fix adds them to the resource
        return Body(raw.node, syntax, ("Properties",))
    return None


def _no_value(raw: Any) -> bool:
    return isinstance(raw, dict) and len(raw) == 1 and raw.get("Ref") == "AWS::NoValue"


def _intrinsic(raw: dict) -> bool:
    if len(raw) != 1:
        return False
    key = next(iter(raw))
    return isinstance(key, str) and (key.startswith("Fn::") or key in ("Ref", "Condition"))

