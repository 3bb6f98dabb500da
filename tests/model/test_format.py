"""One ``Format`` names every format: a unit's, a node's vocabulary, a discovered candidate's;
no branch on a format falls back to another one."""

from __future__ import annotations

import json

import pytest

from fanout_lint.loaders import build
from fanout_lint.loaders.names import named_resource
from fanout_lint.model import schema
from fanout_lint.model.format import Format
from fanout_lint.model.nodes import Queue, Written
from fanout_lint.model.vocabulary import is_terraform, setting


def test_a_format_is_the_string_reports_print():
    assert json.dumps([Format.TERRAFORM_PLAN]) == '["terraform-plan"]'
    assert f"{Format.SERVERLESS}" == str(Format.SERVERLESS) == "serverless"
    assert Format("cloudformation") is Format.CLOUDFORMATION


@pytest.mark.parametrize(("fmt", "names"), [
    (Format.CLOUDFORMATION, Format.CLOUDFORMATION), (Format.SERVERLESS, Format.CLOUDFORMATION),
    (Format.TERRAFORM, Format.TERRAFORM), (Format.TERRAFORM_PLAN, Format.TERRAFORM),
])
def test_each_format_names_settings_in_one_vocabulary(fmt, names):
    assert fmt.vocabulary is names
    field = schema.QUEUE.field("visibility_timeout")
    assert field is not None
    expected = "visibility_timeout_seconds" if names is Format.TERRAFORM else "VisibilityTimeout"
    assert field.path(fmt) == expected


def test_a_string_is_no_format():
    # formerly anything not "cloudformation" read as Terraform, and the reverse elsewhere
    field = schema.QUEUE.field("visibility_timeout")
    assert field is not None
    with pytest.raises(AttributeError):
        field.path("cfn")  # type: ignore[arg-type]
    with pytest.raises(AttributeError):
        is_terraform(Queue(id="q", loc=None, written=Written("terraform")))  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        Format("plan")


def test_a_plan_node_writes_terraform():
    queue = Queue(id="q", loc=None, written=Written(Format.TERRAFORM, "plan", generated=True))
    assert setting(queue, "visibility_timeout", 30) == "visibility_timeout_seconds = 30"


def test_the_referenced_kinds_are_listed_once():
    readers = {f.read for kind in schema.KINDS for f in kind.fields}
    readers |= {f.read for kind in schema.KINDS for items in kind.items for f in items.kind.fields}
    named = {read.split(":", 1)[1] for read in readers if read.split(":", 1)[0] in ("ref", "refs", "at")}
    assert named - {"any"} <= set(schema.REFERENCED)
    keys = {kind.key for kind in schema.KINDS}
    assert set(schema.REFERENCED) <= keys
    for read in readers:
        if read.split(":", 1)[0] in ("ref", "refs", "at"):
            assert read in build._READERS, read
    # a plain name is looked up as the kind the reference asks for
    names = {("event_rule", "nightly"): "Rule", ("queue", "orders"): "Q"}
    assert named_resource("nightly", "event_rule", names) == "Rule"
    assert named_resource("orders", "topic", names) is None
    assert named_resource("orders", "any", names) is None
