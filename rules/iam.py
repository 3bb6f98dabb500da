"""What a role's identity policies and a key's policy let a principal of the account do,
for the failure-path rules. Not a rule."""

from __future__ import annotations

import re

from fanout_lint.model.graph import Graph
from fanout_lint.model.nodes import External, IamPolicy, PolicyAttachment, Role, Statement
from fanout_lint.model.permissions import ACCOUNT_ROOT, action_matches
from fanout_lint.model.values import Known

# AWS managed policies whose content is published and grants nothing the failure-path rules
# ask about (no kms:, sqs:SendMessage, sns:Publish or s3:PutObject). Any other managed policy is unknown.
KNOWN_MANAGED = {
    # logs:CreateLogGroup, logs:CreateLogStream, logs:PutLogEvents on "*"
    "service-role/AWSLambdaBasicExecutionRole": (),
}
_MANAGED_ARN = re.compile(r"(?:Sub )?arn:(?:aws|\$\{AWS::Partition\}|[a-z-]+):iam::aws:policy/([A-Za-z0-9/_+=,.@-]+)\Z")
_ROOT_ARN = re.compile(r"arn:aws[a-z-]*:iam::\d{12}:root\Z")


def known_managed(arn: str) -> tuple[Statement, ...] | None:
    match = _MANAGED_ARN.match(arn)
    return KNOWN_MANAGED.get(match.group(1)) if match else None


def managed_statements(graph: Graph, policy_id: str | None, written=None) -> tuple[Statement, ...] | None:
    """The statements of a managed policy a role or attachment names: a policy of the unit,
    or a well-known AWS managed policy (by its node's label, or, for a list, by ``written``:
    the list's ARNs when every one is literal); None when not known."""
    node = graph.get(policy_id)
    if isinstance(node, IamPolicy):
        return _known(node.statements)
    if isinstance(node, External):
        found = known_managed(node.label)
        if found is not None:
            return found
        arns = _known(written)
        if arns is not None and all(isinstance(a, str) and known_managed(a) is not None for a in arns):
            return ()  # every ARN of the list is a known policy without the actions asked about
    return None


def role_statements(graph: Graph, role: Role) -> tuple[Statement, ...] | None:
    """Every statement of every identity policy of the role, or None when any policy of it
    may be outside the run or is not known."""
    if graph.has_loose_role_policy or not isinstance(role.inline_written, Known):
        return None
    out: list[Statement] = []
    holders = graph.policies_of_role(role.id)
    if role.inline_written.value and not any(isinstance(h, IamPolicy) and h.type.startswith(role.type + ".")
                                             for h in holders):
        return None  # Policies written, but no inline policy read: an intrinsic hides them
    for policy_id in role.managed:
        statements = managed_statements(graph, policy_id, role.managed_arns)
        if statements is None:
            return None
        out.extend(statements)
    for holder in holders:
        statements = (managed_statements(graph, holder.policy) if isinstance(holder, PolicyAttachment)
                      else _known(holder.statements) if isinstance(holder, IamPolicy) else None)
        if statements is None:
            return None
        out.extend(statements)
    return tuple(out)


def may_allow(statements: tuple[Statement, ...], action: str) -> bool | None:
    """Does an Allow among the identity statements cover ``action`` (whatever its resource
    and conditions)? None when not proved."""
    answers: set[bool | None] = set()
    for statement in statements:
        if statement.effect == "Deny":
            continue
        if statement.effect != "Allow" or statement.actions is None:
            answers.add(None)
            continue
        answers.add(any(action_matches(written, (action,)) for written in statement.actions))
    if True in answers:
        return True
    return None if None in answers else False


def key_leaves_it_to_iam(statements: tuple[Statement, ...], action: str) -> bool:
    """Every statement of the key policy that may allow ``action`` names only the account
    (its root) or services: no role can get it from the key policy itself, only through
    its IAM policies."""
    for statement in statements:
        if statement.effect == "Deny":
            continue
        if statement.actions is None or statement.principals is None:
            return False
        if not any(action_matches(written, (action,)) for written in statement.actions):
            continue
        for principal in statement.principals:
            if not (principal == ACCOUNT_ROOT or _ROOT_ARN.match(principal) or re.fullmatch(r"\d{12}", principal)
                    or principal.endswith(".amazonaws.com")):
                return False
    return True


def _known(value) -> tuple[Statement, ...] | None:
    return value.value if isinstance(value, Known) and isinstance(value.value, tuple) else None


def may_act_on(graph: Graph, statements: tuple[Statement, ...], action: str, node_id: str) -> bool | None:
    """Does an identity statement provably allow ``action`` on the node: an Allow whose
    actions cover it and whose ``Resource`` names the node or is ``*`` (or, for S3, the
    ``arn:aws:s3:::*`` pattern)? False when no Allow covers the action or a Deny may take it
    away is answered None; None when not proved."""
    allowed = False
    for statement in statements:
        if statement.actions is None:
            return None
        if not any(action_matches(written, (action,)) for written in statement.actions):
            continue
        if statement.effect == "Deny":
            return None  # a Deny may take it away, whatever its resource
        if statement.effect != "Allow":
            return None
        if statement.resources and any(
            (kind == "ref" and entry == node_id) or (kind == "text" and entry in ("*", "arn:aws:s3:::*"))
            for kind, entry in statement.resources
        ):
            allowed = True
    return allowed


def names_node_for(statements: tuple[Statement, ...], action: str, node_id: str) -> bool:
    """Does an Allow whose actions cover ``action`` name the node itself in its ``Resource``
    (not only ``*``)? Read after ``may_act_on`` proved the grant."""
    return any(
        statement.effect == "Allow" and statement.actions is not None
        and any(action_matches(written, (action,)) for written in statement.actions)
        and any(kind == "ref" and entry == node_id for kind, entry in statement.resources or ())
        for statement in statements
    )
