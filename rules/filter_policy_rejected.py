"""## What it does
Flags an SNS subscription filter policy (`FilterPolicy`, `filter_policy`) that Amazon
SNS refuses:

- more than 5 keys;
- more than 150 combinations of values: the product of the lengths of the policy's
  value arrays, as AWS computes it;
- a nested key (a key whose value is an object) while the policy applies to message
  attributes: `FilterPolicyScope` (`filter_policy_scope`) `MessageAttributes`, which is
  the default.

Not flagged: a policy with an `$or` key for the two counts (AWS counts its branches
otherwise), a nested policy with `FilterPolicyScope: MessageBody`, and any policy the
linter cannot read.

## Why is this bad?
SNS rejects the policy when the subscription is created or updated (`Subscribe`,
`SetSubscriptionAttributes`), so the deploy fails. AWS: "A filter policy can have a
maximum of five keys"; "The total combination of values in a filter policy must not
exceed 150. To calculate the total combination, multiply the number of values in each
array in the filter policy"; and "Amazon SNS does not accept nested filter policies for
attribute-based filtering".

## How to fix
Split a policy with too many keys or combinations over several subscriptions (each with
its own queue), or move the matching into the consumer. For a nested policy, filter on
the message body: set `FilterPolicyScope: MessageBody` (`--fix --unsafe-fixes` does;
the policy then matches the body, not the attributes), or flatten the policy to the
message attributes the publishers set.

CloudFormation:

```yaml
OrdersSubscription:
  Type: AWS::SNS::Subscription
  Properties:
    TopicArn: !Ref OrdersTopic
    Protocol: sqs
    Endpoint: !GetAtt OrdersQueue.Arn
    FilterPolicyScope: MessageBody
    FilterPolicy:
      order: {status: [placed]}
```

Terraform:

```hcl
resource "aws_sns_topic_subscription" "orders" {
  topic_arn           = aws_sns_topic.orders.arn
  protocol            = "sqs"
  endpoint            = aws_sqs_queue.orders.arn
  filter_policy_scope = "MessageBody"
  filter_policy       = jsonencode({ order = { status = ["placed"] } })
}
```

## References
- https://docs.aws.amazon.com/sns/latest/dg/subscription-filter-policy-constraints.html
- https://docs.aws.amazon.com/sns/latest/dg/sns-message-filtering.html
"""

from __future__ import annotations

from fanout_lint.model.graph import Graph
from fanout_lint.model.nodes import COMBINATIONS_CAP, FilterShape, Subscription
from fanout_lint.model.values import Known, describe, verdict
from fanout_lint.model.vocabulary import how_to_set, term
from fanout_lint.rule import Applicability, Fix, Fixable, Rule, Severity, Violation

from .common import reported

MAX_KEYS = 5
MAX_COMBINATIONS = 150
ATTRIBUTES = "MessageAttributes"
BODY = "MessageBody"


def check(graph: Graph, options) -> list[Violation]:
    found = []
    for sub in graph.all(Subscription):
        shape = sub.filter_shape
        if not (isinstance(shape, Known) and isinstance(shape.value, FilterShape)):
            continue
        found.extend(_limits(sub, shape.value))
        found.extend(_nested(sub, shape.value))
    return found


def _limits(sub: Subscription, shape: FilterShape) -> list[Violation]:
    if shape.has_or:
        return []
    found = []
    policy = term(sub, "filter_shape")
    if len(shape.keys) > MAX_KEYS:
        found.append(Violation(
            at=sub,
            field="filter_shape",
            message=(
                f"{policy} of {reported(sub)} has {len(shape.keys):,} keys ({_some(shape.keys)}): SNS accepts at "
                f"most {MAX_KEYS} and refuses the policy, so the deploy fails; split it over several subscriptions "
                f"or match the rest in the consumer"
            ),
        ))
    if shape.combinations is not None and shape.combinations > MAX_COMBINATIONS:
        found.append(Violation(
            at=sub,
            field="filter_shape",
            message=(
                f"{policy} of {reported(sub)} has {_count(shape.combinations)} combinations of values (the product of "
                f"its value arrays' lengths): SNS accepts at most {MAX_COMBINATIONS} and refuses the policy, so the "
                f"deploy fails; split it over several subscriptions or match the rest in the consumer"
            ),
        ))
    return found


def _nested(sub: Subscription, shape: FilterShape) -> list[Violation]:
    if not shape.nested or verdict(lambda scope: scope == ATTRIBUTES, sub.filter_scope) is not True:
        return []
    keys = _some(shape.nested)
    return [Violation(
        at=sub,
        field="filter_shape",
        message=(
            f"{term(sub, 'filter_shape')} of {reported(sub)} nests keys under {keys} while "
            f"{term(sub, 'filter_scope')} is {describe(sub.filter_scope)}: SNS does not accept nested policies for "
            f"attribute-based filtering and refuses it, so the deploy fails; to filter on the message body, "
            f"{how_to_set(sub, 'filter_scope', BODY)}"
        ),
        # The policy then matches the body instead of the attributes: what reaches the consumer changes.
        fix=Fix("filter_scope", BODY, Applicability.UNSAFE),
    )]


def _some(keys: tuple[str, ...], shown: int = 6) -> str:
    """The first keys, for a message: a policy may hold thousands."""
    more = len(keys) - shown
    return ", ".join(keys[:shown]) + (f" and {more:,} more" if more > 0 else "")


def _count(combinations: int) -> str:
    return f"over {COMBINATIONS_CAP:,}" if combinations >= COMBINATIONS_CAP else f"{combinations:,}"


RULE = Rule(
    id="FL006",
    name="filter-policy-rejected",
    severity=Severity.ERROR,
    summary="An SNS filter policy that SNS refuses (keys, combinations, nesting)",
    check=check,
    doc=__doc__,
    fixable=Fixable.SOMETIMES,
)
