"""Which key policy statements let a service use a key (FL305), and ARN principals the
template cannot evaluate."""

from __future__ import annotations

from fanout_lint.loaders.policy_documents import ACCOUNT_PRINCIPAL, ACCOUNT_ROOT, parse_policy
from fanout_lint.model.nodes import Loc
from fanout_lint.model.permissions import SNS
from fanout_lint.model.values import Known, Unknown
from rules.iam import key_leaves_it_to_iam, may_allow
from rules.key_policy_denies_sender import denied_actions

LOC = Loc("t.yaml", 1)


def _value_of(raw):
    return Known(raw) if isinstance(raw, (str, list)) else Unknown("intrinsic")


def _statements(*statements, arn_principals=True):
    parsed = parse_policy({"Statement": list(statements)}, LOC, _value_of, arn_principals)
    assert isinstance(parsed, Known)
    return parsed.value


def _allow(principal, action, **extra):
    return {"Effect": "Allow", "Principal": principal, "Action": action, "Resource": "*", **extra}


def test_both_actions_are_needed_and_wildcards_cover_them():
    assert denied_actions(_statements(_allow({"Service": SNS}, ["kms:GenerateDataKey*", "kms:Decrypt"])), SNS) == ()
    assert denied_actions(_statements(_allow({"Service": SNS}, "kms:*")), SNS) == ()
    assert denied_actions(_statements(_allow({"Service": SNS}, "*")), SNS) == ()
    assert denied_actions(_statements(_allow({"Service": SNS}, "kms:Decrypt")), SNS) == ("kms:GenerateDataKey",)
    assert denied_actions(_statements(_allow({"Service": SNS}, "kms:Encrypt")), SNS) == (
        "kms:GenerateDataKey", "kms:Decrypt")


def test_a_condition_and_the_everyone_principal_count_as_an_allow():
    conditioned = _allow({"Service": SNS}, "kms:*", Condition={"ArnEquals": {"aws:SourceArn": "arn:aws:sns:x"}})
    assert denied_actions(_statements(conditioned), SNS) == ()
    everyone = _allow("*", "kms:*", Condition={"StringEquals": {"kms:CallerAccount": "1"}})
    assert denied_actions(_statements(everyone), SNS) == ()


def test_account_principals_and_denies_let_no_service_in():
    root = _allow({"AWS": {"Fn::Sub": "arn:aws:iam::${AWS::AccountId}:root"}}, "kms:*")
    assert _statements(root)[0].principals == (ACCOUNT_ROOT,)
    role = _allow({"AWS": {"Fn::GetAtt": ["WorkerRole", "Arn"]}}, "kms:*")
    assert _statements(role)[0].principals == (ACCOUNT_PRINCIPAL,)
    assert denied_actions(_statements(root), SNS) == ("kms:GenerateDataKey", "kms:Decrypt")
    deny = {"Effect": "Deny", "Principal": {"Service": SNS}, "Action": "kms:*", "Resource": "*"}
    assert denied_actions(_statements(deny), SNS) == ("kms:GenerateDataKey", "kms:Decrypt")


def test_what_the_template_does_not_prove_is_silence():
    hidden_service = _allow({"Service": {"Ref": "Principal"}}, "kms:*")
    assert denied_actions(_statements(hidden_service), SNS) is None
    hidden_account = _allow({"AWS": {"Ref": "Principal"}}, "kms:*")  # may be "*"
    assert denied_actions(_statements(hidden_account), SNS) is None
    not_action = {"Effect": "Allow", "Principal": {"Service": SNS}, "NotAction": "kms:Encrypt", "Resource": "*"}
    assert denied_actions(_statements(not_action), SNS) is None


def test_other_policies_keep_unevaluated_arns_unknown():
    root = _allow({"AWS": {"Fn::Sub": "arn:aws:iam::${AWS::AccountId}:root"}}, "sqs:SendMessage")
    assert _statements(root, arn_principals=False)[0].principals is None


def test_a_key_policy_leaves_decrypt_to_iam_only_when_it_names_the_account_alone():
    root = _allow({"AWS": {"Fn::Sub": "arn:aws:iam::${AWS::AccountId}:root"}}, "kms:*")
    literal_root = _allow({"AWS": "arn:aws:iam::123456789012:root"}, "kms:*")
    service = _allow({"Service": SNS}, ["kms:GenerateDataKey*", "kms:Decrypt"])
    assert key_leaves_it_to_iam(_statements(root, literal_root, service), "kms:Decrypt")
    role = _allow({"AWS": {"Fn::GetAtt": ["WorkerRole", "Arn"]}}, "kms:Decrypt")
    assert not key_leaves_it_to_iam(_statements(root, role), "kms:Decrypt")
    everyone = _allow("*", "kms:Decrypt")
    assert not key_leaves_it_to_iam(_statements(everyone), "kms:Decrypt")
    encrypt_only = _allow({"AWS": {"Fn::GetAtt": ["WorkerRole", "Arn"]}}, "kms:Encrypt")
    assert key_leaves_it_to_iam(_statements(root, encrypt_only), "kms:Decrypt")


def test_identity_statements_grant_decrypt_by_any_covering_action():
    def identity(action, effect="Allow"):
        return {"Effect": effect, "Action": action, "Resource": "*"}
    assert may_allow(_statements(identity("kms:Decrypt")), "kms:Decrypt") is True
    assert may_allow(_statements(identity("kms:De*")), "kms:Decrypt") is True
    assert may_allow(_statements(identity("*")), "kms:Decrypt") is True
    assert may_allow(_statements(identity("kms:Encrypt"), identity("kms:*", "Deny")), "kms:Decrypt") is False
    not_action = {"Effect": "Allow", "NotAction": "s3:*", "Resource": "*"}
    assert may_allow(_statements(not_action), "kms:Decrypt") is None
