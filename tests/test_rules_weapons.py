"""Weapon scaling laws (8.1 table), Bastard Guns, hand-held categories, Power, throwing."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sandbox.core.errors import RulesError
from sandbox.rules import (
    BattleState,
    HandCategory,
    Specialty,
    TurretSize,
    TurretState,
    WeaponType,
    bastard_gun,
    check_payload,
    check_power,
    compensating_bonus_in,
    hand_held_category,
    minifig,
    power_limit,
    teamwork,
    throwing_arm,
    weapon_profile,
)

sizes = st.integers(1, 40)

# (type, Use(w), Range(w), dice per inch, die sides)
LAWS = {
    WeaponType.MELEE_WEAPON: (lambda w: w + 1, lambda w: 0, None),
    WeaponType.GUN: (lambda w: w + 2, lambda w: 4 * w + 2, 6),
    WeaponType.BLASTGUN: (lambda w: w + 1, lambda w: 2 * w + 2, 8),
    WeaponType.MACHINEGUN: (lambda w: w + 2, lambda w: 3 * w + 2, 6),
    WeaponType.FLAMETHROWER: (lambda w: w + 1, lambda w: 2 * w + 2, 4),
    WeaponType.ROCKET: (lambda w: 2 * w, lambda w: 6 * w, 10),
    WeaponType.CANNON: (lambda w: w + 3, lambda w: 4 * w, None),
    WeaponType.LAUNCHER: (lambda w: 2 * w, lambda w: 6 * w, None),
}


@given(st.sampled_from(sorted(LAWS, key=lambda t: t.value)), sizes)
def test_scaling_laws(wt, w):
    use, rng, sides = LAWS[wt]
    p = weapon_profile(wt, w)
    assert p.use == use(w)
    assert p.range_in == rng(w)
    assert p.power_in == w
    if sides is not None:
        assert p.damage.count == w and p.damage.sides == sides
    if wt is WeaponType.MELEE_WEAPON:
        assert p.damage.sides is None and p.damage.count == w and p.cost_cp == 2 * w


@given(sizes)
def test_explosive_payload_and_shield_laws(w):
    assert weapon_profile("Explosive", w).damage.count == w
    assert weapon_profile("Explosive", w).use is None
    assert weapon_profile("Cannon", w).max_ammo_xsize == w
    launcher = weapon_profile("Launcher", w)
    assert launcher.max_payload_xsize == w and launcher.max_payload_size_in == w // 2
    shield = weapon_profile("Melee Shield", w)
    assert shield.use == 2 * w and shield.deflection_on_parry == w
    plating = weapon_profile("Armor Plating", w)
    assert plating.power_in == 0 and plating.half_speed


@given(sizes, sizes)
def test_bigger_weapons_never_easier_or_shorter(a, b):
    lo, hi = sorted((a, b))
    for wt in LAWS:
        p, q = weapon_profile(wt, lo), weapon_profile(wt, hi)
        assert p.use <= q.use and p.range_in <= q.range_in


def test_notes():
    assert weapon_profile("BlastGun", 2).firing_arc_fixed == 1
    assert not weapon_profile("BlastGun", 2).auto_penalty
    assert weapon_profile("FlameThrower", 1).firing_arc_min == 1
    assert weapon_profile("MachineGun", 1).may_jam
    assert weapon_profile("Cannon", 2).reload_each_shot


@pytest.mark.parametrize("bad", [0, -1, 1.5, float("nan"), "3", True])
def test_bad_sizes(bad):
    with pytest.raises(RulesError):
        weapon_profile("Gun", bad)


def test_unknown_type():
    with pytest.raises(RulesError, match="Laser"):
        weapon_profile("Laser", 1)


def test_bastard_guns_table():
    table = {
        "Bastard Gun": (3, 10, "1d6+1"),
        "ShotGun": (3, 6, "1d8+1"),
        "AutoGun": (3, 8, "1d6+1"),
        "FlameGun": (2, 5, "1d4+1 Fire"),
        "Bazooka": (4, 6, None),
        "RailGun": (4, 8, None),
    }
    for name, (use, rng, dmg) in table.items():
        g = bastard_gun(name)
        assert (g.use, g.range_in) == (use, rng)
        assert (str(g.damage) if g.damage else None) == dmg
        assert g.size == 1.5
    assert bastard_gun("bazooka").max_ammo_xsize == 1
    assert bastard_gun("RailGun").max_payload_xsize == 2
    with pytest.raises(RulesError):
        bastard_gun("Phaser")


def test_hand_held_categories():
    assert hand_held_category(1, 1) is HandCategory.SHORT
    assert hand_held_category(1.5, 1) is HandCategory.BASTARD
    assert hand_held_category(2, 1) is HandCategory.LONG
    assert hand_held_category(2, 1, ranged=True) is HandCategory.NOT_ALLOWED
    assert hand_held_category(3, 1) is HandCategory.NOT_ALLOWED
    # a Size 4" Creation holding a 6" sword: Bastard
    assert hand_held_category(6, 4) is HandCategory.BASTARD
    # Compensating: Heavy as Hand, Two-Handed as Heavy, 3"-4" as Two-Handed; 2" Ranged allowed
    assert hand_held_category(1.5, 1, compensating=True) is HandCategory.SHORT
    assert hand_held_category(2, 1, compensating=True) is HandCategory.BASTARD
    assert hand_held_category(4, 1, compensating=True) is HandCategory.LONG
    assert hand_held_category(2, 1, ranged=True, compensating=True) is HandCategory.BASTARD
    with pytest.raises(RulesError):
        hand_held_category(1, 0)


@given(st.floats(0.1, 10), st.floats(0.1, 10))
def test_category_monotonic_in_weapon_size(h, w):
    order = list(HandCategory)
    assert order.index(hand_held_category(w, h)) <= order.index(hand_held_category(w * 1.3, h))


@given(st.floats(0, 50))
def test_power_laws(es):
    assert power_limit(es) == pytest.approx(2 * es)
    assert power_limit(es, flying=True) == pytest.approx(es)


def test_power_errors_and_zero():
    assert power_limit(0) == 0
    with pytest.raises(RulesError):
        power_limit(-1)
    with pytest.raises(RulesError):
        check_power([-1], 2)


def test_teamwork_and_throwing():
    team = teamwork([1, 1, 1], [6, 4, 8], ranges_in=[3, 3, 2])
    assert team.power_in == 6 and team.action_die == 4 and team.range_in == 2
    with pytest.raises(RulesError):
        teamwork([1, 1], [6])
    arm = throwing_arm()
    assert arm.size == 0.5 and arm.range_in == 3 and arm.max_payload_size_in == 0
    four = throwing_arm([1, 1, 1, 1])
    assert four.size == 2 and four.range_in == 3 and four.max_payload_size_in == 1
    assert check_payload(arm, object_sizes_in=[0]) == 1
    with pytest.raises(RulesError):
        check_payload(arm, object_sizes_in=[1])


def test_turrets_and_compensating():
    t = TurretState(TurretSize.SMALL, 2)
    assert TurretSize.SMALL.power_bonus_in == 2 and TurretSize.LARGE.power_bonus_in == 4
    assert not t.can_fire(1)
    t.set_up(1)
    assert not t.can_fire(1) and t.can_fire(2)
    t.moved()
    assert not t.can_fire(3)
    with pytest.raises(RulesError):
        TurretState(TurretSize.SMALL, 3)
    # a minifig with a Small Turret has 2" + 2" of Power: a 2" weapon plus change
    assert check_power([4], 1, bonus_in=TurretSize.SMALL.power_bonus_in).allowed
    heavy = BattleState(minifig("Heavy", specialties=frozenset({Specialty.HEAVY})))
    assert compensating_bonus_in(heavy) == 1
    heavy.move(2)
    assert compensating_bonus_in(heavy) == 0
    assert compensating_bonus_in(BattleState(minifig())) == 0
