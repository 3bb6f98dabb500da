"""The fast JSON path (json + located keys) gives exactly the libyaml path's values and locations."""

from __future__ import annotations

import glob
import json
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fanout_lint.loaders.parsing.json_source import JsonMap, JsonSeq
from fanout_lint.loaders.parsing.located import Map, ParseError, Seq
from fanout_lint.loaders.parsing.yaml_source import parse_json, parse_yaml
from repo_paths import TESTS

JSON_FILES = sorted(glob.glob(os.path.join(TESTS, "**", "*.json"), recursive=True))


def assert_same(fast, exact, path="$", values=True):
    """Same values, same container locations, same key and item locations, all the way down."""
    if isinstance(exact, Map):
        assert isinstance(fast, Map), path
        assert list(fast) == list(exact), path
        assert fast.loc == exact.loc, path
        for key in exact:
            assert fast.loc_of(key) == exact.loc_of(key), f"{path}.{key}"
        assert fast.key_locs == exact.key_locs, path
        for key in exact:
            assert_same(fast[key], exact[key], f"{path}.{key}", values)
    elif isinstance(exact, Seq):
        assert isinstance(fast, Seq), path
        assert len(fast) == len(exact), path
        assert fast.loc == exact.loc, path
        for index in range(len(exact)):
            assert fast.loc_of(index) == exact.loc_of(index), f"{path}[{index}]"
        assert fast.item_locs == exact.item_locs, path
        for index, (a, b) in enumerate(zip(fast, exact)):
            assert_same(a, b, f"{path}[{index}]", values)
    elif values:
        assert type(fast) is type(exact) and fast == exact, path


def test_there_are_json_fixtures():
    assert len([f for f in JSON_FILES if "/fixtures/" in f]) >= 20


@pytest.mark.parametrize("path", JSON_FILES, ids=lambda p: os.path.relpath(p, TESTS))
def test_fixture_locations_match_the_libyaml_path(path):
    with open(path, encoding="utf-8-sig") as handle:
        text = handle.read()
    fast = parse_json(text, path)
    assert isinstance(fast, (JsonMap, JsonSeq))  # the fast path was taken, not the fallback
    assert_same(fast, parse_yaml(text, path))


@pytest.mark.parametrize(
    "text",
    [
        '{"a" : 1,\n  "b"\t:\n [1, "x"]}',  # blanks before the colon
        '{"A": "Type", "Type": {"Type": "Type"}}',  # the key's text written earlier as a value
        '{"d": "say \\"Type\\": no", "Type": 1}',  # ... and inside an escaped string
        '{"a": [{}, [], [[1], {"b": []}], {"c": {}}], "e": {}}',  # empty and nested containers
        '[{"a": 1}, "x", [2, {"b": 3}]]',  # a list at the root
        '{"a":\r\n"x\u2028y", "b":\r"c\u0085", "d": 1}',  # every kind of line break
        '{"é€😀": {"ключ": 1}, "b": "😀", "c": 2}',  # columns count characters
        '{"k\\"e\\\\y": 1, "k": {"\\"": 2}}',  # keys with escapes
        '  \n {"a": [\n  1 ,\n  2\n ] }  ',
        # strings that begin with a colon, as CDK writes ARNs: the key count must not take
        # their opening quote for a key's closing one
        '{"Fn::Join": ["", ["arn:", {"Ref": "AWS::Partition"}, ":sqs:", {"Ref": "AWS::Region"}, ":", "q"]]}',
        '{"a": ":x", "b": [":", ":y:"], "c": {"d": ":"}, "e": ": spaced"}',
        '{"a":":x","b":[":",":y"],"c":{":k": 1}}',  # ... without blanks, and a key that begins with one
        '{"a" : ":x",\n "b": [ ":" ,\n":y"]}',  # ... with blanks before a colon somewhere
        '{"UserData": "C:\\\\", "b": "x\\\\", "c": 1}',  # values that end in a backslash
    ],
)
def test_tricky_json_matches_the_libyaml_path(text):
    fast = parse_json(text, "t.json")
    assert isinstance(fast, (JsonMap, JsonSeq))
    assert fast == json.loads(text)  # libyaml folds a line break inside a string; json does not
    assert_same(fast, parse_yaml(text, "t.json"), values=False)


@pytest.mark.parametrize(
    "text",
    [
        '{"a": 1, "b": {"x": 1}, "a": {"y": 2}}',  # a duplicate key: the last one counts
        '{"\\u0054ype": 1, "b": {"Type": 2}}',  # a key written with an escape the search would miss
        '{"x": ",", ",": 1, ":": 2}',  # keys made of JSON punctuation
        '{"a": ":x", "b": 1, "a": 2}',  # a duplicate key beside a string that begins with a colon
        '{"a,": ":x", "b": 1}',  # a key ending as an opening quote's neighbour would
        '{"a\\\\": 1, "b": 2}',  # a key ending in a backslash
    ],
)
def test_unprovable_locations_take_the_exact_path(text):
    parsed = parse_json(text, "t.json")
    assert not isinstance(parsed, JsonMap)
    assert_same(parsed, parse_yaml(text, "t.json"))


@pytest.mark.parametrize("depth", [300, 10_000])
def test_deep_json_is_an_error_with_a_line(depth):
    text = "\n" + '{"a": ' * depth + "1" + "}" * depth
    with pytest.raises(ParseError) as caught:
        parse_json(text, "deep.json")
    assert caught.value.message.startswith("nesting deeper than")
    assert caught.value.line == 2


def test_nan_stays_text_as_before():
    assert parse_json('{"a": NaN, "b": [Infinity]}', "t.json") == {"a": "NaN", "b": ["Infinity"]}


_SCALARS = st.one_of(
    st.sampled_from([":", ":sqs:", ": x", "a:", "C:\\", "\\"]),  # CDK's ARN pieces, Windows paths
    st.none(),
    st.booleans(),
    st.integers(-(10**12), 10**12),
    st.floats(allow_nan=False, allow_infinity=False, width=32),
    st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=8),
)
_KEYS = st.one_of(
    st.sampled_from(["Type", "Properties", "Fn::GetAtt", "Ref", "a", "b", "", ":a", "a,", "a\\"]),
    st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=6),
)
_JSON = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_KEYS, inner, max_size=4),
    max_leaves=25,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    value=st.one_of(st.dictionaries(_KEYS, _JSON, max_size=5), st.lists(_JSON, max_size=4)),
    indent=st.sampled_from([None, 0, 1, 2, "\t"]),
    separators=st.sampled_from([(", ", ": "), (",", ":"), (" ,", " : "), (",\r\n", ":\n ")]),
    ascii_only=st.booleans(),
)
def test_generated_json_matches_the_libyaml_path(value, indent, separators, ascii_only):
    text = json.dumps(value, indent=indent, separators=separators, ensure_ascii=ascii_only)
    try:
        exact = parse_yaml(text, "g.json")
    except ParseError:
        return  # libyaml rejects a few escapes json writes; nothing to compare with
    assert_same(parse_json(text, "g.json"), exact)


def _containers(value, path="$"):
    if isinstance(value, dict):
        yield path, value
        for key, item in value.items():
            yield from _containers(item, f"{path}.{key}")
    elif isinstance(value, list):
        yield path, value
        for index, item in enumerate(value):
            yield from _containers(item, f"{path}[{index}]")


def _at_path(root, wanted):
    return next(container for path, container in _containers(root) if path == wanted)


def test_locations_read_in_any_order_are_the_libyaml_paths():
    """Locations made lazily from offsets are the same whichever is read first."""
    resources = json.dumps({
        f"R{i}": {"Type": "AWS::SQS::Queue", "Properties": {
            "Tags": [{"Key": "k", "Value": [i, {"deep": {"er": [i]}}]}], "Name": f"q{i}"}}
        for i in range(5)
    }, indent=1)
    text = (
        '{\n "Resources": ' + resources + ',\n'
        ' "Outputs": {"O": {"Value": [1, [2, [3]]]}},\n'
        ' "List": [[], {}, [{}], {"a": []}]\n}'
    )
    exact = parse_yaml(text, "t.json")
    for order in (list, lambda items: list(reversed(items))):  # from the root / from the leaves
        fast = parse_json(text, "t.json")
        assert isinstance(fast, JsonMap)
        for path, exact_container in order(list(_containers(exact))):
            container = _at_path(fast, path)
            assert container.loc == exact_container.loc, path
            if isinstance(exact_container, Map):
                assert container.key_locs == exact_container.key_locs, path
                for key in exact_container:
                    assert container.value_span(key) == exact_container.value_span(key), f"{path}.{key}"
                    assert container.span_of(key) == exact_container.span_of(key), f"{path}.{key}"
                assert container.body() == exact_container.body(), path
            else:
                for index in range(len(exact_container)):  # one item alone, before all of them
                    assert container.loc_of(index) == exact_container.loc_of(index), f"{path}[{index}]"
                assert container.item_locs == exact_container.item_locs, path


def test_cdk_shaped_json_takes_the_fast_path(tmp_path):
    """CDK output joins ARNs from strings such as ":sqs:"; it used to fall back to the
    libyaml path, which parsed it a second time."""
    from bench.generate import generate_repo

    units = generate_repo(str(tmp_path), 3, 40, ("cdk",), seed=5)
    for unit in units:
        with open(unit.path, encoding="utf-8") as handle:
            text = handle.read()
        assert '":sqs:"' in text
        fast = parse_json(text, unit.path)
        assert isinstance(fast, JsonMap)  # no fallback
        assert_same(fast, parse_yaml(text, unit.path))


def test_json_that_is_no_template_is_not_located(tmp_path, monkeypatch):
    """An API model or a schema often holds a template's words ("Resources"): json reads
    it, and when it is no template, plan or service, no key is looked for."""
    from fanout_lint.loaders import parse_file
    from fanout_lint.loaders.parsing import json_source, yaml_source
    from fanout_lint.loaders.parsing.yaml_source import parse_json as parse

    located = []
    real_locate = json_source.locate
    monkeypatch.setattr(yaml_source, "locate", lambda *a: located.append(a[2]) or real_locate(*a))
    model = tmp_path / "service-2.json"
    model.write_text(json.dumps({"shapes": {"DescribeStackResources": {"type": "structure"}}}))
    template = tmp_path / "template.json"
    template.write_text(json.dumps({"Resources": {"Q": {"Type": "AWS::SQS::Queue"}}}))
    assert parse_file(str(model)) is None
    assert located == []
    parsed = parse_file(str(template))
    assert isinstance(parsed.data, JsonMap) and parsed.data.loc_of("Resources").line == 1
    assert located == [str(template)]
    assert parse(model.read_text(), str(model)) is not None  # without a test, everything is located


@pytest.mark.parametrize("kind", ["map", "list"])
def test_the_deepest_location_of_a_document_at_the_nesting_limit(kind):
    # reading the innermost location first, with some of the stack already in use as a
    # loader's would be (255 levels)
    depth = 255
    text = ('{"a": ' * depth + "1" + "}" * depth) if kind == "map" else ("[0, " * depth + "1" + "]" * depth)
    fast, exact = parse_json(text, "deep.json"), parse_yaml(text, "deep.json")
    for _ in range(depth - 1):
        fast, exact = (fast["a"], exact["a"]) if kind == "map" else (fast[1], exact[1])

    def read(levels):
        return fast.loc if levels == 0 else read(levels - 1)

    assert read(200) == exact.loc


def _template_with_unread_bodies(extra_role: str = "") -> str:
    """A queue, a function and a SAM function (read), an IAM group and a build project
    (not read), and a state machine with SAM connectors (read)."""
    return """{
  "AWSTemplateFormatVersion": "2010-09-09",
  "Resources": {
    "Queue": {"Type": "AWS::SQS::Queue", "Properties": {"VisibilityTimeout": 30}},
    "Role": {
      "Type": "AWS::IAM::Group",
      "Properties": {%s
        "Policies": [{"PolicyName": "Queue", "PolicyDocument": {"Statement": [
          {"Effect": "Allow", "Action": "sqs:*", "Resource": {"Fn::Join": ["", ["arn:", ":sqs:", "x"]]}}]}}],
        "Queue": {"Resources": {"Function": 1}}
      }
    },
    "Function": {"Type": "AWS::Lambda::Function", "Properties": {"Timeout": 60, "Role": {"Fn::GetAtt": ["Role", "Arn"]}}},
    "Machine": {"Type": "AWS::CodeBuild::Project", "Properties": {"Source": {"Queue": "x"}}},
    "Connected": {"Type": "AWS::StepFunctions::StateMachine",
                  "Connectors": {"ToQueue": {"Properties": {"Destination": {"Id": "Queue"}}}}},
    "Sam": {"Type": "AWS::Serverless::Function", "Properties": {"Timeout": 3}}
  },
  "Outputs": {"QueueArn": {"Value": {"Fn::GetAtt": ["Queue", "Arn"]}}}
}
""" % extra_role


def _read_bodies(data):
    from fanout_lint.loaders.cloudformation.template import is_read

    return is_read


def test_a_template_locates_only_the_resource_bodies_something_reads():
    # The group's body and the build project's are read by no rule, loader or link (a
    # role's is, and a state machine's: EventBridge reaches one only with a role):
    # they are stepped over, values only. Keys written inside them that name other
    # resources ("Queue", "Function") do not lead the search for the keys after them astray.
    text = _template_with_unread_bodies()
    fast = parse_json(text, "t.json", read=_read_bodies)
    exact = parse_yaml(text, "t.json")
    assert isinstance(fast, JsonMap)  # the fast path, not the fallback
    resources, expected = fast["Resources"], exact["Resources"]
    assert list(resources) == list(expected)
    for logical_id in expected:
        assert resources.loc_of(logical_id) == expected.loc_of(logical_id), logical_id
    for logical_id in ("Queue", "Function", "Connected", "Sam"):
        assert_same(resources[logical_id], expected[logical_id], logical_id)
    for logical_id in ("Role", "Machine"):
        assert type(resources[logical_id]) is dict and resources[logical_id] == expected[logical_id]
    assert_same(fast["Outputs"], exact["Outputs"], "Outputs")
    assert_same(parse_json(text, "t.json"), exact)  # without the test, every body is located


@pytest.mark.parametrize("written", [
    '"Path": "/a", "Path": "/b",',  # a duplicate key json merges
    '"Tags[": 1,',  # a key whose closing quote looks like an opening one to the key count
    '"a,:": 1,',  # a key of punctuation that could match across strings
])
def test_keys_in_an_unread_body_are_held_to_the_same_proof(written):
    # A body stepped over still counts its keys and refuses the keys the located path
    # refuses, so the proof that each key was found at its own writing stays exact.
    text = _template_with_unread_bodies(written)
    fast = parse_json(text, "t.json", read=_read_bodies)
    exact = parse_yaml(text, "t.json")
    resources, expected = fast["Resources"], exact["Resources"]
    for logical_id in expected:
        assert resources.loc_of(logical_id) == expected.loc_of(logical_id), logical_id
    for logical_id in ("Queue", "Function", "Connected", "Sam"):
        assert_same(resources[logical_id], expected[logical_id], logical_id)
