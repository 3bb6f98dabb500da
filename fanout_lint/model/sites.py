"""Where a node's setting is written: what a finding points at.

A setting written in the template has a ``site`` on its value (``VisibilityTimeout: 30``
in the queue's properties, ``visibility_timeout_seconds = 30`` in the block). A key of a
document (``maxReceiveCount`` in a redrive policy) is found through the document's field.
An absent setting has no site: the finding points at the resource, where it would be
added.
"""

from __future__ import annotations

from fanout_lint.model.nodes import Loc, Node
from fanout_lint.model.schema import field_of, kind_of
from fanout_lint.model.values import Known, OneOf, Value


def site_of(node: Node, field_name: str):
    """The site of the setting when the template writes it, else None."""
    value = _value_of(node, field_name)
    if isinstance(value, Known):
        return value.site
    if isinstance(value, OneOf):
        # a condition picks: the first written branch says where the setting is
        return next((option.site for option in value.options if option.site is not None), None)
    return None


def loc_of(node: Node, field_name: str | None) -> Loc:
    """The span of the setting when written; the document holding it when only that is
    (a default ``maxReceiveCount`` of a written redrive policy); else the resource."""
    if field_name is None:
        return node.loc
    site = site_of(node, field_name)
    if site is not None:
        return site.entry()
    document = _document_of(node, field_name)
    if document is not None:
        return document
    return node.loc


def _value_of(node: Node, field_name: str) -> Value | None:
    if hasattr(node, field_name):
        value = getattr(node, field_name)
        return value if isinstance(value, (Known, OneOf)) else None
    parent = _parent(node, field_name)
    if parent is None:
        return None
    container = getattr(node, parent, None)
    if isinstance(container, Known) and container.value is not None:
        inner = getattr(container.value, field_name, None)
        return inner if isinstance(inner, (Known, OneOf)) else None
    return None


def _document_of(node: Node, field_name: str) -> Loc | None:
    parent = _parent(node, field_name)
    container = getattr(node, parent, None) if parent else None
    if isinstance(container, Known) and container.value is not None:
        return getattr(container.value, "loc", None)
    return None


def _parent(node: Node, field_name: str) -> str | None:
    """The field whose document holds ``field_name`` (``redrive`` for ``max_receive_count``)."""
    field = field_of(node, field_name)
    if field is None:
        return None
    path = field.path(node.written.format)
    if "/" not in path:
        return None
    document = path.rsplit("/", 1)[0]
    kind = kind_of(node)
    for other in kind.fields if kind is not None else ():
        if other.path(node.written.format) == document:
            return other.name
    return None
