"""How CloudFormation and SAM templates become graph nodes and edges."""

from __future__ import annotations

import textwrap

from fanout_lint.loaders.cloudformation.loader import load_template
from fanout_lint.loaders.parsing.yaml_source import parse_json, parse_yaml
from fanout_lint.model.nodes import EventSourceMapping, External, Function, LambdaPermission, Queue, QueuePolicy, Subscription
from fanout_lint.model.values import Known, Unknown


def graph_of(text: str, name: str = "t.yaml"):
    return load_template(parse_yaml(textwrap.dedent(text), name), name)


def test_references_resolve_through_ref_getatt_sub_and_literal_names():
    graph = graph_of("""
        Resources:
          Topic: {Type: AWS::SNS::Topic, Properties: {TopicName: orders}}
          Q: {Type: AWS::SQS::Queue, Properties: {QueueName: jobs}}
          Fn: {Type: AWS::Lambda::Function, Properties: {FunctionName: worker}}
          S1: {Type: AWS::SNS::Subscription, Properties: {TopicArn: !Sub "${Topic}", Protocol: sqs, Endpoint: !Sub "arn:aws:sqs:${AWS::Region}:${AWS::AccountId}:${Q.QueueName}"}}
          S2: {Type: AWS::SNS::Subscription, Properties: {TopicArn: "arn:aws:sns:us-east-1:123456789012:orders", Protocol: sqs, Endpoint: "arn:aws:sqs:us-east-1:123456789012:jobs"}}
          M1: {Type: AWS::Lambda::EventSourceMapping, Properties: {EventSourceArn: !GetAtt Q.Arn, FunctionName: worker}}
          M2: {Type: AWS::Lambda::EventSourceMapping, Properties: {EventSourceArn: "arn:aws:sqs:eu-west-1:1:jobs", FunctionName: "arn:aws:lambda:eu-west-1:1:function:worker:live"}}
          P: {Type: AWS::SQS::QueuePolicy, Properties: {Queues: ["https://sqs.eu-west-1.amazonaws.com/1/jobs"], PolicyDocument: {Statement: []}}}
    """)
    s1, s2 = graph.get("S1"), graph.get("S2")
    assert (s1.topic, s1.endpoint) == ("Topic", "Q")
    assert (s2.topic, s2.endpoint) == ("Topic", "Q")
    assert [(m.source, m.function) for m in graph.all(EventSourceMapping)] == [("Q", "Fn"), ("Q", "Fn")]
    assert graph.get("P").queues == ("Q",)


def test_arns_names_and_urls_written_with_pseudo_parameters_match_resources():
    graph = graph_of("""
        Resources:
          Q: {Type: AWS::SQS::Queue, Properties: {QueueName: !Sub "${AWS::StackName}-jobs"}}
          DLQ: {Type: AWS::SQS::Queue, Properties: {QueueName: jobs-dlq}}
          Src:
            Type: AWS::SQS::Queue
            Properties:
              RedrivePolicy:
                deadLetterTargetArn: !Sub "arn:${AWS::Partition}:sqs:${AWS::Region}:${AWS::AccountId}:jobs-dlq"
          M: {Type: AWS::Lambda::EventSourceMapping, Properties: {EventSourceArn: !Sub "arn:aws:sqs:${AWS::Region}:${AWS::AccountId}:${AWS::StackName}-jobs", FunctionName: f}}
          P: {Type: AWS::SQS::QueuePolicy, Properties: {Queues: [!Sub "https://sqs.${AWS::Region}.${AWS::URLSuffix}/${AWS::AccountId}/jobs-dlq"], PolicyDocument: {Statement: []}}}
          Other: {Type: AWS::Lambda::EventSourceMapping, Properties: {EventSourceArn: !Sub "arn:aws:sqs:${AWS::Region}:${AWS::AccountId}:${Env}-jobs", FunctionName: f}}
    """)
    assert graph.redrive_of(graph.get("Src")).dlq == "DLQ"
    assert graph.get("M").source == "Q"
    assert graph.get("P").queues == ("DLQ",)
    assert graph.is_external(graph.get("Other").source)


def test_outside_references_become_external_nodes():
    graph = graph_of("""
        Parameters:
          TopicArn: {Type: String}
        Resources:
          Q: {Type: AWS::SQS::Queue}
          S1: {Type: AWS::SNS::Subscription, Properties: {TopicArn: !ImportValue orders-topic, Protocol: sqs, Endpoint: !GetAtt Q.Arn}}
          S2: {Type: AWS::SNS::Subscription, Properties: {TopicArn: !Ref TopicArn, Protocol: sqs, Endpoint: !GetAtt Q.Arn}}
    """)
    assert isinstance(graph.get(graph.get("S1").topic), External)
    assert graph.get(graph.get("S1").topic).label == "import orders-topic"
    assert graph.get(graph.get("S2").topic).label == "parameter TopicArn"


def test_absent_properties_take_aws_defaults_and_parameters_say_so():
    graph = graph_of("""
        Parameters:
          Vt: {Type: Number, Default: "45"}
          Unknown: {Type: Number}
        Resources:
          A: {Type: AWS::SQS::Queue}
          B: {Type: AWS::SQS::Queue, Properties: {VisibilityTimeout: !Ref Vt}}
          C: {Type: AWS::SQS::Queue, Properties: {VisibilityTimeout: !Ref Unknown}}
          D: {Type: AWS::SQS::Queue, Properties: {VisibilityTimeout: !Ref "AWS::NoValue"}}
          F: {Type: AWS::Lambda::Function}
    """)
    assert graph.get("A").visibility_timeout == Known(30, "default")
    assert graph.get("A").message_retention == Known(345_600, "default")
    assert graph.get("B").visibility_timeout == Known(45, "parameter", "Vt")
    assert isinstance(graph.get("C").visibility_timeout, Unknown)
    assert graph.get("D").visibility_timeout == Known(30, "default")
    assert graph.get("F").timeout == Known(3, "default")


def test_redrive_policy_forms():
    graph = graph_of("""
        Parameters:
          Json: {Type: String}
        Resources:
          DLQ: {Type: AWS::SQS::Queue}
          Obj: {Type: AWS::SQS::Queue, Properties: {RedrivePolicy: {deadLetterTargetArn: !GetAtt DLQ.Arn, maxReceiveCount: "4"}}}
          Str: {Type: AWS::SQS::Queue, Properties: {RedrivePolicy: '{"deadLetterTargetArn": "arn:aws:sqs:x:1:dlq-name"}'}}
          Sub: {Type: AWS::SQS::Queue, Properties: {RedrivePolicy: !Sub '{"deadLetterTargetArn": "${DLQ.Arn}", "maxReceiveCount": 7}'}}
          Unk: {Type: AWS::SQS::Queue, Properties: {RedrivePolicy: !Ref Json}}
          DLQ2: {Type: AWS::SQS::Queue, Properties: {QueueName: dlq-name}}
    """)
    assert graph.redrive_of(graph.get("Obj")).dlq == "DLQ"
    assert graph.redrive_of(graph.get("Obj")).max_receive_count == Known(4)
    assert graph.redrive_of(graph.get("Str")).dlq == "DLQ2"
    assert graph.redrive_of(graph.get("Str")).max_receive_count == Known(10, "default")
    assert graph.redrive_of(graph.get("Sub")).dlq == "DLQ"
    assert graph.redrive_of(graph.get("Sub")).max_receive_count == Known(7)
    assert isinstance(graph.get("Unk").redrive, Unknown)
    assert [q.id for q in graph.sources_of("DLQ")] == ["Obj", "Sub"]


def test_redrive_policy_json_strings_built_with_a_variable_map_or_join():
    graph = graph_of("""
        Resources:
          DLQ: {Type: AWS::SQS::Queue}
          SubMap:
            Type: AWS::SQS::Queue
            Properties:
              RedrivePolicy: !Sub
                - '{"deadLetterTargetArn": "${DlqArn}", "maxReceiveCount": 4}'
                - DlqArn: !GetAtt DLQ.Arn
          Join:
            Type: AWS::SQS::Queue
            Properties:
              RedrivePolicy: !Join ["", ['{"deadLetterTargetArn": "', !GetAtt DLQ.Arn, '", "maxReceiveCount": 6}']]
          JoinArn:
            Type: AWS::SQS::Queue
            Properties:
              RedrivePolicy: !Join ["", ['{"deadLetterTargetArn": "arn:aws:sqs:', !Ref "AWS::Region", ':', !Ref "AWS::AccountId", ':x"}']]
    """)
    assert graph.redrive_of(graph.get("SubMap")).dlq == "DLQ"
    assert graph.redrive_of(graph.get("SubMap")).max_receive_count == Known(4)
    assert graph.redrive_of(graph.get("Join")).dlq == "DLQ"
    assert graph.redrive_of(graph.get("Join")).max_receive_count == Known(6)
    assert graph.is_external(graph.redrive_of(graph.get("JoinArn")).dlq)
    assert [q.id for q in graph.sources_of("DLQ")] == ["SubMap", "Join"]


def test_properties_the_template_does_not_show_are_unknown_not_absent():
    # An include or a condition in place of the whole Properties hides every property:
    # the AWS defaults must not stand in for them.
    graph = graph_of("""
        Conditions:
          Prod: !Equals [!Ref "AWS::Region", us-east-1]
        Resources:
          Included:
            Type: AWS::SQS::Queue
            Properties:
              Fn::Transform: {Name: AWS::Include, Parameters: {Location: s3://b/queue.yaml}}
          Chosen:
            Type: AWS::SQS::Queue
            Properties: !If [Prod, {VisibilityTimeout: 60}, {VisibilityTimeout: 90}]
          Fn:
            Type: AWS::Lambda::Function
            Properties:
              Fn::Transform: {Name: AWS::Include, Parameters: {Location: s3://b/fn.yaml}}
          Policy:
            Type: AWS::SQS::QueuePolicy
            Properties: !If [Prod, {Queues: [!Ref Included], PolicyDocument: {Statement: []}}, !Ref "AWS::NoValue"]
          Empty:
            Type: AWS::SQS::Queue
            Properties:
    """)
    for queue_id in ("Included", "Chosen"):
        queue = graph.get(queue_id)
        assert isinstance(queue, Queue)
        assert isinstance(queue.visibility_timeout, Unknown)
        assert isinstance(queue.redrive, Unknown)
    assert isinstance(graph.get("Fn").timeout, Unknown)
    assert isinstance(graph.get("Policy").statements, Unknown)
    assert graph.get("Empty").visibility_timeout == Known(30, "default")
    sam = graph_of("""
        Transform: AWS::Serverless-2016-10-31
        Globals: {Function: {Timeout: 5}}
        Resources:
          Fn:
            Type: AWS::Serverless::Function
            Properties:
              Fn::Transform: {Name: AWS::Include, Parameters: {Location: s3://b/fn.yaml}}
    """)
    assert isinstance(sam.get("Fn").timeout, Unknown)


def test_inline_topic_subscriptions_are_reported_on_the_topic_at_their_item():
    graph = graph_of("""
        Resources:
          Topic:
            Type: AWS::SNS::Topic
            Properties:
              Subscription:
                - {Protocol: email, Endpoint: a@example.com}
                - Protocol: lambda
                  Endpoint: !GetAtt Fn.Arn
          Fn: {Type: AWS::Lambda::Function}
    """)
    subs = graph.all(Subscription)
    assert [s.id for s in subs] == ["Topic.Subscription[0]", "Topic.Subscription[1]"]
    assert all(s.resource == "Topic" and s.inline for s in subs)
    assert subs[1].endpoint == "Fn" and subs[1].loc.line == 8


def test_sam_generates_the_translator_resources_under_its_logical_ids():
    graph = graph_of("""
        Transform: AWS::Serverless-2016-10-31
        Globals:
          Function: {Timeout: 60}
        Resources:
          Topic: {Type: AWS::SNS::Topic, Properties: {FifoTopic: true}}
          Fn:
            Type: AWS::Serverless::Function
            Properties:
              Events:
                Direct: {Type: SNS, Properties: {Topic: !Ref Topic}}
                Queued: {Type: SNS, Properties: {Topic: !Ref Topic, SqsSubscription: true}}
                Existing:
                  Type: SNS
                  Properties:
                    Topic: !Ref Topic
                    SqsSubscription: {QueueArn: !GetAtt Q.Arn, QueueUrl: !Ref Q, QueuePolicyLogicalId: MyPolicy}
          Q: {Type: AWS::SQS::Queue}
    """)
    ids = {n.id for n in graph.nodes()}
    assert {"FnDirect", "FnDirectPermission", "FnQueued", "FnQueuedQueue", "FnQueuedQueuePolicy",
            "FnQueuedEventSourceMapping", "FnExisting", "MyPolicy", "FnExistingEventSourceMapping"} <= ids
    assert "FnExistingQueue" not in ids
    assert graph.get("Fn").timeout == Known(60)
    generated = graph.get("FnQueuedQueue")
    assert isinstance(generated, Queue) and generated.fifo == Known(True)  # FIFO topic by Ref
    assert generated.loc.line == 12 and generated.written.transform
    assert graph.get("FnExistingEventSourceMapping").source == "Q"
    assert graph.get("MyPolicy").queues == ("Q",)
    permission = graph.get("FnDirectPermission")
    assert isinstance(permission, LambdaPermission) and permission.principal == Known("sns.amazonaws.com")
    policy = graph.get("FnQueuedQueuePolicy")
    assert isinstance(policy, QueuePolicy)
    statement = policy.statements.value[0]
    assert statement.principals == ("*",) and "aws:sourcearn" in statement.condition_keys


def test_sam_scheduled_and_eventbridge_events_name_their_dead_letter_queues():
    graph = graph_of("""
        Transform: AWS::Serverless-2016-10-31
        Resources:
          A: {Type: AWS::SQS::Queue}
          B: {Type: AWS::SQS::Queue}
          C: {Type: AWS::SQS::Queue}
          Fn:
            Type: AWS::Serverless::Function
            Properties:
              Events:
                Tick: {Type: Schedule, Properties: {Schedule: rate(1 hour), DeadLetterConfig: {Arn: !GetAtt A.Arn}}}
                Tock: {Type: ScheduleV2, Properties: {ScheduleExpression: rate(1 hour), DeadLetterConfig: {Arn: !GetAtt B.Arn}}}
                Bus: {Type: EventBridgeRule, Properties: {Pattern: {source: [x]}, DeadLetterConfig: {Arn: !GetAtt C.Arn}}}
    """)
    assert all(graph.is_dead_letter_target(q) for q in "ABC")
    # a rule's target is a node of its own, reported on its rule; a schedule is its own target
    users = {graph.get(u.user) for q in "ABC" for u in graph.dead_letter_uses(q)}
    assert {u.id for u in users} == {"FnTick.Targets[0]", "FnTock", "FnBus.Targets[0]"}
    assert {u.resource for u in users} == {"FnTick", "FnTock", "FnBus"}


def test_sam_connectors_grant_queue_and_function_access():
    graph = graph_of("""
        Transform: AWS::Serverless-2016-10-31
        Resources:
          Topic:
            Type: AWS::SNS::Topic
            Connectors:
              ToQueue: {Properties: {Destination: {Id: Q}, Permissions: [Write]}}
          Q: {Type: AWS::SQS::Queue}
          Fn: {Type: AWS::Serverless::Function}
          Conn:
            Type: AWS::Serverless::Connector
            Properties: {Source: {Id: Topic}, Destination: {Id: Fn}, Permissions: [Write]}
    """)
    policies = graph.all(QueuePolicy)
    assert [p.queues for p in policies] == [("Q",)]
    assert [p.function for p in graph.all(LambdaPermission)] == ["Fn"]


def test_functions_are_reached_through_aliases():
    graph = graph_of("""
        Resources:
          Fn: {Type: AWS::Lambda::Function}
          Live: {Type: AWS::Lambda::Alias, Properties: {FunctionName: !Ref Fn, Name: live}}
          Q: {Type: AWS::SQS::Queue}
          M: {Type: AWS::Lambda::EventSourceMapping, Properties: {EventSourceArn: !GetAtt Q.Arn, FunctionName: !Ref Live}}
    """)
    assert graph.get("M").function == "Fn"
    assert isinstance(graph.get("Fn"), Function)


def test_json_templates_keep_lines():
    text = '{\n "Resources": {\n  "Q": {\n   "Type": "AWS::SQS::Queue"\n  }\n }\n}\n'
    graph = load_template(parse_json(text, "t.json"), "t.json")
    assert graph.get("Q").loc.line == 3


def test_metadata_gives_cdk_path_and_suppressions():
    graph = graph_of("""
        Resources:
          Q:
            Type: AWS::SQS::Queue
            Metadata:
              aws:cdk:path: App/Q/Resource
              fanout-lint:
                ignore: [{rule: missing-dlq, reason: drained by hand, until: 2027-03-31}]
    """)
    queue = graph.get("Q")
    assert queue.cdk_path == "App/Q/Resource"
    assert queue.suppressions[0].rule == "missing-dlq"
    assert queue.suppressions[0].reason == "drained by hand"


def test_sam_delivery_events_expand_as_the_translator_does():
    # logical IDs and shapes checked against aws-sam-translator's output for this template
    graph = graph_of("""
        Transform: AWS::Serverless-2016-10-31
        Resources:
          Uploads: {Type: AWS::S3::Bucket}
          Clicks: {Type: AWS::Kinesis::Stream}
          Fn:
            Type: AWS::Serverless::Function
            Properties:
              AutoPublishAlias: live_1
              ReservedConcurrentExecutions: 5
              EventInvokeConfig:
                MaximumRetryAttempts: 1
                DestinationConfig: {OnFailure: {Type: SQS}}
              Events:
                Tock: {Type: Schedule, Properties: {Schedule: rate(1 hour), DeadLetterConfig: {Type: SQS}}}
                V2: {Type: ScheduleV2, Properties: {ScheduleExpression: rate(1 hour), DeadLetterConfig: {Type: SQS}}}
                Upload: {Type: S3, Properties: {Bucket: !Ref Uploads, Events: [s3:ObjectCreated:*, s3:ObjectRemoved:*]}}
                Click: {Type: Kinesis, Properties: {Stream: !GetAtt Clicks.Arn, StartingPosition: LATEST}}
          Other:
            Type: AWS::Events::Rule
            Properties: {Targets: [{Id: x, Arn: !Ref Fn.Alias}]}
    """)
    ids = {n.id for n in graph.nodes()}
    assert {"FnTock", "FnTock.Targets[0]", "FnTockPermission", "FnTockQueue", "FnTockQueuePolicy", "FnV2",
            "FnV2Queue", "FnEventInvokeConfig", "FnEventInvokeConfigOnFailureQueue", "FnUploadPermission",
            "Uploads.LambdaConfigurations[0]", "Uploads.LambdaConfigurations[1]", "FnClick"} <= ids
    assert "FnV2QueuePolicy" not in ids  # a schedule writes with its role
    # every event invokes the alias (FnAliasliveU1), which stands for the function; so does Fn.Alias
    assert graph.get("FnTock.Targets[0]").target == "Fn" and graph.get("Other.Targets[0]").target == "Fn"
    assert graph.get("FnUploadPermission").function == "Fn"
    config = graph.get("FnEventInvokeConfig")
    assert config.qualifier.value == "live_1" and config.on_failure.value == "FnEventInvokeConfigOnFailureQueue"
    assert graph.get("Fn").reserved_concurrency.value == 5
    assert graph.get("FnV2").scheduler and graph.get("FnV2").dead_letter.value == "FnV2Queue"
    assert graph.get("FnClick").source == "Clicks"


def test_settings_a_resource_leaves_out_read_as_their_readers_read_them():
    # The builder reads a setting missing from a plain Properties mapping as unset without
    # asking the view (build.View.plain_keys): the nodes must be the ones asking makes.
    import dataclasses

    from fanout_lint.loaders.parsing.budget import Budget
    from fanout_lint.loaders.build import build
    from fanout_lint.loaders.cloudformation.loader import open_stack
    from fanout_lint.model.schema import KINDS

    types = sorted({t for kind in KINDS for t in kind.cfn_types})
    lines = ["Resources:"]
    for index, type_ in enumerate(types):
        lines += [f"  Empty{index}: {{Type: {type_}, Properties: {{}}}}", f"  Bare{index}: {{Type: {type_}}}"]
    lines += [
        "  Q: {Type: AWS::SQS::Queue, Properties: {VisibilityTimeout: 60, RedrivePolicy: {deadLetterTargetArn: !GetAtt D.Arn}}}",
        "  D: {Type: AWS::SQS::Queue, Properties: {MessageRetentionPeriod: 1209600}}",
        "  F: {Type: AWS::Lambda::Function, Properties: {Timeout: 30, DeadLetterConfig: {}}}",
        "  M: {Type: AWS::Lambda::EventSourceMapping, Properties: {EventSourceArn: !GetAtt Q.Arn, FunctionName: !Ref F}}",
        "  T: {Type: AWS::SNS::Topic, Properties: {Subscription: [{Protocol: sqs, Endpoint: !GetAtt Q.Arn}, {}]}}",
        "  R: {Type: AWS::Events::Rule, Properties: {Targets: [{Arn: !GetAtt Q.Arn, Id: a}]}}",
        "  A: {Type: AWS::CloudWatch::Alarm, Properties: {AlarmActions: [!Ref T]}}",
    ]
    data = parse_yaml("\n".join(lines) + "\n", "t.yaml")

    def nodes(ask_every_setting: bool):
        stack = open_stack(data, "t.yaml", "yaml", None, Budget(file="t.yaml"))
        views = stack.views()
        if ask_every_setting:
            for view in views:
                view.plain_keys = None
        built, uses, mentions = build(views, stack.linker)
        return [(type(n).__name__, [(f.name, repr(getattr(n, f.name))) for f in dataclasses.fields(n)]) for n in built], uses, mentions

    assert nodes(False) == nodes(True)
