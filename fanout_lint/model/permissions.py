"""Who a policy statement or a Lambda permission lets do what: the questions the
permission rules ask of the model, whatever format the policy was written in.

Matching follows IAM where the template proves it and answers None (not proved) where
it does not: a principal or action the loader could not read, an effect other than
Allow or Deny.
"""

from __future__ import annotations

from fanout_lint.model.nodes import Statement

# The service principals that deliver to queues and invoke functions through resource policies.
SNS = "sns.amazonaws.com"
EVENTS = "events.amazonaws.com"
S3 = "s3.amazonaws.com"


def allows(statement: Statement, principal: str, actions: tuple[str, ...]) -> bool | None:
    """Does the statement allow ``principal`` one of ``actions``? None when not proved."""
    if statement.effect != "Allow":
        return False if statement.effect == "Deny" else None
    principals, written_actions = statement.principals, statement.actions
    if principals is None or written_actions is None:
        return None
    # Loops, not any() of generators: the permission rules ask this per statement and
    # service, and both matchers are pure, so stopping at the first miss answers the same.
    for written in principals:
        if principal_matches(written, principal):
            break
    else:
        return False
    for written in written_actions:
        if action_matches(written, actions):
            return True
    return False


def principal_matches(written: str, wanted: str) -> bool:
    """``written`` (a statement's or permission's principal) covers the service ``wanted``."""
    if written == "*":
        return True
    # Opt-in Regions name the service with its Region: sns.ap-east-1.amazonaws.com.
    service = wanted.split(".")[0]
    return written == wanted or (
        written.startswith(service + ".") and written.endswith(".amazonaws.com")
    )


def action_matches(written: str, actions: tuple[str, ...]) -> bool:
    """``written`` (an action, maybe with wildcards) covers one of ``actions``."""
    written = written.lower()
    if written == "*":
        return True
    for action in actions:
        service = action.split(":")[0].lower()
        if written == action.lower() or written == f"{service}:*":
            return True
        if written.endswith("*") and action.lower().startswith(written[:-1]):
            return True
    return False


# Principals a key policy writes as ARNs the template cannot evaluate (loaders/policy_documents.py):
# an account, role or user the template names without proving which: never a service, never "*".
ACCOUNT_PRINCIPAL = "arn:(not known)"
# The same, when the ARN provably ends in ":root": the account, which leaves the grant to IAM policies.
ACCOUNT_ROOT = "arn:(account root)"
