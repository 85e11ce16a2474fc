"""Damage vs Armor and Deflection, cumulative and Size Damage, Explosions, KnockBack."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sandbox.core.dice import Dice, DiceExpression
from sandbox.core.errors import RulesError
from sandbox.rules import (
    ArmorOutcome,
    BattleState,
    CumulativeDamage,
    Stability,
    UnitKind,
    UnitSpec,
    attack_knockback,
    bastard_gun,
    compare_damage_to_armor,
    damage_after_deflection,
    explosion_rings,
    explosive_power_in,
    premature_detonation,
    size_damage_in,
    size_knockback_in,
    stack_explosions,
    weapon_profile,
)


def stream(*values):
    return Dice(0, forced={"s": list(values)}).stream("s")


def test_deflection_cancels_highest_dice():
    roll = DiceExpression.parse("3d6").roll(stream(5, 2, 4))
    assert damage_after_deflection(roll, 0) == 11
    assert damage_after_deflection(roll, 1) == 6
    assert damage_after_deflection(roll, 2) == 2
    assert damage_after_deflection(roll, 5) == 0
    assert damage_after_deflection(roll, 2, piercing_dice=1) == 6
    phased = DiceExpression.parse("1d12 Phased").roll(stream(7))
    assert damage_after_deflection(phased, 3) == 7
    with pytest.raises(RulesError):
        damage_after_deflection(roll, -1)


@given(st.integers(0, 100), st.integers(0, 100))
def test_armor_comparison_is_strict(d, a):
    out = compare_damage_to_armor(d, a)
    assert (out is ArmorOutcome.DESTROYED) == (d > a)
    assert (out is ArmorOutcome.MATCHED) == (d == a)


def test_cumulative_damage_and_size_damage():
    c = CumulativeDamage(DiceExpression.parse("2d10"))
    with pytest.raises(RulesError):
        c.take(3)
    assert c.take(5, stream(4, 6)) is ArmorOutcome.HELD and c.armor_roll == 10
    assert c.take(5) is ArmorOutcome.MATCHED
    assert c.take(1) is ArmorOutcome.DESTROYED and c.destroyed
    c.new_turn()
    assert c.armor_roll is None and c.damage_taken == 0
    fixed = CumulativeDamage(DiceExpression.parse("4"))
    assert fixed.take(5) is ArmorOutcome.DESTROYED
    rex = BattleState(UnitSpec("Scorpiosaurus Rex", UnitKind.CREATURE, 3, armor="2d10"))
    assert rex.take_size_damage(size_damage_in(12, 11)) == 2
    assert rex.take_size_damage(size_damage_in(11, 11)) == 2
    rex.take_size_damage(2)
    assert rex.effective_size == 0 and rex.destroyed


def test_explosion_bonus_dice_leave_with_their_die():
    # 2d10 rolls 10 (Over the Top: +4) and 3: 17 within 2", then only the 3
    rings = explosion_rings(DiceExpression.parse("2d10 Exp").roll(stream(10, 4, 3)))
    assert [(r.damage, r.knockback_in) for r in rings] == [(17, 3), (3, 1)]


def test_explosion_per_die_modifiers_apply_in_every_ring():
    roll = DiceExpression.parse("2d10 Exp").roll(stream(5, 2), per_die_modifier=-1)
    assert [r.damage for r in explosion_rings(roll)] == [5, 1]


@given(st.lists(st.integers(1, 9), min_size=1, max_size=8))
def test_explosion_rings_shrink(dice):
    rings = explosion_rings(DiceExpression(len(dice), 10, kind="Exp").roll(stream(*dice)))
    assert len(rings) == len(dice)
    assert rings[0].damage == sum(dice)
    assert [r.knockback_in for r in rings] == list(range(len(dice), 0, -1))
    assert all(a.damage >= b.damage for a, b in zip(rings, rings[1:], strict=False))
    # each ring drops the highest remaining die
    assert rings[-1].damage == min(dice)


def test_stacked_explosions_do_not_grow_the_radius():
    rolls = [DiceExpression.parse("2d10 Exp").roll(stream(3, 4)) for _ in range(3)]
    assert stack_explosions(rolls, 1.0) == (21, 6.0)
    assert stack_explosions(rolls, 3.0) == (9, 3.0)
    assert stack_explosions(rolls, 4.5) == (0, 0.0)


def test_knockback():
    assert size_knockback_in(4, 1) == 3
    assert size_knockback_in(1, 4) == 0
    assert size_knockback_in(1.5, 1) == 0
    shotgun = bastard_gun("ShotGun")
    kb = attack_knockback(shotgun, 1, damage=2)
    assert kb.inches == 1 and not kb.may_disrupt
    assert attack_knockback(shotgun, 1, damage=0) is None
    assert attack_knockback(shotgun, 2, damage=5) is None
    big = attack_knockback(weapon_profile("BlastGun", 4), 1, damage=3)
    assert big.inches == 3 and big.may_disrupt
    with pytest.raises(RulesError):
        attack_knockback(weapon_profile("Explosive", 1), 1, 3)


@given(st.floats(0, 20), st.floats(0, 20))
def test_size_knockback_law(w, t):
    kb = size_knockback_in(w, t)
    assert kb >= 0 and kb == int(kb)
    assert kb <= max(0.0, w - t) + 1e-9


def test_premature_detonation_and_explosive_power():
    assert premature_detonation(Stability.UNSTABLE, 1, 3) == "now"
    assert premature_detonation(Stability.UNSTABLE, 0, 3) is None
    assert premature_detonation(Stability.SEMI_STABLE, 3, 3) is None
    assert premature_detonation(Stability.SEMI_STABLE, 4, 3) == "end of turn"
    bomb = weapon_profile("Explosive", 3)
    assert explosive_power_in(bomb, from_launcher=False) == 3
    assert explosive_power_in(bomb, from_launcher=True) == 0
