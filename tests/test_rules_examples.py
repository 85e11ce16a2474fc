"""Chapter 8's worked examples, with the book's dice forced and the book's numbers expected."""

from __future__ import annotations

import pytest

from sandbox.core.dice import Dice, DiceExpression
from sandbox.core.errors import RulesError
from sandbox.rules import (
    ArcTarget,
    ArmorOutcome,
    CumulativeDamage,
    PowerReserve,
    arc_damage_expression,
    bastard_gun,
    check_payload,
    check_power,
    compare_damage_to_armor,
    effective_size,
    explosion_at,
    explosion_rings,
    power_limit,
    resolve_arc_fire,
    weapon_profile,
)


def test_ripper_blade_size_4_melee_weapon():
    """8.1: 'It costs 8CP (Weapon Size x2), has a Use rating of 5 (Weapon Size +1), and does
    4 Action dice of Damage.'"""
    blade = weapon_profile("Melee Weapon", 4)
    assert blade.cost_cp == 8
    assert blade.use == 5
    assert blade.damage == DiceExpression(4, None)
    assert str(blade.damage) == "4 Action dice"
    # a Bayounik's d6 Action die makes it 4d6
    assert str(blade.damage.with_action_die(6)) == "4d6"
    # and a Size 1" Melee Weapon is the standard Hand Weapon: Use 2, 2CP, one Action die
    hand = weapon_profile("Melee Weapon", 1)
    assert (hand.cost_cp, hand.use, hand.damage.count) == (2, 2, 1)


def test_scorpiosaurus_rex_power_limits():
    """8.1: Size 3" Creature, 6" of Power: stinger (5") + one claw (1"), or two claws, not all
    three; after 1" of Size Damage only 4" and the stinger is too big unless Diverting."""
    es = effective_size(3)
    assert power_limit(es) == 6
    assert check_power([5, 1], es).allowed
    assert check_power([1, 1], es).allowed
    all_three = check_power([5, 1, 1], es)
    assert not all_three.allowed and all_three.required_in == 7

    es = effective_size(3, 1)
    assert es == 2 and power_limit(es) == 4
    stinger = check_power([5], es)
    assert not stinger.allowed and stinger.too_big == (5,)
    assert check_power([1, 1], es).allowed
    # Divert All Power for a turn, then the stinger fires
    reserve = PowerReserve()
    assert reserve.divert(es) == 4
    assert check_power([5], es, saved_in=reserve.release()).allowed
    assert reserve.saved_in == 0
    # saved Power helps one activation only
    assert not check_power([5, 1], es, saved_in=4).allowed


def test_your_mama_arc_fire():
    """8.3: Arc 2, Your Mama spans both points: three attacks; +2 Target Size cancels the -2
    Auto Penalty; each attack +2 Damage."""
    flamer = bastard_gun("FlameGun")
    mama = ArcTarget("Your Mama", size_in=4, distance_in=2, arcs_spanned=2)
    assert mama.attacks == 3
    dice = Dice(1, forced={"arc": [3, 1, 1, 4, 3]})
    result = resolve_arc_fire(dice.stream("arc"), flamer, 2, [mama], action_die=6)
    assert result.auto_penalty == -2
    assert len(result.shots) == 3
    for shot in result.shots:
        assert sum(m.action for m in shot.action.modifiers) == 0  # +2 size, -2 Auto
        assert sum(m.damage for m in shot.action.modifiers) == 2  # +2 Damage each
    first, second, third = result.shots
    assert first.hit and first.action.total == 3 and first.damage_total == 1 + 1 + 2
    assert not second.hit and second.action.critical_failure
    assert third.hit and third.damage_total == 3 + 1 + 2
    assert str(arc_damage_expression(flamer, 2, mama)) == "1d4+3 Fire"


def test_shotgun_wedding_damage_expressions():
    """8.3 BlastGun example: every bystander's Damage expression from the Bastard BlastGun."""
    shotgun = bastard_gun("ShotGun")
    assert (shotgun.use, shotgun.range_in, str(shotgun.damage)) == (3, 6, "1d8+1")
    cases = [
        (ArcTarget("Constance", 1.0, 0.5), "1d8+1"),
        (ArcTarget("Constance's baby", 0.5, 0.5), "1d8"),
        (ArcTarget("Wooyang", 1.0, 1.0), "1d8"),
        (ArcTarget("Virginia", 1.0, 2.0), "1d8-1"),  # before the babies' cover
        (ArcTarget("Virginia", 1.0, 2.0, cover_fraction=1 / 3), "1d8-2"),
        (ArcTarget("Virginia's left baby", 0.5, 2.0), "1d8-2"),
        (ArcTarget("Purity", 1.0, 3.0), "1d8-2"),  # before Wooyang's shelter
        (ArcTarget("Purity", 1.0, 3.0, cover_fraction=0.8), "1d8-4"),
        (ArcTarget("Purity's baby", 0.5, 3.0, cover_fraction=0.6), "1d8-4"),
        (ArcTarget("the parson", 1.0, 4.0), "1d8-3"),
    ]
    for target, expected in cases:
        assert str(arc_damage_expression(shotgun, 1, target)) == expected, target.name
    # the baby in Virginia's right hand is fully behind Wooyang: no line of fire
    with pytest.raises(RulesError):
        arc_damage_expression(shotgun, 1, ArcTarget("right baby", 0.5, 2.0, cover_fraction=1.0))
    # a ShotGun fires with a fixed Arc of 1
    with pytest.raises(RulesError):
        arc_damage_expression(shotgun, 2, cases[0][0])


def test_shotgun_wedding_knockback_without_disruption():
    shotgun = bastard_gun("ShotGun")
    dice = Dice(2, forced={"bang": [5, 6]})
    res = resolve_arc_fire(dice.stream("bang"), shotgun, 1, [ArcTarget("Wooyang", 1, 1.0)],
                           action_die=6)
    shot = res.shots[0]
    assert shot.hit and shot.damage_total == 6
    assert shot.knockback.inches == 1 and not shot.knockback.may_disrupt


def test_burnination():
    """8.3 Fire example, dice as in the book: cottage Critical Failure; peasant 1 rolls 4 and
    misses; peasant 2 rolls 5, hits, 2+1+3; peasant 3 is 1" Out of Range, rolls 6, hits, 3,1,2
    and an Over the Top 2, reduced per die to 2,0,1,1 = 4."""
    dragon = weapon_profile("FlameThrower", 3)
    assert (dragon.use, dragon.range_in, str(dragon.damage)) == (4, 8, "3d4 Fire")
    targets = [
        ArcTarget("cottage roof", size_in=4, distance_in=5),
        ArcTarget("peasant 1", 1, 6),
        ArcTarget("peasant 2", 1, 7),
        ArcTarget("peasant 3", 1, 9),
    ]
    dice = Dice(3, forced={"dragon": [1, 4, 5, 2, 1, 3, 6, 3, 1, 2, 2]})
    stream = dice.stream("dragon")
    res = resolve_arc_fire(stream, dragon, 1, targets, action_die=6)
    assert stream.pending_forced == ()
    cottage, p1, p2, p3 = res.shots
    # cottage: +2 Target Size and -1 Auto: +1, but the 1 is a Critical Failure
    assert sum(m.action for m in cottage.action.modifiers) == 1
    assert cottage.action.critical_failure and not cottage.hit
    assert not p1.hit and p1.action.total == 3
    assert p2.hit and p2.damage.naturals == (2, 1, 3) and p2.damage_total == 6
    assert p3.hit and p3.action.total == 4
    assert p3.action.over_the_top_dice == 1
    assert p3.damage.naturals == (3, 1, 2, 2)
    assert p3.damage.values == (2, 0, 1, 1)
    assert p3.damage_total == 4
    # every roll is on the record with its reason
    assert len(stream.records) == 11
    assert "Over the Top" in stream.records[-1].reason


def test_wall_demolition_explosion_rings():
    """8.4: a 3d10 Explosion rolls 3, 6, 7: 16 within 2", 9 to 4", 3 to 6"; the wall's Armor
    roll of 15 falls to 16 and holds at 9; the ground's 8 falls to 9 and holds at 3."""
    stream = Dice(4, forced={"boom": [3, 6, 7]}).stream("boom")
    rings = explosion_rings(DiceExpression.parse("3d10 Exp").roll(stream, "Missile"))
    assert [r.damage for r in rings] == [16, 9, 3]
    assert [r.knockback_in for r in rings] == [3, 2, 1]
    assert [r.outer_in for r in rings] == [2, 4, 6]
    assert explosion_at(rings, 2.0).damage == 16
    assert explosion_at(rings, 3.5).damage == 9
    assert explosion_at(rings, 6.5) is None
    assert compare_damage_to_armor(16, 15) is ArmorOutcome.DESTROYED
    assert compare_damage_to_armor(9, 15) is ArmorOutcome.HELD
    assert compare_damage_to_armor(9, 8) is ArmorOutcome.DESTROYED
    assert compare_damage_to_armor(3, 8) is ArmorOutcome.HELD
    # the tower: 9 Explosion Damage then 4 Collision Damage against the wall's roll of 15
    wall_armor = Dice(4, forced={"armor": [4, 5, 6]}).stream("armor")
    tower = CumulativeDamage(DiceExpression.parse("3d10"))
    assert tower.take(9, wall_armor) is ArmorOutcome.HELD and tower.armor_roll == 15
    assert tower.take(4) is ArmorOutcome.HELD and tower.damage_taken == 13
    # Private Reale: 4 Collision Damage precisely matches Armor 4
    assert compare_damage_to_armor(4, 4) is ArmorOutcome.MATCHED


def test_missile_racks():
    """8.4: a Size 3" Launcher fires up to three Size 1 Explosives, Use 6 each."""
    rack = weapon_profile("Launcher", 3)
    assert rack.use == 6
    assert check_payload(rack, explosive_xsizes=[1, 1, 1]) == 3
    with pytest.raises(RulesError):
        check_payload(rack, explosive_xsizes=[1, 1, 1, 1])
    assert weapon_profile("Explosive", 1).damage == DiceExpression(1, 10, kind="Exp")
