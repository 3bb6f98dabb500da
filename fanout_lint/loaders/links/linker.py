"""References between resources of one unit, resolved the same way for every format.

A loader says what a reference is in its own terms (``!GetAtt Q.Arn``,
``aws_sqs_queue.q.arn``, a configuration reference of a plan, a literal ARN); the
``Linker`` turns that into a node id once for all of them:

- a resource of the unit is its id, and a Lambda alias or version stands for its
  function (a mapping or subscription on ``Function.Alias`` reads the function);
- a literal ARN, queue URL or physical name names the resource whose name the unit
  proves (``names``: ``(kind, name) -> id``, filled from the schema's name fields);
- anything else is an ``External`` node, made once per label.

Ids are node ids: a unit linked with others (``loaders/application.py``) has every id
behind its ``namespace``, its External nodes too, so that two stacks' ``Queue`` and two
stacks' ``parameter Arn`` stay apart in the application's one graph.
"""

from __future__ import annotations

from fanout_lint.loaders.names import named_resource
from fanout_lint.model.nodes import External, Loc


class Linker:
    def __init__(self, types: dict[str, str], namespace: str = ""):
        self.types = types  # node id -> type, every resource of the unit
        self.namespace = namespace
        self.names: dict[tuple[str, str], str] = {}
        self.aliases: dict[str, str] = {}  # alias or version id -> function id
        self.externals: dict[str, External] = {}

    def is_resource(self, resource_id: str) -> bool:
        return resource_id in self.types

    def internal(self, resource_id: str) -> str:
        """The node a resource of the unit stands for (its function, for an alias)."""
        return self.aliases.get(resource_id, resource_id)

    def literal(self, text: str, kind: str | None) -> str | None:
        """The resource an ARN, queue URL or (for ``kind``) plain name names, if any."""
        found = named_resource(text, kind, self.names)
        return self.internal(found) if found is not None else None

    def name(self, kind: str, name: str, resource_id: str) -> None:
        self.names.setdefault((kind, name), resource_id)

    def external(self, label: str, loc: Loc) -> str:
        node_id = f"{self.namespace}external: {label}"
        if node_id not in self.externals:
            self.externals[node_id] = External(id=node_id, loc=loc, label=label, type="external",
                                              namespace=self.namespace)
        return node_id
