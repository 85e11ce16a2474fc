"""Action Rolls, Range, Target Size, Arc and Burst Fire, jamming, Reload, Gunnery, Fire."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sandbox.core.dice import Dice
from sandbox.core.errors import RulesError
from sandbox.rules import (
    ArcTarget,
    BattleState,
    ControlsLedger,
    FireOutcome,
    HomingIn,
    Modifier,
    Specialty,
    UnitKind,
    UnitSpec,
    WeaponState,
    action_roll,
    apply_fire,
    attack_die,
    burning_penalty,
    burning_roll,
    can_spread_fire_to,
    gunnery_support,
    interfere,
    minifig,
    out_of_range_inches,
    panic_run_in,
    resolve_arc_fire,
    resolve_attack,
    resolve_burst_fire,
    roll_damage,
    stop_drop_and_roll,
    target_size_modifier,
    weapon_profile,
)


def stream(*values):
    return Dice(0, forced={"s": list(values)}).stream("s")


def test_action_roll_reaches_use():
    assert action_roll(stream(4), 6, 4).hit
    assert not action_roll(stream(4), 6, 4, [Modifier("Auto", -1)]).hit


def test_critical_failure_misses_whatever_the_bonus():
    r = action_roll(stream(1), 6, 2, [Modifier("big", 10)])
    assert r.critical_failure and not r.hit and r.over_the_top_dice == 0


def test_over_the_top_reaches_high_use():
    # Missile Rack Use 6 at -1: 6 then a bonus 3 -> 8
    r = action_roll(stream(6, 3), 6, 6, [Modifier("x", -1)])
    assert r.hit and r.total == 8 and len(r.rolls) == 2 and r.over_the_top_dice == 0
    # Use 14 needs two maxima in a row
    r = action_roll(stream(6, 6, 2), 6, 14)
    assert r.hit and r.total == 14
    assert not action_roll(stream(6, 2), 6, 14).hit


def test_over_the_top_damage_die_when_not_needed():
    r = action_roll(stream(6), 6, 3)
    assert r.hit and r.over_the_top_dice == 1 and len(r.rolls) == 1


@given(st.integers(1, 6), st.integers(-6, 6), st.integers(0, 12))
def test_hit_rule(natural, mod, use):
    s = stream(natural, 1, 1, 1)
    r = action_roll(s, 6, use, [Modifier("m", mod)])
    if natural == 1:
        assert not r.hit
    elif natural < 6:
        assert r.hit == (natural + mod >= use)


def test_out_of_range_and_melee():
    assert out_of_range_inches(9, 8) == 1 and out_of_range_inches(10.5, 8) == 3
    gun = weapon_profile("Gun", 1)  # Range 6"
    res = resolve_attack(stream(4), gun, action_die=6, distance_in=7.5)
    assert res.action.total == 2 and not res.hit  # -2 Out of Range, Use 3
    res = resolve_attack(stream(5, 4), gun, action_die=6, distance_in=7.5)
    assert res.hit and res.damage_total == 2
    res = resolve_attack(stream(6, 4, 4), gun, action_die=6, distance_in=7.5)
    assert res.hit and res.damage.values == (2, 2)  # Over the Top die; -2 per die
    blade = weapon_profile("Melee Weapon", 4)
    res = resolve_attack(stream(5, 3, 3, 3, 3), blade, action_die=6, target_size_in=6,
                         distance_in=100)
    assert res.hit and res.damage_total == 12 and res.damage.dice_count == 4
    # a 4" blade against a 1" minifig knocks it back 3"
    res = resolve_attack(stream(5, 1, 1, 1, 1), blade, action_die=6, target_size_in=1)
    assert res.knockback.inches == 3 and res.knockback.may_disrupt


def test_single_shot_target_size_is_action_only():
    gun = weapon_profile("Gun", 2)
    res = resolve_attack(stream(2, 3, 3), gun, action_die=6, distance_in=1, target_size_in=8)
    assert res.action.total == 6 and res.damage_total == 6


def test_arc_weapons_must_arc():
    with pytest.raises(RulesError):
        resolve_attack(stream(3), weapon_profile("FlameThrower", 1), action_die=6)
    with pytest.raises(RulesError):
        resolve_arc_fire(stream(3), weapon_profile("FlameThrower", 1), 0, [], action_die=6)
    with pytest.raises(RulesError):
        resolve_arc_fire(stream(3), weapon_profile("Gun", 1), 1, [], action_die=6)
    with pytest.raises(RulesError):
        resolve_attack(stream(3), weapon_profile("Explosive", 1), action_die=6)


@given(st.floats(0, 20))
def test_target_size_monotonic(s):
    assert target_size_modifier(s) <= target_size_modifier(s + 0.5)


def test_machinegun_jams_when_natural_below_auto_penalty():
    mg = weapon_profile("MachineGun", 2)  # Use 4
    targets = [ArcTarget("a", 2), ArcTarget("b", 2), ArcTarget("c", 2)]
    # Arc 3: -3, +1 Target Size. a: 6 hits; b: 2 < 3 -> fires that round and jams
    res = resolve_arc_fire(stream(6, 1, 1, 1, 2), mg, 3, targets, action_die=6)
    assert res.inoperative and len(res.shots) == 2 and res.shots[1].jammed
    assert [s.target for s in res.shots] == ["a", "b"]
    state = WeaponState(mg)
    state.fire(1, jammed=res.inoperative)
    assert not state.can_fire(2)
    state.reload(2)
    assert not state.can_fire(2) and state.can_fire(3)
    with pytest.raises(RulesError):
        state.fire(2)
    state.fire(3)
    with pytest.raises(RulesError):
        state.reload(3)


def test_burst_fire():
    mg = weapon_profile("MachineGun", 1)  # Use 3, Range 5"
    tgt = ArcTarget("tank", 4, 3)
    res = resolve_burst_fire(stream(5, 2, 4, 3, 2), mg, 3, tgt, action_die=6)
    assert res.auto_penalty == -3
    assert [s.hit for s in res.shots] == [True, True, False]
    assert res.shots[0].action.total == 4  # 5 - 3 + 2
    assert res.shots[2].jammed and res.inoperative
    with pytest.raises(RulesError):
        resolve_burst_fire(stream(1), mg, 1, tgt, action_die=6)
    with pytest.raises(RulesError):
        resolve_burst_fire(stream(1), weapon_profile("Gun", 1), 3, tgt, action_die=6)


def test_cannon_and_launcher_reload():
    cannon = WeaponState(weapon_profile("Cannon", 2))
    cannon.fire(1)
    assert not cannon.can_fire(2)
    with pytest.raises(RulesError):
        cannon.reload(2)
    with pytest.raises(RulesError):
        cannon.reload(2, ammo_xsize=3)
    cannon.reload(2, ammo_xsize=2)
    assert cannon.can_fire(3)
    launcher = WeaponState(weapon_profile("Launcher", 3))
    launcher.fire(1)
    assert not launcher.can_fire(2)
    launcher.reload(2)
    assert launcher.can_fire(2)


def test_gunnery():
    gunner = minifig("gunner", specialties=frozenset({Specialty.GUNNER}))
    assert attack_die(gunner, mounted_weapon=True) == 8
    assert attack_die(gunner, mounted_weapon=False) == 6
    assert attack_die(minifig(), mounted_weapon=True) == 6
    assert gunnery_support(2, 3).action == 2
    with pytest.raises(RulesError):
        gunnery_support(3, 3)  # team of 4 on a 3" weapon
    homing = HomingIn(4)
    assert homing.modifier(2, aim="bunker").action == 2
    assert homing.modifier(3, aim="bunker").action == 5
    homing.after_attack(action_roll(stream(1), 6, 5))
    assert homing.bonus == 0
    homing.modifier(1, aim="bunker")
    assert homing.modifier(1, aim="tower").action == 1  # aimed elsewhere: start over
    homing.moved()
    assert homing.bonus == 0
    assert interfere(stream(4), 6, "saboteur").action == -4


def test_controls_ledger():
    ledger = ControlsLedger()
    ledger.begin_turn("red")
    ledger.operate("gun", "red")
    assert not ledger.can_operate("gun", "red")  # once per turn
    ledger.begin_turn("blue")  # red's ally
    assert not ledger.can_operate("gun", "blue", allies=["red"])
    with pytest.raises(RulesError):
        ledger.operate("gun", "blue", allies=["red"])
    ledger.begin_turn("green")  # an enemy hijacker uses it at once
    ledger.operate("gun", "green", allies=[])
    ledger.begin_turn("red")
    ledger.begin_turn("blue")
    assert ledger.can_operate("gun", "blue", allies=["red"])


def test_catching_fire_and_burning():
    peasant = BattleState(minifig("peasant"))
    roll = roll_damage(stream(3, 1, 2), weapon_profile("FlameThrower", 3).damage,
                       [Modifier("Out of Range", 0, -3, True)])
    assert roll.total == 0 and apply_fire(roll, peasant) is FireOutcome.NONE
    crit = roll_damage(stream(1, 1, 1), weapon_profile("FlameThrower", 3).damage,
                       [Modifier("size", 0, 5)])
    assert crit.total > 0 and apply_fire(crit, peasant) is FireOutcome.NONE
    roll = roll_damage(stream(2, 1, 3), weapon_profile("FlameThrower", 3).damage)
    assert apply_fire(roll, peasant) is FireOutcome.ON_FIRE and peasant.on_fire
    assert peasant.hands_usable == 1
    assert burning_penalty(stream(3), peasant).action == -3
    peasant.move(2)
    assert panic_run_in(peasant) == 3
    b = burning_roll(stream(3), peasant)
    assert not b.extinguished and b.grinding_damage == 1 and peasant.useless_limbs == 1
    b = burning_roll(stream(1), peasant)
    assert b.extinguished and not peasant.on_fire and panic_run_in(peasant) == 0
    with pytest.raises(RulesError):
        burning_roll(stream(2), peasant)
    peasant.on_fire = True
    stop_drop_and_roll(peasant)
    assert peasant.disrupted and not peasant.on_fire
    djinni = BattleState(UnitSpec("djinni", UnitKind.CREATURE, 2, made_of_fire=True))
    assert apply_fire(roll, djinni) is FireOutcome.NONE
    cottage = BattleState(UnitSpec("cottage", UnitKind.STRUCTURE, 6, armor="3d10"))
    assert apply_fire(roll, cottage) is FireOutcome.HAZARD_CHECK
    assert can_spread_fire_to(1) and not can_spread_fire_to(2)
