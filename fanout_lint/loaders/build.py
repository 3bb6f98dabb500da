"""Graph nodes from resources of any format, by the one mapping in ``model/schema.py``.

Every loader hands its resources over as ``View``s: a view answers, in the loader's own
terms, "what is the value at this path?", "which node does this reference name?",
"what document does this property hold?". This module reads every field of the schema
through a view, so what ``AWS::SQS::Queue`` and ``aws_sqs_queue`` mean is written once,
with the AWS defaults of ``model/defaults.py`` for absent properties. Three passes:

1. physical names (``QueueName``, ``name``) into the ``Linker``, so literal ARNs, URLs
   and names written elsewhere resolve;
2. Lambda aliases and versions, so a reference to one reads as its function;
3. the nodes, the dead-letter uses (settings that name a queue as where failures go) and
   the mentions (resources the graph does not model naming a node: an alarm's actions).

A view whose properties the template hides (an intrinsic in place of ``Properties``)
proves nothing: its values are unknown and its references unfollowed, but the node is
there, so a policy that might grant access still silences the permission rules.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Protocol

from fanout_lint.loaders.links.linker import Linker
from fanout_lint.loaders.policy_documents import parse_policy
from fanout_lint.model.defaults import bounded, default_of
from fanout_lint.model.format import Format
from fanout_lint.model.nodes import (
    ANY_ALARM,
    ANY_QUEUE,
    COMBINATIONS_CAP,
    NONE,
    WATCHES_DEPTH,
    Body,
    DeadLetterUse,
    FilterShape,
    Loc,
    Mention,
    Node,
    Queue,
    QueuePolicy,
    Redrive,
    Suppression,
    Written,
)
from fanout_lint.model.schema import (
    ALIAS_TYPES,
    BY_TYPE,
    DEPTH_ALARMS,
    DEPTH_METRIC,
    KEY_ALIAS_TYPES,
    REFERENCED,
    DepthAlarm,
    Field,
    Items,
    Kind,
)
from fanout_lint.model.values import LITERAL, Known, Unknown, Value, candidates, choice, to_bool, to_int

if TYPE_CHECKING:
    from typing import Any, Iterable

Path = tuple[str, ...]
HIDDEN = Unknown("the template hides the properties")


class View(Protocol):
    """One resource of a template, as a loader reads it."""

    id: str
    type: str
    loc: Loc
    resource: str  # what findings name; "" for the id
    written: Written
    body: Body | None
    cdk_path: str | None
    suppressions: tuple[Suppression, ...]
    condition: str | None
    multi_instance: bool
    exported: bool  # other stacks or configurations may use it
    shows_properties: bool  # False: the template hides them (every value unknown)
    # The top-level settings (only their keys are read) when a setting whose first step is
    # not among them is provably unset: the view would answer every question about it as
    # ``UNWRITTEN`` does. None when each setting must be asked about.
    plain_keys: Any

    def value(self, path: Path, default: Value | None = None) -> Value:
        """The plain value at ``path``; ``default`` (or Known(None)) when absent or null.
        A written value carries its ``site``."""

    def is_written(self, path: Path) -> bool:
        """The template sets it (the provider does not compute it)."""

    def site(self, path: Path) -> Any:
        """Where the setting at ``path`` is written (a site: its ``entry()`` and ``value()`` spans), whatever its
        value (a reference known only at deploy time too), or None."""

    def proves_absent(self, path: Path) -> bool:
        """The template provably does not set it: every enclosing property or block is
        written plainly (no intrinsic, no ``dynamic`` block, nothing known only after
        apply) and the setting is not there, or is null."""

    def target(self, path: Path, kind: str | None) -> str | None:
        """The node a reference at ``path`` names (kind: queue, topic, function), an
        External node id, or None when unset."""

    def targets(self, path: Path, kind: str | None) -> tuple[str, ...]:
        """Every node the value may name: a list, one per ``for_each`` instance, one per
        nested block."""

    def document(self, path: Path) -> Value:
        """A JSON document property decoded: Known(dict) per option, Known(None) when
        unset, or Unknown. Leaves may stay in the loader's form (``leaf`` reads them)."""

    def leaf(self, raw: Any) -> Value:
        """A leaf of a document as a value."""

    def doc_target(self, path: Path, raw: Any, kind: str) -> str | None:
        """The node a leaf of the document at ``path`` names; ``raw`` None asks for the
        node an unknown document names, when the configuration shows it."""

    def doc_site(self, path: Path, key: str) -> Any:
        """Where ``key`` of the document at ``path`` is written, or None."""

    def doc_body(self, path: Path) -> Body | None:
        """Where a key is added to the document at ``path``, when it is written as a
        mapping the fixer can edit."""

    def items(self, items: Items) -> list["View"]:
        """The list items (CloudFormation) or repeated blocks (Terraform) of ``items`` as
        views of their own."""

    def name(self, path: Path) -> str | None:
        """A physical name, as far as it identifies the resource inside the unit."""

    def evaluating(self) -> None:
        """Tell the unit's budget that what is evaluated next is this resource, so that a
        budget error points at it (the views are all made before the first is built)."""


@dataclass(eq=False, repr=False)
class Built:
    """What the builder made of a unit's views: nodes and dead-letter uses."""

    nodes: list[Node] = field(default_factory=list)
    dead_letter_uses: list[DeadLetterUse] = field(default_factory=list)
    mentions: list[Mention] = field(default_factory=list)
    # Terraform's aws_sqs_queue_redrive_policy: queue id -> redrive, applied at the end
    redrives: dict[str, Value] = field(default_factory=dict)
    unresolved_redrive: bool = False


def build(views: Iterable[View], linker: Linker) -> tuple[list[Node], list[DeadLetterUse], list[Mention]]:
    views = list(views)
    index(views, linker)
    return build_indexed(views, linker)


def index(views: list[View], linker: Linker) -> None:
    """Passes 1 and 2: physical names and aliases. Linked units are all indexed before any
    is built, since a reference may cross into another unit (an import of an alias)."""
    _index_names(views, linker)
    _index_aliases(views, linker)


def build_indexed(views: list[View], linker: Linker) -> tuple[list[Node], list[DeadLetterUse], list[Mention]]:
    """Pass 3, once ``index`` has run on the views."""
    out = Built()
    for view in views:
        kind = BY_TYPE.get(view.type)
        if kind is not None:
            _add(out, view, kind, linker)
        elif view.type == "aws_sqs_queue_redrive_policy":
            _separate_redrive(out, view)
    nodes = _apply_separate_redrives(out) + list(linker.externals.values())
    return nodes, out.dead_letter_uses, out.mentions


def _index_names(views: list[View], linker: Linker) -> None:
    for view in views:
        kind = BY_TYPE.get(view.type)
        path = _name_path(kind, view.written.format) if kind is not None else None
        if path is None or not view.shows_properties:
            continue
        plain = view.plain_keys
        if plain is not None and path[0] not in plain:
            continue  # no name written (most queues, topics and functions): nothing to index
        view.evaluating()
        name = view.name(path)
        if name:
            linker.name(kind.key, name, view.id)


def _index_aliases(views: list[View], linker: Linker) -> None:
    for view in views:
        attribute, kind = ALIAS_TYPES.get(view.type), "function"
        if attribute is None:
            attribute, kind = KEY_ALIAS_TYPES.get(view.type), "key"
        if attribute is None or not view.shows_properties:
            continue
        view.evaluating()
        target = view.target((attribute,), kind)
        if target is not None and linker.is_resource(target) and target not in linker.externals:
            linker.aliases[view.id] = target


# The schema is constant (kinds compare by identity): what follows from a kind and a
# format is worked out once, not per resource.
@functools.cache
def _name_path(kind: Kind, fmt: Format) -> Path | None:
    """The steps of the kind's physical name in ``fmt``, or None when it has none."""
    name_field = kind.field("name")
    return name_field.steps(fmt) if name_field is not None else None


@functools.cache
def _readers(kind: Kind, fmt: Format) -> tuple:
    """(field, steps, reader, unset) for each field a view of ``fmt`` reads, in schema
    order; ``unset`` is what the field reads as when the template does not write it."""
    return tuple(
        (f, f.steps(fmt), _READERS.get(f.read), _unset(kind, f, f.steps(fmt))) for f in kind.fields
        if f.read not in ("part", "named") and f.path(fmt)
    )


def _unset(kind: Kind, f: Field, steps: Path) -> Any:
    """The field's value for a resource that does not write it, as its own reader reads it
    from a view where nothing is written; _NO_VALUE for a reference that only records
    uses or mentions."""
    if f.read == "dead_letter":
        return _destination_of(UNWRITTEN, steps, ()) if kind.node is not None else _NO_VALUE
    if f.read.startswith("mention:"):
        return _NO_VALUE
    return _READERS[f.read](UNWRITTEN, steps, f, {})


class _Unwritten:
    """A resource that writes nothing: how every reader sees a setting a view's
    ``plain_keys`` proves unset, so what an unset setting reads as is still decided by its
    reader alone."""

    loc = None
    plain_keys = ()

    def value(self, path: Path, default: Value | None = None) -> Value:
        return default if default is not None else NONE

    def is_written(self, path: Path) -> bool:
        return False

    def site(self, path: Path) -> None:
        return None

    def proves_absent(self, path: Path) -> bool:
        return True

    def target(self, path: Path, kind: str | None) -> None:
        return None

    def targets(self, path: Path, kind: str | None) -> tuple[str, ...]:
        return ()

    def document(self, path: Path) -> Value:
        return NONE

    def doc_target(self, path: Path, raw: Any, kind: str) -> None:
        return None

    def doc_body(self, path: Path) -> None:
        return None


UNWRITTEN = _Unwritten()
_NO_VALUE = object()  # _unset's: the field sets no value of the node


def _add(out: Built, view: View, kind: Kind, linker: Linker, parent: dict | None = None) -> None:
    view.evaluating()
    fmt = view.written.format
    shown = view.shows_properties
    # Most settings of most resources are not written: read as unset without asking the view.
    plain = view.plain_keys if shown else None
    values: dict[str, Any] = {}
    for f, steps, reader, unset in _readers(kind, fmt):
        if plain is not None and steps[0] not in plain:
            if unset is not _NO_VALUE:
                values[f.name] = unset
            continue
        if reader is None:  # a use or mention of the graph, read as a field too where the node has one
            if f.read == "dead_letter":
                found = view.targets(steps, "queue") if shown else ()
                for target in found:
                    out.dead_letter_uses.append(DeadLetterUse(target, view.id, f.path(fmt)))
                if kind.node is not None:
                    values[f.name] = _destination_of(view, steps, found) if shown else HIDDEN
            elif shown:
                role = f.read.split(":", 1)[1]
                for target in view.targets(steps, "topic"):
                    out.mentions.append(Mention(target, view.id, view.type, f.path(fmt), role))
            continue
        values[f.name] = reader(view, steps, f, values) if shown else _hidden(f)
    if kind.node is not None:
        values.update(
            id=view.id, loc=view.loc, type=view.type, written=view.written, body=view.body,
            cdk_path=view.cdk_path, suppressions=view.suppressions, condition=view.condition,
            multi_instance=view.multi_instance,
        )
        values.update(kind.marks)
        if linker.namespace:
            values["namespace"] = linker.namespace
        if view.resource:
            values["resource"] = view.resource
        if kind.key == "topic":
            values["exported"] = view.exported
        if parent:
            values.update(parent)
        out.nodes.append(kind.node(**values))
    if view.type == "aws_sqs_queue":
        _queue_argument_policy(out, view)
    alarm = DEPTH_ALARMS.get(view.type)
    if alarm is not None:
        _depth_alarm(out, view, alarm, linker)
    for items in kind.items:
        if not view.shows_properties:
            continue
        marks = dict(items.marks)
        if items.parent:
            # what holds the items: this node, or the node this resource's field names
            marks[items.parent] = view.id if kind.node is not None else values.get(items.parent)
        for item in view.items(items):
            _add(out, item, items.kind, linker, marks or None)


def _destination_of(view: View, path: Path, found: tuple[str, ...]) -> Value:
    """A reference read as a value: the node, none (proved), or unknown."""
    if found:
        return Known(found[0], LITERAL, "", _site(view, path))
    return NONE if view.proves_absent(path) else Unknown("not known whether it is set")


def _hidden(f: Field) -> Any:
    if f.read.startswith("ref:") or f.read == "endpoint":
        return None
    if f.read.startswith("refs:"):
        return ()
    if f.read == "present":
        return False
    return HIDDEN


# How each reader of the schema reads its value; (view, path, field, values read so far).
def _int(view: View, path: Path, f: Field, values: dict) -> Value:
    return bounded(to_int(view.value(path, default_of(f.default) if f.default else None)), f.default)


def _bool(view: View, path: Path, f: Field, values: dict) -> Value:
    return to_bool(view.value(path, default_of(f.default) if f.default else None))


def _text(view: View, path: Path, f: Field, values: dict) -> Value:
    return view.value(path, default_of(f.default) if f.default else None)


def _strings(view: View, path: Path, f: Field, values: dict) -> Value:
    return _string_tuple(view.value(path, default_of(f.default) if f.default else None))


def _ref(kind: str | None):
    def read(view: View, path: Path, f: Field, values: dict) -> str | None:
        return view.target(path, kind)

    return read


def _refs(kind: str | None):
    def read(view: View, path: Path, f: Field, values: dict) -> tuple[str, ...]:
        return view.targets(path, kind)

    return read


def _endpoint(view: View, path: Path, f: Field, values: dict) -> str | None:
    kind = _endpoint_kind(values.get("protocol", NONE))
    return view.target(path, kind) if kind else None


def _present(view: View, path: Path, f: Field, values: dict) -> bool:
    written = view.value(path)
    return view.is_written(path) and not (isinstance(written, Known) and written.value in (None, ""))


def _redrive_full(view: View, path: Path, f: Field, values: dict) -> Value:
    return _redrive(view, path, with_count=True)


def _redrive_target(view: View, path: Path, f: Field, values: dict) -> Value:
    redrive = _redrive(view, path, with_count=False)
    if isinstance(redrive, Known) and redrive.value is not None:
        return Known(redrive.value.dlq)
    return redrive


def _policy(view: View, path: Path, f: Field, values: dict) -> Value:
    return _statements(view, path)


def _key_policy(view: View, path: Path, f: Field, values: dict) -> Value:
    # An unwritten key policy is AWS's default one, not an unknown one.
    return NONE if view.proves_absent(path) else _statements(view, path, arn_principals=True)


def _events(view: View, path: Path, f: Field, values: dict) -> Value:
    value = view.value(path)
    if isinstance(value, Known) and isinstance(value.value, str):
        return Known((value.value,), value.origin, value.detail, value.site)
    return _string_tuple(value)


def _at(kind: str):
    def read(view: View, path: Path, f: Field, values: dict) -> Value:
        return _destination_of(view, path, view.targets(path, kind))

    return read


def _destination(view: View, path: Path, f: Field, values: dict) -> Value:
    return _destination_of(view, path, view.targets(path, "queue"))


def _written(view: View, path: Path, f: Field, values: dict) -> Value:
    if view.proves_absent(path):
        return Known(False)
    return Known(True) if view.is_written(path) else Unknown("not known whether it is set")


# -- filter policies (FL006, FL007) --

def _filter_policy(view: View, path: Path, f: Field, values: dict) -> Value:
    """An SNS filter policy as a FilterShape: Known(None) when there is none, Unknown when
    the document (or its top level) is not known."""
    document = view.document(path)
    if not isinstance(document, Known):
        return document if isinstance(document, Unknown) else Unknown("a condition chooses the filter policy")
    policy = document.value
    if policy is None:
        return NONE
    if not isinstance(policy, dict):
        return Unknown("filter policy is not an object")
    combinations: int | None = 1
    nested = []
    present = []
    for key, raw in policy.items():
        if isinstance(raw, list):
            if combinations is not None:
                combinations = min(combinations * max(len(raw), 1), COMBINATIONS_CAP)
            if raw and all(_needs_attribute(view.leaf(item)) for item in raw):
                present.append(key)
            continue
        leaf = view.leaf(raw)
        if isinstance(leaf, Known) and isinstance(leaf.value, dict):
            nested.append(key)
        elif isinstance(leaf, Known) and isinstance(leaf.value, list) and combinations is not None:
            combinations = min(combinations * max(len(leaf.value), 1), COMBINATIONS_CAP)
        elif not isinstance(leaf, Known):
            combinations = None  # a value known only at deploy time: its array's length too
    shape = FilterShape(tuple(policy), combinations, tuple(nested), "$or" in policy, tuple(present))
    return Known(shape, document.origin, document.detail, _site(view, path))


# Operators of a filter policy value that match only an attribute that is there.
_PRESENCE_OPERATORS = frozenset(("prefix", "suffix", "numeric", "equals-ignore-case", "cidr", "wildcard"))


def _needs_attribute(item: Value) -> bool:
    """A value of a filter policy's array that no message without the attribute matches."""
    if not isinstance(item, Known):
        return False
    value = item.value
    if isinstance(value, bool) or value is None:
        return False  # not a documented value of an attribute policy: proves nothing
    if isinstance(value, (str, int, float)):
        return True
    if isinstance(value, dict) and len(value) == 1:
        (operator, argument), = value.items()
        return operator in _PRESENCE_OPERATORS or (operator == "exists" and argument is True)
    return False


_READERS = {
    "int": _int, "bool": _bool, "text": _text, "strings": _strings,
    "endpoint": _endpoint, "present": _present, "redrive": _redrive_full,
    "redrive_target": _redrive_target, "policy": _policy, "key_policy": _key_policy, "events": _events, "destination": _destination, "written": _written,
    "filter_policy": _filter_policy,
}
_READERS.update({f"ref:{kind}": _ref(kind) for kind in (*REFERENCED, "any")})
_READERS.update({f"refs:{kind}": _refs(kind) for kind in (*REFERENCED, "any")})
_READERS.update({f"at:{kind}": _at(kind) for kind in REFERENCED})


def _endpoint_kind(protocol: Value) -> str | None:
    if isinstance(protocol, Known) and isinstance(protocol.value, str):
        return {"sqs": "queue", "lambda": "function"}.get(protocol.value.lower())
    return None


def _string_tuple(value: Value) -> Value:
    options = candidates(value)
    if options is None:
        return value
    out: list[Value] = []
    for option in options:
        items = option.value
        if items is None:
            out.append(Known((), option.origin, option.detail, option.site))
        elif isinstance(items, (list, tuple)) and all(isinstance(v, str) for v in items):
            out.append(Known(tuple(items), option.origin, option.detail, option.site))
        else:
            return Unknown("list with unknown items")
    return choice(out)


def _redrive(view: View, path: Path, with_count: bool) -> Value:
    """Known(Redrive), Known(None) when unset, or Unknown; a condition choosing between
    policies is known only when every branch names the same queue and count."""
    document = view.document(path)
    written = view.value(path)
    loc = (written.site if isinstance(written, Known) else None) or view.loc
    options = candidates(document)
    if options is None:
        # The document is known only after apply (it holds a new queue's ARN), but the
        # configuration may show which queue it names: the redrive exists, its count is unknown.
        dlq = view.doc_target(path, None, "queue")
        if dlq is None:
            return document
        return Known(Redrive(dlq, Unknown("known after apply") if with_count else NONE, loc))
    built: dict[Any, Value] = {}
    body = view.doc_body(path) if len(options) == 1 else None
    for option in options:
        policy = option.value
        if policy is None:
            built.setdefault(None, NONE)
            continue
        if "deadLetterTargetArn" not in policy:
            return Unknown("redrive policy without deadLetterTargetArn")
        dlq = view.doc_target(path, policy["deadLetterTargetArn"], "queue")
        if dlq is None:
            return Unknown("dead-letter target not known")
        count = _max_receive_count(view, path, policy, option) if with_count else NONE
        built.setdefault((dlq, count), Known(Redrive(dlq, count, loc, body)))
    if len(built) != 1:
        return Unknown("a condition chooses the redrive policy")
    return next(iter(built.values()))


def _site(view: View, path: Path):
    """Where the setting at ``path`` is written (its span is made when asked), or None."""
    return view.site(path)


def _max_receive_count(view: View, path: Path, policy: dict, document: Known) -> Value:
    raw = policy.get("maxReceiveCount")
    if raw is None:
        return default_of("redrive.max_receive_count")
    leaf = view.leaf(raw)
    if not isinstance(leaf, Known):
        return Unknown("maxReceiveCount is not known")
    site = view.doc_site(path, "maxReceiveCount")
    # The count rests on whatever the document rests on (a variable, say).
    origin, detail = (document.origin, document.detail) if leaf.origin == "literal" else (leaf.origin, leaf.detail)
    return bounded(to_int(Known(leaf.value, origin, detail, site)), "redrive.max_receive_count")


def _statements(view: View, path: Path, arn_principals: bool = False) -> Value:
    document = view.document(path)
    if not isinstance(document, Known) or not isinstance(document.value, dict):
        return document if isinstance(document, Unknown) else Unknown("policy is not known")
    return parse_policy(document.value, view.loc, view.leaf, arn_principals,
                        lambda raw: view.doc_target(path, raw, "queue"))


# -- CloudWatch alarms on queue depth (FL106) ------------------------------------

def _depth_alarm(out: Built, view: View, alarm: DepthAlarm, linker: Linker) -> None:
    """Record the queues whose depth the alarm watches; ``ANY_QUEUE`` when it may watch a
    queue the template does not show (metric math, a value known only at deploy time)."""
    def watches(target: str) -> None:
        out.mentions.append(Mention(target, view.id, view.type, alarm.dimensions, WATCHES_DEPTH))

    watches(ANY_ALARM)
    if not view.shows_properties or not view.proves_absent((alarm.math,)):
        watches(ANY_QUEUE)
        return
    metric, namespace = view.value((alarm.metric,)), view.value((alarm.namespace,))
    if not (isinstance(metric, Known) and isinstance(namespace, Known)):
        watches(ANY_QUEUE)
        return
    if metric.value != DEPTH_METRIC or namespace.value != "AWS/SQS":
        return
    if view.written.format.vocabulary is Format.TERRAFORM:
        targets = _queue_dimension(view, alarm)
    else:
        targets = view.targets((alarm.dimensions, "Value"), "queue")  # a list of {Name, Value}
    if not targets:
        # a dimension the template writes but no queue it names: not known which queue
        if not view.proves_absent((alarm.dimensions,)):
            watches(ANY_QUEUE)
        return
    for target in targets:
        watches(ANY_QUEUE if target in linker.externals else target)


def _queue_dimension(view: View, alarm: DepthAlarm) -> tuple[str, ...]:
    """The queue a Terraform alarm's ``dimensions = { QueueName = ... }`` names."""
    dimensions = view.value((alarm.dimensions,))
    if not isinstance(dimensions, Known) or not isinstance(dimensions.value, dict):
        return ()
    raw = dimensions.value.get("QueueName")
    target = view.doc_target((alarm.dimensions,), raw, "queue") if raw is not None else None
    return (target,) if target else ()


# -- Terraform resources that change another resource --------------------------

def _queue_argument_policy(out: Built, view: View) -> None:
    """``aws_sqs_queue``'s own ``policy`` argument is a queue policy like
    ``aws_sqs_queue_policy``. Only a written one counts: the provider also fills it in
    from ``aws_sqs_queue_policy``."""
    if not view.shows_properties or not view.is_written(("policy",)) or view.document(("policy",)) == NONE:
        return
    out.nodes.append(QueuePolicy(
        id=f"{view.id}.policy", resource=view.id, loc=view.loc, type="aws_sqs_queue.policy",
        written=view.written, suppressions=view.suppressions, multi_instance=view.multi_instance,
        queues=(view.id,), statements=_statements(view, ("policy",)),
    ))


def _separate_redrive(out: Built, view: View) -> None:
    view.evaluating()
    queue = view.target(("queue_url",), "queue")
    if queue is None:
        out.unresolved_redrive = True
        return
    out.redrives[queue] = _redrive(view, ("redrive_policy",), with_count=True)


def _apply_separate_redrives(out: Built) -> list[Node]:
    if not out.redrives and not out.unresolved_redrive:
        return out.nodes  # no aws_sqs_queue_redrive_policy (no CloudFormation unit has one): as built
    queues = {node.id for node in out.nodes if isinstance(node, Queue)}
    unresolved = out.unresolved_redrive or any(queue not in queues for queue in out.redrives)
    nodes = []
    for node in out.nodes:
        if isinstance(node, Queue):
            node = _with_separate_redrive(node, out.redrives.get(node.id), unresolved)
        nodes.append(node)
    return nodes


def _with_separate_redrive(queue: Queue, separate: Value | None, unresolved: bool) -> Queue:
    unset = isinstance(queue.redrive, Known) and queue.redrive.value is None
    if separate is None:
        # A redrive policy resource whose queue we cannot tell may be this queue's.
        if unset and unresolved:
            return replace(queue, redrive=Unknown("an aws_sqs_queue_redrive_policy names a queue we cannot resolve"))
        return queue
    if unset:
        return replace(queue, redrive=separate)
    # Two settings are resolved by AWS in apply order, which we cannot know.
    return replace(queue, redrive=Unknown("redrive policy set in two places"))

