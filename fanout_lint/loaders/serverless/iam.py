"""The execution roles of a service's functions, as the Serverless Framework sets them.

From the Framework's source (``lib/plugins/aws/package/compile/functions.js``
``compileRole``, ``lib/plugins/aws/provider.js`` ``getCustomExecutionRole`` and
``isExistingRoleProvided``, ``lib/plugins/aws/package/lib/merge-iam-templates.js``):

- a function's role is its ``role``, else ``provider.iam.role`` when that names an
  existing role (a string, or an object with an intrinsic key such as ``Fn::GetAtt``),
  else ``provider.role``, else the shared role ``IamRoleLambdaExecution``;
- a role written as a string is an ARN when it starts with ``arn:``, else the logical ID
  of a role of ``resources`` (``Fn::GetAtt: [<it>, Arn]``); an object is used as written;
- the shared role is generated unless ``provider.iam.role`` names an existing role, the
  provider has ``role``, every function has ``role``, or ``provider.iam.role.mode`` is
  ``perFunction``. It holds one inline policy: the two CloudWatch Logs statements of the
  Framework's template, then ``provider.iam.role.statements`` (else
  ``provider.iamRoleStatements``); its managed policies are
  ``provider.iam.role.managedPolicies`` (else ``provider.iamManagedPolicies``), and
  ``AWSLambdaVPCAccessExecutionRole`` when the provider or a function has ``vpc``.

The statements the Framework adds for the functions' event sources (the sqs event's
``sqs:ReceiveMessage``, a stream's read actions) are not written: they allow reading
only, which no rule asks about. With ``mode: perFunction`` (a role per function, whose
content is not modelled) a function's role is left unset, so unknown.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fanout_lint.loaders.cloudformation.template import RawResource
from fanout_lint.loaders.parsing.located import DerivedMap, Map, loc_of
from fanout_lint.loaders.serverless import naming
from fanout_lint.model.format import Format
from fanout_lint.model.nodes import Loc, Written

if TYPE_CHECKING:
    from typing import Any

ROLE = Written(Format.CLOUDFORMATION, "Serverless provider.iam.role", transform=True)
_LOGS = "arn:${AWS::Partition}:logs:${AWS::Region}:${AWS::AccountId}:log-group:/aws/lambda/"
_VPC_POLICY = {"Fn::Join": ["", ["arn:", {"Ref": "AWS::Partition"},
                                 ":iam::aws:policy/service-role/AWSLambdaVPCAccessExecutionRole"]]}


def _iam_role(provider: dict) -> Any:
    iam = provider.get("iam")
    return iam.get("role") if isinstance(iam, dict) else None


def names_existing_role(role: Any) -> bool:
    """``isExistingRoleProvided``: a string, or an object with an intrinsic key."""
    return isinstance(role, str) or (isinstance(role, dict) and any("::" in str(key) for key in role))


def _per_function(provider: dict) -> bool:
    role = _iam_role(provider)
    return isinstance(role, dict) and role.get("mode") == "perFunction"


def custom_role(function: dict, provider: dict) -> tuple[dict, str] | None:
    """Where the role a function is given is written (its ``role``, ``provider.iam.role``,
    ``provider.role``), as (mapping, key); None for the shared role."""
    if _truthy(function.get("role")):
        return function, "role"
    iam = provider.get("iam")
    if isinstance(iam, dict) and names_existing_role(iam.get("role")):
        return iam, "role"
    if _truthy(provider.get("role")):
        return provider, "role"
    return None


def set_role(props: DerivedMap, function: dict, provider: dict) -> None:
    """The function's ``Role``, as ``compileRole`` writes it."""
    custom = custom_role(function, provider)
    if custom is None:
        if not _per_function(provider):
            props["Role"] = {"Fn::GetAtt": [naming.ROLE_ID, "Arn"]}
        return
    holder, key = custom
    role = holder[key]
    if isinstance(role, str) and not role.startswith("arn:"):
        props.put("Role", {"Fn::GetAtt": [role, "Arn"]}, holder, key)
    elif isinstance(role, (str, dict)):
        props.take("Role", holder, key)


def shared_role(functions: list[tuple[str, dict, Loc]], provider: dict, service: Any, fallback: Loc,
                syntax: str) -> RawResource | None:
    """``IamRoleLambdaExecution``, when the Framework generates it (its policy named
    ``<service>-<stage>-lambda``, as ``getPolicyName`` names it)."""
    if not functions or names_existing_role(_iam_role(provider)) or "role" in provider or _per_function(provider):
        return None
    if all("role" in function for _, function, _ in functions):
        return None
    role = _iam_role(provider)
    role = role if isinstance(role, dict) else {}
    statements, holder, key = _first_list(((role, "statements"), (provider, "iamRoleStatements")))
    policies, _, _ = _first_list(((role, "managedPolicies"), (provider, "iamManagedPolicies")))
    loc = loc_of(holder, key, provider.loc if isinstance(provider, Map) else fallback) if holder else (
        provider.loc if isinstance(provider, Map) else fallback)
    logs = [
        {"Effect": "Allow", "Action": ["logs:CreateLogStream", "logs:CreateLogGroup", "logs:TagResource"],
         "Resource": [{"Fn::Sub": _LOGS + "*:*"}]},
        {"Effect": "Allow", "Action": ["logs:PutLogEvents"], "Resource": [{"Fn::Sub": _LOGS + "*:*:*"}]},
    ]
    props = DerivedMap(loc)
    props["AssumeRolePolicyDocument"] = {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Principal": {"Service": ["lambda.amazonaws.com"]}, "Action": ["sts:AssumeRole"]}]}
    name = {"Fn::Join": ["-", [service, provider.get("stage", "dev"), "lambda"]]}
    props["Policies"] = [{"PolicyName": name, "PolicyDocument": {
        "Version": "2012-10-17", "Statement": logs + list(statements)}}]
    managed = list(policies)
    if "vpc" in provider or any("vpc" in function for _, function, _ in functions):
        managed.append(_VPC_POLICY)
    if managed:
        props["ManagedPolicyArns"] = managed
    return RawResource(id=naming.ROLE_ID, type="AWS::IAM::Role", props=props, loc=loc, written=ROLE, syntax=syntax)


def _first_list(places) -> tuple[list, Any, str]:
    """The first of ``places`` (mapping, key) that holds a value, as the Framework tests them;
    a value that is not a list (from a variable the file does not resolve) is one unknown item."""
    for holder, key in places:
        value = holder.get(key) if isinstance(holder, dict) else None
        if _truthy(value):
            return (value if isinstance(value, list) else [value]), holder, key
    return [], None, ""


def _truthy(value: Any) -> bool:
    return value not in (None, False, 0, "")
