"""Serverless Framework execution roles: the role each function is given and the shared
``IamRoleLambdaExecution`` the Framework makes from the provider's statements."""

from __future__ import annotations

from fanout_lint.model.nodes import Function, IamPolicy, QueuePolicy, Role
from fanout_lint.model.values import Known
from fanout_lint.policy.settings import Settings
from fanout_lint.rules import ALL_RULES
from fanout_lint.run.engine import lint_paths

SERVICE = """\
service: shop
provider:
  name: aws
"""


def _graph(tmp_path, text: str):
    path = tmp_path / "serverless.yml"
    path.write_text(text)
    result = lint_paths([str(path)], ALL_RULES, Settings(jobs=1), keep_graphs=True)
    assert not result.errors
    return result, result.graphs[0]


def _roles(graph) -> dict[str, Known]:
    return {f.id: f.role for f in graph.all(Function)}


def test_functions_without_role_share_the_role_of_the_provider_statements(tmp_path):
    _, graph = _graph(tmp_path, SERVICE + """\
  iam:
    role:
      statements:
        - {Effect: Allow, Action: sqs:SendMessage, Resource: "*"}
functions:
  worker: {handler: app.worker}
  audit: {handler: app.audit, role: AuditRole}
  billing: {handler: app.billing, role: "arn:aws:iam::123456789012:role/billing"}
resources:
  Resources:
    AuditRole:
      Type: AWS::IAM::Role
""")
    roles = _roles(graph)
    assert roles["WorkerLambdaFunction"] == Known("IamRoleLambdaExecution")
    assert roles["AuditLambdaFunction"] == Known("AuditRole")
    assert roles["BillingLambdaFunction"].value not in ("IamRoleLambdaExecution", "AuditRole", None)
    assert {r.id for r in graph.all(Role)} == {"IamRoleLambdaExecution", "AuditRole"}
    (inline,) = [p for p in graph.all(IamPolicy) if p.role == "IamRoleLambdaExecution"]
    actions = [s.actions for s in inline.statements.value]
    # the Framework's two CloudWatch Logs statements, then the provider's
    assert len(actions) == 3 and "sqs:SendMessage" in str(actions[2])


def test_the_older_iam_role_statements_count_when_iam_role_has_none(tmp_path):
    _, graph = _graph(tmp_path, SERVICE + """\
  iamRoleStatements:
    - {Effect: Allow, Action: sns:Publish, Resource: "*"}
functions:
  worker: {handler: app.worker}
""")
    (inline,) = [p for p in graph.all(IamPolicy) if p.role == "IamRoleLambdaExecution"]
    assert "sns:Publish" in str(inline.statements.value[-1].actions)


def test_no_shared_role_when_the_provider_names_one_or_every_function_has_its_own(tmp_path):
    _, graph = _graph(tmp_path, SERVICE + """\
  iam:
    role: SharedRole
functions:
  worker: {handler: app.worker}
resources:
  Resources:
    SharedRole:
      Type: AWS::IAM::Role
""")
    assert _roles(graph)["WorkerLambdaFunction"] == Known("SharedRole")
    assert {r.id for r in graph.all(Role)} == {"SharedRole"}
    _, graph = _graph(tmp_path, SERVICE + """\
functions:
  worker: {handler: app.worker, role: "arn:aws:iam::123456789012:role/worker"}
""")
    assert not graph.all(Role)


def test_a_role_per_function_is_not_modelled(tmp_path):
    _, graph = _graph(tmp_path, SERVICE + """\
  iam:
    role:
      mode: perFunction
      statements:
        - {Effect: Allow, Action: sqs:SendMessage, Resource: "*"}
functions:
  worker: {handler: app.worker}
""")
    assert not graph.all(Role)
    assert _roles(graph)["WorkerLambdaFunction"].value != "IamRoleLambdaExecution"


def test_vpc_and_managed_policies_are_attached_to_the_shared_role(tmp_path):
    _, graph = _graph(tmp_path, SERVICE + """\
  iam:
    role:
      managedPolicies: ["arn:aws:iam::123456789012:policy/extra"]
functions:
  worker: {handler: app.worker, vpc: {securityGroupIds: [sg-1], subnetIds: [subnet-1]}}
""")
    (role,) = graph.all(Role)
    assert len(role.managed) == 2


def test_sns_redrive_policy_grants_the_topic_it_names(tmp_path):
    """The Framework's queue policy for an sns event's DLQ says ``ArnEquals aws:SourceArn``
    with the event's arn; for a topic the event creates it has no ARN yet, and the
    condition is empty (compile/events/sns.js), so any topic may send to that DLQ."""
    result, graph = _graph(tmp_path, SERVICE + """\
functions:
  worker:
    handler: app.worker
    events:
      - sns:
          arn: arn:aws:sns:eu-west-1:123456789012:orders
          redrivePolicy: {deadLetterTargetRef: OrdersDLQ}
      - sns:
          topicName: created
          redrivePolicy: {deadLetterTargetRef: CreatedDLQ}
resources:
  Resources:
    OrdersDLQ: {Type: AWS::SQS::Queue}
    CreatedDLQ: {Type: AWS::SQS::Queue}
""")
    policies = {p.id: p for p in graph.all(QueuePolicy)}
    (named,) = policies["OrdersToWorkerDLQPolicy"].statements.value
    assert named.condition_keys == {"aws:sourcearn"}
    (created,) = policies["CreatedToWorkerDLQPolicy"].statements.value
    assert created.condition_keys == set()
    flagged = {f.resource for f in result.findings if f.name == "queue-policy-without-source-arn"}
    assert flagged == {"CreatedToWorkerDLQPolicy"}
