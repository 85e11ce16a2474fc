"""Brigandine combat rules (shared/rules/003), table-driven from the text's own statements."""

from pathlib import Path

import pytest

from sandbox.core.dice import Dice
from sandbox.core.errors import RulesError, SceneError
from sandbox.rules import brigandine as B
from sandbox.rules.brigandine_tables import DEFAULT_DIR, TABLE_FILES, load_table, load_tables

T = load_tables()


def stream(*forced):
    s = Dice(1).stream("t")
    s.force(*forced)
    return s


def unit(name="u", strength="attk 1MF, def 1MF", **kw):
    return B.UnitStats(name, strength=B.parse_strength(strength), **kw)


# ------------------------------------------------------------------ strengths
@pytest.mark.parametrize("text,attk,defence", [
    ("attk 2HF, def 1LC", (2, "HF"), (1, "LC")),
    ("ATTK 1lf, def 3FC", (1, "LF"), (3, "FC")),
    ("attk 10HC,def 4MF", (10, "HC"), (4, "MF")),
])
def test_strength_parses(text, attk, defence):
    s = B.parse_strength(text)
    assert (s.attk, s.defence) == (attk, defence)


@pytest.mark.parametrize("bad", ["attk 2XF, def 1LC", "2HF 1LC", "attk 0HF, def 1LC",
                                 "attk 2FC, def 1LC"])
def test_bad_strength_refused(bad):
    with pytest.raises(RulesError):
        B.parse_strength(bad)


# ------------------------------------------------------------------ initiative, morale
def test_initiative_ties_act_together_and_delay_counts_one():
    s = stream(5, 5, 3, 6, 2)  # red 5, blue 5, green 3, white 6+2 = 8 (explodes)
    init = B.roll_initiative(s, {"red": 6, "blue": 6, "green": 6, "white": 6}, {"green"})
    assert init == {"red": 5, "blue": 5, "green": 1, "white": 8}
    assert B.initiative_groups(init) == [["white"], ["blue", "red"], ["green"]]


@pytest.mark.parametrize("dice,morale,passed", [
    ((3, 4), 7, True), ((3, 3), 7, False), ((6, 6), 12, True), ((1, 1), 2, True),
    ((1, 1), 3, False),
])
def test_morale_2d6_at_least_score(dice, morale, passed):
    assert B.morale_check(stream(*dice), morale).passed is passed


def test_infantry_checks_morale_only_against_cavalry():
    foot, horse = unit(strength="attk 1MF, def 1MF"), unit(strength="attk 1HC, def 2HC")
    assert B.must_check_morale_against_charge(foot, horse)
    assert not B.must_check_morale_against_charge(foot, foot)
    assert not B.must_check_morale_against_charge(horse, horse)


# ------------------------------------------------------------------ missiles
@pytest.mark.parametrize("n,sizes", [(6, [4, 2]), (4, [4]), (9, [4, 4, 1]), (1, [1])])
def test_archers_form_units_of_four(n, sizes):
    assert [len(u) for u in B.form_missile_units([f"a{i}" for i in range(n)])] == sizes


@pytest.mark.parametrize("roll,number,hits", [(3, 4, 0), (4, 4, 1), (5, 4, 2), (9, 4, 6)])
def test_missile_hits_one_plus_roll_minus_number(roll, number, hits):
    assert B.missile_hits(roll, number) == hits


def test_missile_unit_rolls_one_aim_die_on_the_table():
    archers = [unit(f"a{i}", aim=8) for i in range(3)] + [unit("long", aim=8, firing=2)]
    target = unit("t", strength="attk 1MF, def 3MF")
    r = B.resolve_missile_unit(stream(7), T, archers, target)
    assert r.firing == 5 and r.number == T.missile.number(5, "MF")
    assert r.hits == 1 + 7 - r.number


@pytest.mark.parametrize("kind,rounds,shots", [("bow", 3, 6), ("crossbow", 3, 3),
                                                ("arquebus", 4, 2), ("javelin", 2, 2)])
def test_fire_rates_over_rounds(kind, rounds, shots):
    """Bows 2 a round, crossbows 1 (reload in phase 7), arquebuses 1 every other round."""
    w = B.Launcher(kind)
    fired = 0
    for _ in range(rounds):
        w.new_round()
        if w.kind == "arquebus":
            if not w.declare_refusal():
                w.declare()
            elif not w.reload_refusal(B.RELOAD_PHASE):
                w.reload(B.RELOAD_PHASE)
        for phase in range(1, 9):
            if not w.fire_refusal(phase):
                w.fire(phase)
                fired += 1
            if phase == 7 and not w.reload_refusal(7):
                w.reload(7)
    assert fired == shots


def test_crossbow_and_arquebus_start_loaded_and_second_shot_only_for_idle_archers():
    assert B.Launcher("crossbow").loaded and B.Launcher("arquebus").loaded
    bow = B.Launcher("bow")
    assert "fired once" in bow.fire_refusal(8)
    bow.fire(4)
    assert "did nothing but shoot" in bow.fire_refusal(8, did_other=True)
    assert bow.fire_refusal(8) == ""
    xbow = B.Launcher("crossbow")
    xbow.fire(4)
    assert xbow.fire_refusal(8) and "(7)" in xbow.reload_refusal(3)


def test_artillery_lost_when_meleed_kept_when_shot_at():
    kept, lost, busy = B.Launcher("arquebus"), B.Launcher("arquebus"), B.Launcher("arquebus")
    for w in (kept, lost, busy):
        w.declare()
    kept.shot_at()
    lost.meleed()
    busy.crew_acted("moving")
    assert kept.fire_refusal(6) == ""
    assert "meleed" in lost.fire_refusal(6) and "moving" in busy.fire_refusal(6)
    kept.fire(6)
    assert not kept.loaded and "not loaded" in kept.declare_refusal()


# ------------------------------------------------------------------ Skirmish
def test_def_ties_do_not_cancel():
    assert B.negated_by_defence([4, 5], [4, 4]) == 0
    assert B.negated_by_defence([5, 5], [5, 5]) == 0
    assert B.negated_by_defence([4, 5], [5, 6]) == 2
    assert B.negated_by_defence([3, 6], [4, 4]) == 1


@pytest.mark.parametrize("att,dfn,refused", [(5, 3, False), (5, 5, True), (3, 5, True)])
def test_defensive_action_only_for_lower_initiative(att, dfn, refused):
    assert bool(B.defensive_action_refusal(att, dfn)) is refused


def test_skirmish_attack_counts_successes_and_defensive_action():
    att = unit("lancers", "attk 2LC, def 2LC", atk=6)
    dfn = unit("foot", "attk 1HF, def 3HF", def_die=6)
    per_man, number = T.skirmish.cell("LC", "HF")
    assert (per_man, number) == (2, 6)  # C attk against F def: 2 dice a man
    # 4 ATK dice: 6 (explodes +2 = 8), 6? no: 3, 5, 2 -> one success (8); DEF 3 dice 4, 4, 4.
    r = B.skirmish_attack(stream(6, 2, 3, 5, 2, 4, 4, 4), T, att, dfn, 3, defensive_action=True,
                          attacker_initiative=6, defender_initiative=2)
    assert r.atk == (8, 3, 5, 2) and r.successes == 1 and r.negated == 0 and r.def_left == 2
    with pytest.raises(RulesError, match="lower in initiative"):
        B.skirmish_attack(stream(), T, att, dfn, 3, defensive_action=True,
                          attacker_initiative=2, defender_initiative=6)


# ------------------------------------------------------------------ Man-to-Man
@pytest.mark.parametrize("diff,kind", [(2, "none"), (1, "parry_riposte"), (-3, "parry_riposte"),
                                       (-4, "shatter"), (-7, "shatter"), (-8, "shatter_hits")])
def test_parry_outcomes_by_rank_difference(diff, kind):
    assert B.parry_kind(10 + diff, 10) == kind


@pytest.mark.parametrize("round_no,ra,rb,ia,ib,first", [
    (1, 7, 5, 1, 6, "a"), (1, 5, 7, 6, 1, "b"), (2, 5, 7, 1, 6, "a"), (2, 7, 5, 6, 1, "b"),
    (1, 6, 5, 1, 6, "b"), (2, 6, 5, 4, 4, "together"), (1, 5, 5, 5, 2, "a"),
])
def test_strike_order(round_no, ra, rb, ia, ib, first):
    assert B.strike_order(round_no, ra, rb, ia, ib) == first


@pytest.mark.parametrize("ra,rd,extra", [(1, 9, 2), (1, 8, 1), (1, 5, 1), (1, 4, 0), (5, 1, 0)])
def test_extra_blows_for_much_lower_rank(ra, rd, extra):
    assert B.extra_blows(ra, rd) == extra


def _armed(name, weapon, **kw):
    return unit(name, weapon=B.weapon_from_table(T, weapon), **kw)


def test_blow_riposte_and_shatter():
    dagger, pike = _armed("d", "dagger"), _armed("p", "pike")          # ranks 1 and 13
    sword, spear = _armed("s", "sword"), _armed("sp", "spear")        # ranks 5 and 9
    # sword (5) parrying a spear (9): -4 -> shatter when the blow would have hit.
    b = B.resolve_blow(stream(6, 4, 4), T, spear, sword, parry=True)
    assert b.would_hit and not b.hit and b.shattered and not b.riposte
    # spear (9) parrying a sword (5): +4 -> no parry at all.
    with pytest.raises(RulesError, match="cannot parry"):
        B.resolve_blow(stream(), T, sword, spear, parry=True)
    # dagger (1) parrying a pike (13): -12 -> shatter, and a hit through deals an ATK roll.
    b = B.resolve_blow(stream(6, 5, 1, 4), T, pike, dagger, parry=True)
    assert b.hit and b.shattered and b.hits == 4
    # sword parrying a sword: riposte on a miss.
    b = B.resolve_blow(stream(2, 3, 4), T, sword, _armed("s2", "sword"), parry=True)
    assert not b.hit and b.riposte


def test_man_to_man_round_spends_blows_and_defeats():
    a = B.Fighter(_armed("knight", "longsword", atk=8, strength="attk 2HF, def 2HF"), 2)
    b = B.Fighter(_armed("brigand", "dagger", strength="attk 1LF, def 1LF"), 1, parries=False)
    r = B.man_to_man_round(Dice(3).stream("m"), T, a, b, 1, 3, 3)
    assert r.order == "a"  # longsword 7 vs dagger 1: reach strikes first on round 1
    assert r.blows and r.blows[0].attacker == "knight"
    assert r.def_left[1] == 0 or all(not x.hit for x in r.blows if x.attacker == "knight")


# ------------------------------------------------------------------ Fantasy Combat
def test_fc_only_monster_flees_then_fights_to_the_death():
    m = B.MonsterMorale(attk_n=2)
    assert m.struck() == "fights" and m.struck() == "flees" and m.fleeing
    assert m.struck() == "fights to the death" and not m.fleeing
    cornered = B.MonsterMorale(attk_n=3)
    assert cornered.struck(cornered=True) == "fights to the death"


def test_fantasy_exchange_is_simultaneous_and_needs_capability():
    dragon = unit("dragon", "attk 2HC, def 3FC", atk=10, fc_class="dread")
    knight = unit("knight", "attk 1HF, def 1HF", atk=8)
    hero = unit("hero", "attk 1HF, def 1HF", atk=8, legendary=True)
    r = B.fantasy_exchange(stream(8, 2, 4), T, knight, dragon)  # knight 8+2=10, dragon 4
    assert r.struck == (True, True) and r.slays == (False, True)
    r = B.fantasy_exchange(stream(3, 1), T, hero, dragon)
    assert r.struck == (False, False) and r.slays == (True, True)
    with pytest.raises(RulesError):
        B.fantasy_exchange(stream(), T, knight, unit("other"))


# ------------------------------------------------------------------ Jousting
def test_joust_choices_revealed_together_no_dice():
    r = B.resolve_joust(T, B.JoustChoice("helm", "brace"), B.JoustChoice("shield", "low_guard"))
    assert r.outcomes == ("unhorsed", "glance") and r.decided
    with pytest.raises(RulesError):
        B.resolve_joust(T, B.JoustChoice("feet", "brace"), B.JoustChoice("helm", "brace"))


# ------------------------------------------------------------------ tables
def test_default_tables_validate_with_the_users_schema(tmp_path):
    for name in TABLE_FILES:
        load_table(name, DEFAULT_DIR / f"{name}.toml")
    own = tmp_path / "skirmish.toml"
    own.write_text((DEFAULT_DIR / "skirmish.toml").read_text()
                   .replace("LF = [[1, 4]", "LF = [[3, 2]"))
    mine = load_tables(tmp_path)
    assert mine.skirmish.cell("LF", "LF") == (3, 2) and mine.missile == T.missile
    (tmp_path / "missile.toml").write_text("rows = [[1, 2]]\n")
    with pytest.raises(SceneError, match=r"missile.toml: invalid missile table: .*rows\[0\]"):
        load_tables(tmp_path)


def test_data_files_are_package_data():
    text = (Path(__file__).resolve().parents[1] / "pyproject.toml").read_text()
    assert "data/brigandine/*.toml" in text
