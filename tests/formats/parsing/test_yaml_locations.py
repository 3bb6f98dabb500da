"""YAML locations against PyYAML's composer: an independent reading of libyaml's marks.

``parse_yaml`` keeps each collection's offsets in one compact array in the order of its
keys, and rewrites the entry of a key written twice (the last writing counts, as PyYAML's
constructor has it, and the key keeps its first place).
Here every key, item and scalar value of a document is located both ways.
"""

from __future__ import annotations

import yaml

from fanout_lint.loaders.parsing.located import Map, Seq
from fanout_lint.loaders.parsing.yaml_source import parse_yaml
from fanout_lint.model.nodes import Loc


def _loc(start, end=None) -> Loc:
    if end is None:
        return Loc("t.yaml", start.line + 1, start.column + 1)
    return Loc("t.yaml", start.line + 1, start.column + 1, end.line + 1, end.column + 1)


def assert_located(parsed, node, path="$"):
    """Every key, item and scalar value of ``parsed`` where the composer marks it. Keys are
    plain words here, so a key node's text is the key."""
    if isinstance(node, yaml.MappingNode) and node.tag.startswith("tag:yaml.org,2002:"):
        last = {}
        for key_node, value_node in node.value:
            last[key_node.value] = (key_node, value_node)  # the last writing counts
        first_order = list(dict.fromkeys(key_node.value for key_node, _ in node.value))
        assert isinstance(parsed, Map), path
        assert list(parsed) == first_order, path
        for key, (key_node, value_node) in last.items():
            where = f"{path}.{key}"
            assert parsed.loc_of(key) == _loc(key_node.start_mark, key_node.end_mark), where
            assert parsed.key_locs[key] == parsed.loc_of(key), where
            if isinstance(value_node, yaml.ScalarNode) and value_node.tag.startswith("tag:yaml.org,2002:"):
                assert parsed.value_span(key) == _loc(value_node.start_mark, value_node.end_mark), where
                assert parsed.span_of(key) == _loc(key_node.start_mark, value_node.end_mark), where
            assert_located(parsed[key], value_node, where)
    elif isinstance(node, yaml.SequenceNode) and node.tag.startswith("tag:yaml.org,2002:"):
        assert isinstance(parsed, Seq), path
        assert len(parsed) == len(node.value), path
        assert parsed.loc == _loc(node.start_mark), path
        for index, item in enumerate(node.value):
            assert parsed.loc_of(index) == _loc(item.start_mark), f"{path}[{index}]"
            assert parsed.item_locs[index] == _loc(item.start_mark), f"{path}[{index}]"
            assert_located(parsed[index], item, f"{path}[{index}]")


def _many_keys(count: int, repeat: tuple[int, ...]) -> str:
    lines = [f"  Key{index:02}: value{index}" for index in range(count)]
    for index in repeat:  # written again further down, with another value
        lines.insert(count - 1, f"  Key{index:02}: again{index}")
    return "Resources:\n" + "\n".join(lines) + "\n  Tail:\n    - 1\n    - {a: b, c: [d, e]}\n"


def test_a_large_mapping_with_repeated_keys_is_located_key_by_key():
    text = _many_keys(40, (3, 17, 38))
    parsed = parse_yaml(text, "t.yaml")
    assert parsed["Resources"]["Key17"] == "again17"
    assert_located(parsed, yaml.compose(text))


def test_a_small_mapping_with_a_repeated_key_is_located_key_by_key():
    text = "A: 1\nB:\n  x: 1\n  y: [1, 2]\n  x: two\n  z: 3\nA: again\nC: 3\n"
    parsed = parse_yaml(text, "t.yaml")
    assert parsed["B"]["x"] == "two" and parsed["A"] == "again"
    assert_located(parsed, yaml.compose(text))


def test_flow_and_block_collections_and_tags_are_located():
    text = (
        "Resources:\n"
        "  Queue:\n"
        "    Type: AWS::SQS::Queue\n"
        "    Properties: {VisibilityTimeout: 30, Tags: [{Key: a, Value: b}]}\n"
        "  Sub:\n"
        "    Type: AWS::SNS::Subscription\n"
        "    Properties:\n"
        "      Endpoint: !GetAtt Queue.Arn\n"
        "      TopicArn: !Ref Topic\n"
        "      Items:\n"
        "        - !Sub '${AWS::Region}'\n"
        "        - plain\n"
        "        -   spaced: 1\n"
        "            next: 2\n"
    )
    parsed = parse_yaml(text, "t.yaml")
    properties = parsed["Resources"]["Sub"]["Properties"]
    assert properties["Endpoint"] == {"Fn::GetAtt": ["Queue", "Arn"]}
    # the tag and its value are one entry, located where the tag starts
    assert properties["Endpoint"].loc_of("Fn::GetAtt") == Loc("t.yaml", 8, 17, 8, 34)
    assert properties.value_span("Endpoint") == Loc("t.yaml", 8, 17, 8, 34)
    assert_located(parsed, yaml.compose(text))


def test_keys_written_twice_in_a_huge_mapping_cost_one_pass():
    # Each repeated key looked up among all the keys, one at a time, would take some 10**9
    # steps here; the repeated entries are put in place in one pass at the mapping's end.
    count = 50_000
    text = "".join(f"k{index}: {index}\n" for index in range(count))
    text += "".join(f"k{index}: again\n" for index in range(count))
    parsed = parse_yaml(text, "t.yaml")
    assert len(parsed) == count and parsed["k7"] == "again"
    assert parsed.loc_of("k7") == Loc("t.yaml", count + 8, 1, count + 8, 3)
    assert parsed.value_span(f"k{count - 1}") == Loc("t.yaml", 2 * count, 9, 2 * count, 14)


# -- merge keys, as YAML 1.1 and PyYAML read them -------------------------------------

MERGES = """\
base: &base {a: 1, b: 2}
more: &more
  b: 20
  c: 30
nested: &nested
  <<: *base
  d: 4
one: {<<: *base, b: 3}
seq:
  <<: [*more, *base]
  e: 5
inline:
  <<: {a: 10}
  <<: *more
explicit_first:
  a: 100
  <<: *base
deep:
  <<: *nested
quoted:
  "<<": *base
tagged:
  !!str <<: 1
"""


def test_merge_keys_read_as_pyyaml_reads_them():
    parsed = parse_yaml(MERGES, "t.yaml")
    expected = yaml.safe_load(MERGES.replace("  !!str <<: 1\n", "  '<<': 1\n"))
    assert parsed == expected
    assert parsed["seq"] == {"b": 20, "c": 30, "a": 1, "e": 5}  # the first mapping of a sequence wins
    assert parsed["explicit_first"]["a"] == 100  # a key written in the mapping wins, wherever it stands
    assert parsed["quoted"] == {"<<": {"a": 1, "b": 2}}  # only a plain << merges


def test_merged_keys_are_located_where_they_are_written_and_no_fix_edits_them():
    parsed = parse_yaml(MERGES, "t.yaml")
    one = parsed["one"]
    assert one.loc_of("a") == parsed["base"].loc_of("a")  # written in base's mapping, line 1
    assert one.loc_of("b").line == 8  # written here
    assert one.is_shared("a") and parsed["base"].is_shared("a")  # an anchor's value: its aliases read it too
    assert not one.is_shared("b")
    assert parsed["inline"].is_shared("a")  # a merge key's own mapping: read through the merge
    assert parsed["explicit_first"].is_shared("b") and not parsed["explicit_first"].is_shared("a")
    assert parsed["base"].body() is None  # nothing is inserted into an anchored mapping
    assert parsed["explicit_first"].body() is not None


def test_a_merge_of_anything_but_mappings_is_an_error_with_its_line():
    from fanout_lint.loaders.parsing.located import ParseError

    for text, line in (("a: &x 1\nb:\n  <<: *x\n", 3), ("b:\n  c: 1\n  <<: [{a: 1}, 2]\n", 3), ("b: {<<: hello}\n", 1)):
        try:
            parse_yaml(text, "t.yaml")
        except ParseError as exc:
            assert "merge key" in exc.message and exc.line == line, (text, exc.message, exc.line)
        else:
            raise AssertionError(f"no error for {text!r}")
        try:
            yaml.safe_load(text)
        except yaml.YAMLError:
            pass  # PyYAML refuses it too
        else:
            raise AssertionError(f"PyYAML reads {text!r}")
