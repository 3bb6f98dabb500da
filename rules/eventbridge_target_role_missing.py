"""## What it does
Flags an EventBridge rule target that EventBridge can reach only through an execution
role, written without one (`RoleArn` of the rule's `Targets` entry, `role_arn` of an
`aws_cloudwatch_event_target`): a Step Functions state machine, a Kinesis data stream, a
Firehose delivery stream, an ECS cluster (an ECS task target), a Batch job queue, or an API
destination. The target's service must be proven: by a literal ARN
(`arn:aws:states:...:stateMachine:...`, `arn:aws:kinesis:...:stream/...`,
`arn:aws:firehose:...:deliverystream/...`, `arn:aws:ecs:...:cluster/...`,
`arn:aws:batch:...:job-queue/...`, `arn:aws:events:...:api-destination/...`) or by a
reference to a resource of that type in the template.

Also flags an EventBridge pipe (`AWS::Pipes::Pipe`, `aws_pipes_pipe`) that invokes a
Standard state machine of the template synchronously: its
`TargetParameters.StepFunctionStateMachineParameters.InvocationType`
(`target_parameters.step_function_state_machine_parameters.invocation_type`) is
`REQUEST_RESPONSE`, which is also the default. The state machine is Standard unless its
`StateMachineType` (`type`) says `EXPRESS`.

SQS, SNS, Lambda and CloudWatch Logs targets without a role are valid (EventBridge uses
their resource policies) and stay silent. So does a target in another account's event
bus: EventBridge needs a role there only when that account granted access through an
organization, which the template does not show.

## Why is this bad?
For these targets EventBridge uses identity-based permissions, not a resource policy:
AWS documents that Kinesis streams, Step Functions state machines, ECS tasks, Batch jobs
and API destinations are invoked with the IAM role the target names (the role needs, for
example, `states:StartExecution` or `kinesis:PutRecord`). A target with no role gives
EventBridge nothing to invoke it with, so no event the rule matches reaches it.

A pipe cannot invoke a Standard workflow synchronously: the Pipes reference says
`REQUEST_RESPONSE` (the default) is not supported for Standard workflows, and the Pipes
error-handling guide that such a target must be invoked asynchronously, since Pipes cannot
retry the errors its workflow raises.

## How to fix
Give the target a role that EventBridge (`events.amazonaws.com`) may assume and that may
invoke the target, or, for a pipe, invoke the Standard workflow with `FIRE_AND_FORGET`
(or make the state machine `EXPRESS`, if a synchronous result is what you need).

CloudFormation:

```yaml
OrdersRule:
  Type: AWS::Events::Rule
  Properties:
    EventPattern: {source: [shop.orders]}
    Targets:
      - Id: workflow
        Arn: !Ref OrdersWorkflow
        RoleArn: !GetAtt OrdersRuleRole.Arn
OrdersPipe:
  Type: AWS::Pipes::Pipe
  Properties:
    RoleArn: !GetAtt OrdersPipeRole.Arn
    Source: !GetAtt OrdersQueue.Arn
    Target: !Ref OrdersWorkflow
    TargetParameters:
      StepFunctionStateMachineParameters:
        InvocationType: FIRE_AND_FORGET
```

Terraform:

```hcl
resource "aws_cloudwatch_event_target" "workflow" {
  rule     = aws_cloudwatch_event_rule.orders.name
  arn      = aws_sfn_state_machine.orders.arn
  role_arn = aws_iam_role.orders_rule.arn
}

resource "aws_pipes_pipe" "orders" {
  role_arn = aws_iam_role.orders_pipe.arn
  source   = aws_sqs_queue.orders.arn
  target   = aws_sfn_state_machine.orders.arn
  target_parameters {
    step_function_state_machine_parameters {
      invocation_type = "FIRE_AND_FORGET"
    }
  }
}
```

## References
- https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-use-resource-based.html
- https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-events-iam-roles.html
- https://docs.aws.amazon.com/eventbridge/latest/APIReference/API_PutTargets.html
- https://docs.aws.amazon.com/eventbridge/latest/APIReference/API_Target.html
- https://docs.aws.amazon.com/eventbridge/latest/pipes-reference/API_PipeTargetStateMachineParameters.html
- https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-pipes-error-troubleshooting.html
"""

from __future__ import annotations

from fanout_lint.model.graph import Graph
from fanout_lint.model.nodes import EventTarget, External, Node, Pipe, RoleTarget, Stream
from fanout_lint.model.values import describe, verdict
from fanout_lint.model.vocabulary import term
from fanout_lint.rule import Rule, Severity, Violation

from .common import named, source_name

# The services EventBridge reaches only with a role, as their ARNs name them:
# (service, the resource part's prefix) -> how a message names the target
NEEDS_ROLE = {
    ("states", "stateMachine:"): "Step Functions state machine",
    ("kinesis", "stream/"): "Kinesis data stream",
    ("firehose", "deliverystream/"): "Firehose delivery stream",
    ("ecs", "cluster/"): "ECS cluster",
    ("batch", "job-queue/"): "Batch job queue",
    ("events", "api-destination/"): "API destination",
}
BY_SERVICE = {"states": "Step Functions state machine", "firehose": "Firehose delivery stream",
              "ecs": "ECS cluster", "batch": "Batch job queue", "api-destination": "API destination"}


def check(graph: Graph, options) -> list[Violation]:
    found = []
    for target in graph.all(EventTarget):
        if target.scheduler:
            continue  # a schedule's role is required by its own schema
        destination = graph.get(target.target)
        service = role_only_service(destination)
        if service is None or verdict(lambda role: role is None, target.role) is not True:
            continue
        found.append(Violation(
            at=target,
            field="role",
            message=(
                f"{source_name(target)} delivers to {service} {named(destination)} without "
                f"{term(target, 'role')}: EventBridge invokes this kind of target only with an IAM role, never "
                f"through a resource policy, so no event reaches it; set {term(target, 'role')} to a role "
                f"events.amazonaws.com may assume that may invoke the target"
            ),
            related=((destination, "target"),),
        ))
    for pipe in graph.all(Pipe):
        machine = graph.get(pipe.target)
        if not isinstance(machine, RoleTarget) or machine.service != "states":
            continue
        standard = verdict(lambda t: isinstance(t, str) and t.upper() == "STANDARD", machine.machine_type)
        synchronous = verdict(lambda t: isinstance(t, str) and t.upper() == "REQUEST_RESPONSE", pipe.invocation_type)
        if standard is not True or synchronous is not True:
            continue
        found.append(Violation(
            at=pipe,
            field="invocation_type",
            message=(
                f"Pipe {pipe.resource} invokes Standard state machine {machine.resource} synchronously "
                f"({term(pipe, 'invocation_type')} {describe(pipe.invocation_type)}): Step Functions runs only "
                f"Express workflows synchronously, and Pipes cannot retry a Standard workflow's errors; set "
                f"{term(pipe, 'invocation_type')} to FIRE_AND_FORGET"
            ),
            related=((machine, "target"),),
        ))
    return found


def role_only_service(node: Node | None) -> str | None:
    """How a message names the target when EventBridge reaches it only with a role, proven by
    its resource type or its literal ARN; None for any other target or an unknown one."""
    if isinstance(node, RoleTarget):
        return BY_SERVICE.get(node.service)
    if isinstance(node, Stream):
        return "Kinesis data stream" if node.service == "kinesis" and node.type in (
            "AWS::Kinesis::Stream", "aws_kinesis_stream") else None
    if isinstance(node, External):
        parts = node.label.split(":", 5)
        if len(parts) == 6 and parts[0] == "arn":
            for (service, prefix), name in NEEDS_ROLE.items():
                if parts[2] == service and parts[5].startswith(prefix):
                    return name
    return None


RULE = Rule(
    id="FL406",
    name="eventbridge-target-role-missing",
    severity=Severity.ERROR,
    summary="A role-only EventBridge target has no RoleArn, or a pipe calls Standard sync",
    check=check,
    doc=__doc__,
)
