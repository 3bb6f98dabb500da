"""## What it does
Flags a consumed queue that has no redrive policy of its own while the SNS subscription
feeding it has one. It replaces `missing-dlq` for that queue.

## Why is this bad?
The two dead-letter queues catch different failures. The subscription's DLQ holds what
SNS could not *deliver to the queue* (a broken queue policy, a deleted queue). The
queue's redrive policy holds what the *consumer* could not process: bugs and poison
messages, which are most failures. With only the subscription DLQ you have a DLQ that
never receives anything and a false sense of safety.

## How to fix
Add a redrive policy to the queue itself (CloudFormation: `RedrivePolicy` on the
`AWS::SQS::Queue`; Terraform: `redrive_policy` on the `aws_sqs_queue`), pointing at its
own dead-letter queue, with a
`maxReceiveCount` of 3 to 5 (see `missing-dlq` for both forms). Keep the subscription
DLQ too if you want delivery failures, but it does not replace the queue's.

## References
- https://docs.aws.amazon.com/sns/latest/dg/sns-dead-letter-queues.html
- https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-dead-letter-queues.html
"""

from __future__ import annotations

from fanout_lint.model.graph import Graph
from fanout_lint.model.nodes import Queue
from fanout_lint.rule import Rule, Severity, Violation

from .common import add_redrive, queue_without_dlq, subscription_dlqs


def check(graph: Graph, options) -> list[Violation]:
    found = []
    for queue in graph.all(Queue):
        subs = subscription_dlqs(graph, queue)
        if not subs or not queue_without_dlq(graph, queue):
            continue
        related = []
        for sub in subs:
            related.append((sub, "subscription"))
            dlq = graph.get(sub.redrive_dlq.value)
            if dlq is not None:
                related.append((dlq, "subscription DLQ"))
        names = ", ".join(s.resource for s in subs)
        found.append(Violation(
            at=queue,
            message=(
                f"Queue {queue.resource} has no redrive policy; only its subscription ({names}) "
                f"has a DLQ, which catches delivery failures, never the consumer's; {add_redrive(queue)}"
            ),
            related=tuple(related),
        ))
    return found


RULE = Rule(
    id="FL102",
    name="dlq-only-on-subscription",
    severity=Severity.ERROR,
    summary="Only the SNS subscription has a DLQ; the consumed queue has none",
    check=check,
    doc=__doc__,
)
