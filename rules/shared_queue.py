"""## What it does
Flags a queue that is the event source of two or more event source mappings (SAM `SQS`
events included) targeting different functions, or that an EventBridge pipe
(`AWS::Pipes::Pipe`, `aws_pipes_pipe`) reads beside another consumer. Disabled mappings,
stopped pipes (`DesiredState: STOPPED`), and consumers whose CloudFormation `Condition`s
differ (a Prod and a Dev consumer), do not count together.

## Why is this bad?
In a queue, each message is received by one consumer only. Two functions reading the
same queue do not each get every message: they split them. The fan-out you meant to
build silently becomes load balancing, and each consumer misses about half the events. An EventBridge pipe polls its queue the
same way, and deletes each batch once its target has taken it.

A mapping with `FilterCriteria` on a shared queue makes it worse: Lambda discards a
record no filter matches, and for a queue that means deleting the message, which the
other consumer then never receives. Filters do not split a queue between consumers; the
finding names the mappings that have them.

## How to fix
Give every consumer its own queue, subscribed to the topic, with its own dead-letter
queue: one topic, N subscriptions, N queues, N functions. In CloudFormation that is one
`AWS::SNS::Subscription`, `AWS::SQS::Queue` (with a `RedrivePolicy`) and
`AWS::Lambda::EventSourceMapping` per function; in Terraform one
`aws_sns_topic_subscription`, `aws_sqs_queue` (with a `redrive_policy`) and
`aws_lambda_event_source_mapping` per function (see `sns-to-lambda-direct` for both forms).
Where each consumer wants only some messages, filter on the subscription (an SNS filter
policy), not on the mapping.

## References
- https://docs.aws.amazon.com/sns/latest/dg/sns-common-scenarios.html
- https://docs.aws.amazon.com/lambda/latest/dg/with-sqs.html
- https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-pipes-sqs.html
- https://docs.aws.amazon.com/lambda/latest/dg/invocation-eventfiltering.html
"""

from __future__ import annotations

from fanout_lint.model.graph import Graph
from fanout_lint.model.nodes import EventSourceMapping, Function, Pipe, Queue
from fanout_lint.model.values import is_false, verdict
from fanout_lint.model.vocabulary import term
from fanout_lint.rule import Rule, Severity, Violation

from .common import is_stopped


def check(graph: Graph, options) -> list[Violation]:
    found = []
    for queue in graph.all(Queue):
        if queue.multi_instance:
            continue  # q["a"] and q["b"] are one node but two queues
        consumers = _sharing(graph, queue)
        if len(consumers) < 2:
            continue
        related = []
        for consumer, via in consumers.values():
            if via is not None:
                related.append((via, "event source mapping"))
            related.append((consumer, "consumer"))
        found.append(Violation(
            at=queue,
            message=(
                f"Queue {queue.resource} is read by {_readers(consumers)}: "
                "each message reaches only one of them; give each consumer its own queue "
                f"subscribed to the topic{_filtered(consumers)}"
            ),
            related=tuple(related),
        ))
    return found


def _readers(consumers: dict[str, tuple]) -> str:
    """``2 functions (A, B)``; with an EventBridge pipe among them, ``2 consumers (function A, pipe P)``."""
    if all(isinstance(consumer, Function) for consumer, _ in consumers.values()):
        return f"{len(consumers)} functions ({', '.join(sorted(consumers))})"
    names = sorted(f"{'pipe' if isinstance(consumer, Pipe) else 'function'} {consumer.resource}"
                   for consumer, _ in consumers.values())
    return f"{len(consumers)} consumers ({', '.join(names)})"


def _filtered(consumers: dict[str, tuple]) -> str:
    """What the mappings with ``FilterCriteria`` do to the others' messages, or ""."""
    filtering = sorted((via for _, via in consumers.values()
                        if isinstance(via, EventSourceMapping) and verdict(bool, via.filter_criteria) is True),
                       key=lambda mapping: mapping.resource)
    if not filtering:
        return ""
    names = ", ".join(mapping.resource for mapping in filtering)
    has = "has" if len(filtering) == 1 else "have"
    return (f"; {names} {has} {term(filtering[0], 'filter_criteria')}: Lambda deletes from the queue every "
            "message a filter leaves out, the other consumers' included, so filters cannot split one queue "
            "between consumers")


def _sharing(graph: Graph, queue: Queue) -> dict[str, tuple]:
    """The consumers that provably read the queue together, by id: each function with its
    mapping, each EventBridge pipe (with None) that is not stopped.

    A mapping or pipe with a CloudFormation Condition exists only when it holds: it shares the
    queue with the unconditional ones and with those under the same condition, never
    provably with those under another (Prod and Dev consumers of one queue).
    """
    by_condition: dict[str | None, dict[str, tuple]] = {None: {}}
    for mapping in graph.consumers_of(queue.id):
        if is_false(mapping.enabled):
            continue
        function = graph.function(mapping.function)
        if function is not None:
            by_condition.setdefault(mapping.condition, {}).setdefault(function.id, (function, mapping))
    for pipe in graph.pipes_reading(queue.id):
        if not is_stopped(pipe):
            by_condition.setdefault(pipe.condition, {}).setdefault(pipe.id, (pipe, None))
    best = by_condition[None]
    for condition, functions in by_condition.items():
        together = {**by_condition[None], **functions} if condition else functions
        if len(together) > len(best):
            best = together
    return best


RULE = Rule(
    id="FL201",
    name="shared-queue",
    severity=Severity.ERROR,
    summary="One queue is read by several functions, so fan-out becomes load balancing",
    check=check,
    doc=__doc__,
)
