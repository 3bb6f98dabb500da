"""## What it does
Flags an SNS subscription whose filter policy applies to message attributes
(`FilterPolicyScope` `MessageAttributes`, the default) on a topic whose only publishers
in the run are S3 event notifications and EventBridge rule targets, when the policy
has a key that matches only a message carrying that attribute (a string, a number,
`prefix`, `suffix`, `numeric`, `exists: true`, ...).

Not flagged, since another publisher may set attributes: a topic that is exported (an
`Outputs` entry with an `Export`, a Terraform `output`, an SSM parameter holding its
ARN), that a resource the graph does not model names (a CloudWatch alarm, a Budget, ...),
that an EventBridge Scheduler schedule, a function's dead-letter queue or destination, or
a mapping's on-failure destination publishes to, that stands for several instances, or
that has no publisher in the run at all; a policy on the message body; a key whose
values also match a missing attribute (`anything-but`, `exists: false`); and anything
the linter cannot read. A function that publishes to the topic from its code is not
seen: suppress the finding on the subscription if one does.

## Why is this bad?
S3 and EventBridge publish to SNS without message attributes (an EventBridge target
has no setting for them), and an attribute policy compares its keys with the message's
attributes: AWS "compares policy properties only to message attributes". A policy that requires an attribute no message has filters out every message: the
subscription is accepted, the queue or function behind it never receives anything, and
nothing reports it. (Derived from the publishers' documented message formats.)

## How to fix
Filter on what the publisher does send: set `FilterPolicyScope: MessageBody` and write
the policy against the event's JSON (the S3 event record, the EventBridge event), or
filter in the EventBridge rule's event pattern or the S3 notification's prefix and
suffix, and subscribe without a filter policy.

CloudFormation:

```yaml
UploadsSubscription:
  Type: AWS::SNS::Subscription
  Properties:
    TopicArn: !Ref UploadsTopic
    Protocol: sqs
    Endpoint: !GetAtt ImagesQueue.Arn
    FilterPolicyScope: MessageBody
    FilterPolicy:
      Records:
        eventName: [{prefix: "ObjectCreated:"}]
```

Terraform:

```hcl
resource "aws_sns_topic_subscription" "uploads" {
  topic_arn           = aws_sns_topic.uploads.arn
  protocol            = "sqs"
  endpoint            = aws_sqs_queue.images.arn
  filter_policy_scope = "MessageBody"
  filter_policy       = jsonencode({ Records = { eventName = [{ prefix = "ObjectCreated:" }] } })
}
```

## References
- https://docs.aws.amazon.com/sns/latest/dg/sns-message-filtering.html
- https://docs.aws.amazon.com/sns/latest/dg/subscription-filter-policy-constraints.html
- https://docs.aws.amazon.com/AmazonS3/latest/userguide/notification-content-structure.html
- https://github.com/aws-cloudformation/cloudformation-coverage-roadmap/issues/2485
"""

from __future__ import annotations

from fanout_lint.model.graph import Graph
from fanout_lint.model.nodes import EventTarget, FilterShape, InvokeConfig, Subscription, Topic
from fanout_lint.model.permissions import EVENTS, S3
from fanout_lint.model.values import Known, describe, verdict
from fanout_lint.model.vocabulary import term
from fanout_lint.rule import Rule, Severity, Violation

from .common import SENDERS, reported

ATTRIBUTES = "MessageAttributes"
# The services that publish to a topic without message attributes.
NO_ATTRIBUTES = (S3, EVENTS)


def check(graph: Graph, options) -> list[Violation]:
    hidden = _published_unseen(graph)
    if hidden is None:
        return []
    found = []
    for sub in graph.all(Subscription):
        shape = sub.filter_shape
        if not (isinstance(shape, Known) and isinstance(shape.value, FilterShape)) or not shape.value.present_keys:
            continue
        if verdict(lambda scope: scope == ATTRIBUTES, sub.filter_scope) is not True:
            continue
        topic = graph.get(sub.topic)
        if not isinstance(topic, Topic) or topic.id in hidden:
            continue
        senders = _senders_only(graph, topic)
        if not senders:
            continue
        present = shape.value.present_keys
        keys = ", ".join(present[:6]) + (f" and {len(present) - 6:,} more" if len(present) > 6 else "")
        names = ", ".join(dict.fromkeys(f"{SENDERS[d.service]} ({d.sender.resource})" for d in senders))
        found.append(Violation(
            at=sub,
            field="filter_shape",
            message=(
                f"{term(sub, 'filter_shape')} of {reported(sub)} matches message attributes ({keys}) while "
                f"{term(sub, 'filter_scope')} is {describe(sub.filter_scope)}, but the only publishers of topic "
                f"{topic.resource} are {names}, which set no message attributes: every message is filtered out; "
                f"set {term(sub, 'filter_scope')} to MessageBody and match the event's JSON, or filter at the source"
            ),
            related=((topic, "topic"),) + tuple((d.sender, "publisher") for d in senders),
        ))
    return found


def _published_unseen(graph: Graph) -> frozenset[str] | None:
    """Topics a publisher that may set attributes is shown to publish to, beyond the
    deliveries (schedules, on-success destinations); None when an on-success destination
    the linter cannot read may be any topic."""
    topics = {t.target for t in graph.all(EventTarget) if t.scheduler and t.target}
    for config in graph.all(InvokeConfig):
        if not isinstance(config.on_success, Known):
            return None
        if config.on_success.value:
            topics.add(config.on_success.value)
    return frozenset(topics)


def _senders_only(graph: Graph, topic: Topic) -> list:
    """The S3 and EventBridge deliveries to the topic, when they are all its publishers in
    the run and nothing else (an export, a mention, a dead-letter use) may publish; else none."""
    if topic.exported or topic.multi_instance or graph.mentions_of(topic.id) or graph.dead_letter_uses(topic.id):
        return []
    deliveries = graph.deliveries_to(topic.id)
    if not deliveries or any(d.service not in NO_ATTRIBUTES or d.dead_letter for d in deliveries):
        return []
    return deliveries


RULE = Rule(
    id="FL007",
    name="filter-policy-never-matches",
    severity=Severity.WARNING,
    summary="An attribute filter policy on a topic whose publishers set no attributes",
    check=check,
    doc=__doc__,
)
