from fanout_lint.model.values import (
    DEFAULT, PARAMETER, VARIABLE, Known, OneOf, Unknown, choice, combine, describe, rests_on_input, to_bool, to_int,
    verdict,
)


def test_verdict_is_none_when_anything_is_unknown():
    assert verdict(lambda a, b: a < b, Known(1), Unknown("x")) is None
    assert verdict(lambda a, b: a < b, Known(1), Known(2)) is True
    assert verdict(lambda a, b: a < b, Known(3), Known(2)) is False


def test_a_condition_is_known_only_when_every_branch_agrees():
    vt = OneOf((Known(30), Known(600)))
    assert verdict(lambda v, t: v < t, vt, Known(45)) is None
    assert verdict(lambda v, t: v < t, vt, Known(900)) is True
    assert verdict(lambda v, t: v < t, vt, Known(10)) is False


def test_choice_collapses_equal_branches_and_keeps_unknowns():
    assert choice([Known(True), Known(True)]) == Known(True)
    assert isinstance(choice([Known(1), Known(2)]), OneOf)
    assert isinstance(choice([Known(1), Unknown("p")]), Unknown)


def test_combine_keeps_the_weakest_origin():
    joined = combine([Known("a"), Known("b", PARAMETER, "P")], "".join)
    assert joined == Known("ab", PARAMETER, "P")
    assert isinstance(combine([Known("a"), Unknown("import")], "".join), Unknown)


def test_coercions_accept_strings_and_reject_garbage():
    assert to_int(Known("30")) == Known(30)
    assert to_int(Known("30.0")) == Known(30)
    assert isinstance(to_int(Known("thirty")), Unknown)
    assert isinstance(to_int(Known(True)), Unknown)
    assert to_bool(Known("TRUE")) == Known(True)
    assert to_bool(Known(False)) == Known(False)
    assert isinstance(to_bool(Known("yes please")), Unknown)


def test_describe_says_where_a_value_came_from():
    assert describe(Known(30, DEFAULT), "s") == "30 s (default)"
    assert describe(Known(604800, PARAMETER, "Retention"), "s") == "604,800 s (default of parameter Retention)"
    assert describe(OneOf((Known(1), Known(2)))) == "1 or 2"
    assert describe(Unknown("x")) == "unknown"


def test_every_bound_is_of_a_whole_number_setting_and_holds_its_default():
    from fanout_lint.model.defaults import BOUNDS, DEFAULTS
    from fanout_lint.model.schema import KINDS

    keys = {f.default for kind in KINDS for f in kind.fields if f.read in ("int", "part")}
    assert set(BOUNDS) <= keys
    for key, bound in BOUNDS.items():
        assert bound.low <= DEFAULTS[key].value <= bound.high, key
        assert bound.source.startswith("https://docs.aws.amazon.com/"), key


def test_a_value_outside_its_bound_is_unknown_whatever_its_origin():
    from fanout_lint.model.values import OneOf, Unknown, within

    assert within(Known(900), 1, 900) == Known(900)
    assert type(within(Known(901), 1, 900)) is Unknown
    assert type(within(Known(10**34, "parameter", "T"), 1, 900)) is Unknown
    assert type(within(OneOf((Known(10), Known(1000))), 1, 900)) is Unknown
    assert within(OneOf((Known(10), Known(None))), 1, 900) == OneOf((Known(10), Known(None)))
    assert within(Known(None), 1, 900) == Known(None)
    assert type(within(Unknown("x"), 1, 900)) is Unknown


def test_a_value_rests_on_an_input_when_any_option_is_a_parameter_or_variable():
    assert rests_on_input(Known("sqs", PARAMETER, "Protocol"))
    assert rests_on_input(OneOf((Known("sqs"), Known("lambda", VARIABLE, "protocol"))))
    assert not rests_on_input(Known("sqs")) and not rests_on_input(Known(30, DEFAULT))
    assert not rests_on_input(Unknown("a parameter without a default"))
