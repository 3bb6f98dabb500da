"""The logical IDs the Serverless Framework gives the resources it generates.

Verified in the Framework's source (serverless/serverless, v3 and v4 alike:
``lib/plugins/aws/lib/naming.js``, ``lib/plugins/aws/package/compile/events/sqs.js`` and
``sns.js``, ``lib/plugins/aws/package/compile/functions.js``):

- a function key is *normalized* by replacing every ``-`` with ``Dash`` and every ``_``
  with ``Underscore``, then upper-casing its first character (``send-email`` is
  ``SendDashemail``); the function is ``<Fn>LambdaFunction``;
- queue and topic names are made *alphanumeric*: every character outside ``0-9A-Za-z``
  is dropped, then the first is upper-cased (``orders-queue`` is ``Ordersqueue``);
- an ``sqs`` event is ``<Fn>EventSourceMappingSQS<Queue>``, where the queue's name is
  the first item of a ``Fn::GetAtt`` (the queue's logical ID), the value of a
  ``Fn::ImportValue``, the last item of a ``Fn::Join``'s list, or the last ``:``-separated
  part of an ARN string;
- an ``sns`` event subscribes the function as ``<Fn>SnsSubscription<Topic>`` with the
  permission ``<Fn>LambdaPermission<Topic>SNS``; the topic's name is ``topicName`` or the
  last part of the ARN; an event without ``arn`` creates the topic ``SNSTopic<Topic>``;
  a ``redrivePolicy`` adds the queue policy ``<Topic>To<Fn>DLQPolicy``;
- ``destinations`` make ``<Fn>LambdaEvConf`` (AWS::Lambda::EventInvokeConfig).

The other events (``loaders/serverless/events.py``), from the same ``naming.js``
(``getScheduleLogicalId``, ``getSchedulerScheduleLogicalId``,
``getLambdaSchedulePermissionLogicalId``, ``getEventBridgeRuleLogicalId``,
``getEventBridgeLambdaPermissionLogicalId``, ``getEventBridgeEventBusLogicalId``,
``getBucketLogicalId``, ``getLambdaS3PermissionLogicalId``, ``getStreamLogicalId``,
``getLogGroupLogicalId``, ``getRoleLogicalId``) and ``event-bridge/utils.js``
(``makeRuleName``):

- ``schedule``: ``<Fn>EventsRuleSchedule<n>`` and ``<Fn>LambdaPermissionEventsRuleSchedule<n>``,
  or ``<Fn>SchedulerSchedule<n>`` with ``method: scheduler``;
- ``eventBridge``: ``<Rule>EventBridgeRule``, where the rule is the function's deployed
  name and ``-rule-<i>`` made alphanumeric, ``<Fn>EventBridgeLambdaPermission<i>``, and
  ``<Bus>EventBridgeEventBus`` (the bus name normalized as a function key is);
- ``s3``: ``S3Bucket<Bucket>`` and ``<Fn>LambdaPermission<Bucket>S3``;
- ``stream``: ``<Fn>EventSourceMapping<Type><Stream>`` (``Dynamodb``, ``Kinesis``);
- and every service has ``<Fn>LogGroup`` per function and ``IamRoleLambdaExecution``.

Two events of a function that give the same ID are one resource, as the Framework merges
them.
"""

from __future__ import annotations

import re

_NOT_ALPHANUMERIC = re.compile(r"[^0-9A-Za-z]")


def upper_first(text: str) -> str:
    return text[:1].upper() + text[1:]


def normalized(name: str) -> str:
    """A function key as the Framework writes it inside logical IDs."""
    return upper_first(name.replace("-", "Dash").replace("_", "Underscore"))


def alphanumeric(name: str) -> str:
    """A queue or topic name as the Framework writes it inside logical IDs."""
    return upper_first(_NOT_ALPHANUMERIC.sub("", name))


def function_id(function: str) -> str:
    return f"{normalized(function)}LambdaFunction"


def invoke_config_id(function: str) -> str:
    return f"{normalized(function)}LambdaEvConf"


def sqs_mapping_id(function: str, queue: str) -> str:
    return f"{normalized(function)}EventSourceMappingSQS{alphanumeric(queue)}"


def topic_id(topic: str) -> str:
    return f"SNSTopic{alphanumeric(topic)}"


def sns_subscription_id(function: str, topic: str) -> str:
    return f"{normalized(function)}SnsSubscription{alphanumeric(topic)}"


def sns_permission_id(function: str, topic: str) -> str:
    return f"{normalized(function)}LambdaPermission{alphanumeric(topic)}SNS"


def topic_dlq_policy_id(function: str, topic: str) -> str:
    return f"{alphanumeric(topic)}To{normalized(function)}DLQPolicy"


def last_arn_part(arn: str) -> str:
    """The last ``:``-separated part of an ARN (a queue's or topic's name)."""
    return arn.split(":")[-1]


def schedule_rule_id(function: str, number: int) -> str:
    return f"{normalized(function)}EventsRuleSchedule{number}"


def schedule_permission_id(function: str, number: int) -> str:
    return f"{normalized(function)}LambdaPermissionEventsRuleSchedule{number}"


def scheduler_schedule_id(function: str, number: int) -> str:
    return f"{normalized(function)}SchedulerSchedule{number}"


def event_bridge_rule_id(function_name: str, position: int) -> str:
    """From the function's deployed name (``service-dev-report``), not its key."""
    return f"{alphanumeric(f'{function_name}-rule-{position}')}EventBridgeRule"


def event_bridge_permission_id(function: str, position: int) -> str:
    return f"{normalized(function)}EventBridgeLambdaPermission{position}"


def event_bus_id(bus: str) -> str:
    return f"{normalized(bus)}EventBridgeEventBus"


def bucket_id(bucket: str) -> str:
    return f"S3Bucket{alphanumeric(bucket)}"


def s3_permission_id(function: str, bucket: str) -> str:
    return f"{normalized(function)}LambdaPermission{alphanumeric(bucket)}S3"


def stream_mapping_id(function: str, stream_type: str, stream: str) -> str:
    return f"{normalized(function)}EventSourceMapping{upper_first(stream_type)}{alphanumeric(stream)}"


def log_group_id(function: str) -> str:
    return f"{normalized(function)}LogGroup"


ROLE_ID = "IamRoleLambdaExecution"
