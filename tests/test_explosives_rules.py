"""BrikWars 8.4 Explosive variants, Field Hazard blasts, Concussion, Duds, Crash Damage (pure
rules), and the doctests of the explosion modules."""

from __future__ import annotations

import doctest
import importlib

import pytest

from sandbox.core.dice import Dice
from sandbox.core.errors import RulesError
from sandbox.rules.damage import ExplosionRing
from sandbox.rules.explosives import (
    FieldHazard,
    Variant,
    crash_dice,
    explosive_dice,
    field_size_in,
    is_dud,
    opposed_knockback,
    ring_damage,
    roll_crash_damage,
    variant_rings,
)


def stream(*values, name="x"):
    return Dice(0, forced={name: list(values)}).stream(name)


@pytest.mark.parametrize("name", ["sandbox.rules.explosives", "sandbox.physics.breakage"])
def test_doctests(name):
    result = doctest.testmod(importlib.import_module(name))
    assert result.failed == 0 and result.attempted > 0


def test_wall_demolition_rings_and_knockback():
    rings = variant_rings(explosive_dice(3).roll(stream(3, 6, 7)), "explosive")
    assert [r.damage for r in rings] == [16, 9, 3]
    assert [r.knockback_in for r in rings] == [3.0, 2.0, 1.0]
    assert [r.outer_in for r in rings] == [2.0, 4.0, 6.0]


def test_over_the_top_bonus_die_counts_for_knockback_and_leaves_with_its_die():
    # 10 earns a bonus die (4): 3 dice within 2", then the 10 and its bonus go together
    rings = variant_rings(explosive_dice(2).roll(stream(10, 4, 5)), "explosive")
    assert [(r.damage, r.knockback_in) for r in rings] == [(19, 3.0), (5, 1.0)]


def test_phased_costs_two_dice_and_ignores_deflection():
    expr = explosive_dice(4, "phased")  # XSize 5 keeps its odd d10 (test_explosive_variants)
    assert (expr.count, expr.sides, expr.kind) == (2, 12, "Phased")
    rings = variant_rings(expr.roll(stream(9, 4)), "phased")
    assert [r.damage for r in rings] == [13, 4]
    assert [r.knockback_in for r in rings] == [0.0, 0.0]
    assert ring_damage(rings[0], "phased", deflection_layers=3) == 13
    with pytest.raises(RulesError, match="XSize >= 2"):
        explosive_dice(1, "phased")


def test_armor_piercing_dice_cancel_deflection_layers():
    rings = variant_rings(explosive_dice(2, "armor piercing").roll(stream(5, 2)), "armor_piercing")
    assert ring_damage(rings[0], "armor_piercing", deflection_layers=2) == 7
    assert ring_damage(rings[1], "armor_piercing", deflection_layers=2) == 0  # 1 die: 1 layer left
    assert ring_damage(rings[0], "explosive", deflection_layers=1) == 2


def test_incendiary_uses_fire_d4s_and_concussion_does_no_damage():
    assert str(explosive_dice(3, "incendiary")) == "3d4 Fire"
    rings = variant_rings(explosive_dice(2, "concussion").roll(stream(5, 3)), "concussion")
    assert [r.damage for r in rings] == [0, 0]
    assert ring_damage(rings[0], "concussion") == 0
    assert [r.knockback_in for r in rings] == [8.0, 3.0]


def test_concussion_knockback_is_opposed_by_physical_opposition():
    left, rolls = opposed_knockback(stream(2, 1, name="o"), 5.0, 2.0, "tank")
    assert [r.result for r in rolls] == [2, 1] and left == 2.0
    left, _ = opposed_knockback(stream(6, name="o"), 4.0, 1.0, "minifig")
    assert left == 0.0


def test_field_hazard_sizes_and_shrinking():
    assert field_size_in("Smoke", 2) == 8.0
    assert field_size_in("Exposure", 2) == 4.0
    assert field_size_in("Acid", 1) == 2.0  # an Exposure Damage die (F.1)
    assert field_size_in("Fire", 3) == 6.0
    assert field_size_in("Slippery", 1) == 3.0
    f = FieldHazard("Smoke", (0.0, 0.0, 0.0), 2.0, "Red", 1)
    assert [f.shrink(), f.shrink(), f.shrink()] == [1.0, 0.0, 0.0]
    assert not f.active
    with pytest.raises(RulesError):
        field_size_in("Smoke", 0)


def test_duds_on_critical_failure_only_when_declared():
    roll = explosive_dice(2).roll(stream(1, 1))
    assert is_dud(roll) and not is_dud(roll, declare=False)
    assert not is_dud(explosive_dice(2).roll(stream(1, 2)))
    assert is_dud(explosive_dice(2).roll(stream(5, 2)), action_critical_failure=True)


def test_crash_damage_by_momentum():
    assert crash_dice("3d10") == 3 and crash_dice(4) == 1
    assert roll_crash_damage(stream(2, name="c"), 10.0, "2d10", "boulder") == []
    rolls = roll_crash_damage(stream(2, 5, name="c"), 40.0, "2d10", "boulder")
    assert [r.result for r in rolls] == [2, 5]
    with pytest.raises(RulesError):
        crash_dice("lots")


def test_variant_names():
    assert Variant.parse("Armor Piercing") is Variant.ARMOR_PIERCING
    with pytest.raises(RulesError, match="unknown Explosive variant 'nuclear'"):
        Variant.parse("nuclear")
    with pytest.raises(RulesError):
        ring_damage(ExplosionRing(0, 2, 5, 1, (5,)), "explosive", -1)
