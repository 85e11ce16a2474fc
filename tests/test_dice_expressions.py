"""Dice expressions: parsing, rolling, Over the Top bonus dice, per-die modifiers, records."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sandbox.core.dice import Dice, DiceExpression, roll_expression
from sandbox.core.errors import DiceError


@pytest.mark.parametrize(
    "text, expected",
    [
        ("3d10", (3, 10, 0, "")),
        ("1d8+1", (1, 8, 1, "")),
        ("2d4 Fire", (2, 4, 0, "Fire")),
        ("3d4(Fire)", (3, 4, 0, "Fire")),
        ("d6", (1, 6, 0, "")),
        ("1d8 - 4", (1, 8, -4, "")),
        ("2d10 Exp", (2, 10, 0, "Exp")),
        ("4 Action dice", (4, None, 0, "")),
        ("1 Skill die-1", (1, None, -1, "")),
        ("5", (0, None, 5, "")),
    ],
)
def test_parse(text, expected):
    e = DiceExpression.parse(text)
    assert (e.count, e.sides, e.modifier, e.kind) == expected


@pytest.mark.parametrize("bad", ["", "d", "3d1", "2d4 Banana", "x3", "1d6++1", None, 7])
def test_parse_rejects(bad):
    with pytest.raises(DiceError):
        DiceExpression.parse(bad)


@given(st.integers(1, 9), st.sampled_from([4, 6, 8, 10, 12]), st.integers(-9, 9),
       st.sampled_from(["", "Fire", "Exp"]))
def test_round_trip(count, sides, mod, kind):
    e = DiceExpression(count, sides, mod, kind)
    assert DiceExpression.parse(str(e)) == e


def test_over_the_top_chains_on_maximum():
    s = Dice(0, forced={"d": [4, 4, 2, 3]}).stream("d")
    r = DiceExpression.parse("2d4").roll(s, "test")
    assert r.groups[0] == tuple(s.records[:3])
    assert r.naturals == (4, 4, 2, 3) and r.total == 13 and r.dice_count == 4
    s2 = Dice(0, forced={"d": [4, 3]}).stream("d")
    assert DiceExpression.parse("2d4").roll(s2, over_the_top=False).total == 7


def test_per_die_modifier_floors_each_die():
    s = Dice(0, forced={"d": [3, 1, 2, 2]}).stream("d")
    r = roll_expression(s, "3d4 Fire", "Burnination", per_die_modifier=-1, bonus_dice=1)
    assert r.values == (2, 0, 1, 1) and r.total == 4
    assert [x.reason for x in s.records][-1].endswith("(Over the Top bonus die)")


def test_critical_failure_means_all_ones():
    s = Dice(0, forced={"d": [1, 1, 1, 2]}).stream("d")
    assert DiceExpression.parse("2d6").roll(s).critical_failure
    assert not DiceExpression.parse("2d6").roll(s).critical_failure


def test_action_dice_need_a_die():
    e = DiceExpression.parse("4 Action dice")
    with pytest.raises(DiceError):
        e.roll(Dice(0).stream("x"))
    assert e.with_action_die(8).maximum == 32


def test_seeded_rolls_repeat():
    a = DiceExpression.parse("5d10").roll(Dice(42).stream("boom")).naturals
    b = DiceExpression.parse("5d10").roll(Dice(42).stream("boom")).naturals
    assert a == b


@given(st.integers(0, 6), st.sampled_from([4, 6, 8, 10]), st.integers(-5, 5),
       st.integers(-3, 3), st.integers(0, 2**32))
def test_total_never_negative_and_bounded(count, sides, mod, per_die, seed):
    e = DiceExpression(count, sides if count else None, mod)
    r = e.roll(Dice(seed).stream("p"), per_die_modifier=per_die, over_the_top=False)
    assert 0 <= r.total
    assert r.total <= max(0, count * max(0, sides + per_die) + mod)
