"""Brigandine at the table, third pass (issue 27, items 1-8), each played through
``Game.apply`` / the scene script and quoting 003 Combat."""

from __future__ import annotations

from pathlib import Path

import pytest

from sandbox.core.errors import RulesError
from sandbox.engine.game import Game, open_game
from sandbox.engine.scene import scene_from_dict

REPO = Path(__file__).resolve().parents[1]


def fig(id_, owner, x, y, rot=0.0):
    return {"id": id_, "model": "../models/trooper.ldr", "owner": owner,
            "position": [x, y, 0.0], "rotation": [0.0, 0.0, rot]}


def charge_scene(rot: float, toward=(-2.0, 0.0), forced=None, **extra) -> dict:
    """A knight (Move 16") charging from x = -8 along +x at two spearmen on x = 0 and x = 5,
    who face ``rot`` degrees (90: away from him, -90: toward him, 0: side-on)."""
    data = {
        "name": "charge", "game": "brigandine", "seed": 5,
        "battlefield": {"width": 30.0, "depth": 12.0},
        "players": [{"name": "A"}, {"name": "B"}],
        "units": [fig("knight", "A", -8, 0, 90), fig("s1", "B", 0, 0, rot),
                  fig("s2", "B", 5, 0, rot)],
        "brigandine": {"units": [
            {"id": "knight", "strength": "attk 2HC, def 2HC", "atk": 8, "move": 16.0,
             "weapon": "lance", "morale": 5},
            {"id": "s1", "strength": "attk 1MF, def 1MF", "morale": 2, "weapon": "spear"},
            {"id": "s2", "strength": "attk 1MF, def 1MF", "morale": 2, "weapon": "spear"}]},
        "actions": [{"type": "brig_declare", "player": "A", "turn": 2, "unit": "knight",
                     "does": ["charge"]}],
        "turns": 3}
    if forced:
        data["forced_dice"] = {"brigandine": forced}
    data.update(extra)
    return data


def game_of(data, ldrawdir) -> Game:
    return Game(scene_from_dict(data, "<test>"), REPO / "scenes", ldrawdir=ldrawdir)


def texts(game, type_):
    return [e.text for e in game.events if e.type == type_]


@pytest.mark.parametrize("rot", [90.0, -90.0, 0.0])
def test_a_charge_reaches_an_enemy_facing_it_or_side_on(rot, ldrawdir):
    """Items 1 and 3: "the charging unit must come into contact with enemy forces during the
    charge ... must immediately engage in melee combat" (a facing or side-on spearman too), and
    "If the charging unit is victorious, the unit must continue moving in the same direction
    for the rest of its full movement. If more enemy forces are encountered, melee must be
    immediately resolved again": the second spearman on the line is met."""
    with game_of(charge_scene(rot), ldrawdir) as g:
        g.play_turns(1, 2)
        g.apply({"type": "brig_charge", "player": "A", "unit": "knight", "toward": [-2.0, 0.0]})
        g.end_turn()
        g.end_turn()  # phase 3 resolves
        struck = [e.struck for e in g.events if e.type == "brig_charge" and e.struck]
        assert struck[:2] == ["s1", "s2"], texts(g, "brig_charge")
        assert not any("ends short" in t for t in texts(g, "brig_blocked"))
        b = g.system("brigandine")
        assert not b.units["s1"].standing and not b.units["s2"].standing
        # the whole 16" were ridden, not the 6" to the point aimed at
        assert g.footprint_centre("knight")[0] == pytest.approx(8.0, abs=0.3)


def test_a_charge_must_have_an_enemy_on_its_line(ldrawdir):
    """Item 2: "The charging unit must come into contact with enemy forces during the charge":
    a charge at empty ground is refused (no free double move)."""
    with game_of(charge_scene(90.0), ldrawdir) as g:
        g.play_turns(1, 2)
        with pytest.raises(RulesError, match="must come into contact with enemy forces"):
            g.apply({"type": "brig_charge", "player": "A", "unit": "knight",
                     "toward": [-8.0, 5.0]})
        g.apply({"type": "brig_charge", "player": "A", "unit": "knight", "toward": [0.0, 0.0]})


def test_a_charger_and_a_meleed_unit_may_not_act_further(ldrawdir):
    """Items 4 and 5: "The charging unit may not act further this round" and "Any combatant
    engaging in melee (even if only defending) may not take any further actions this round":
    a bowman charged in phase 3 neither shoots in phase 4 nor melees in phase 5; declaring a
    charge with anything after it is refused."""
    data = charge_scene(-90.0)
    data["units"] = data["units"][:2]
    data["brigandine"]["units"] = data["brigandine"]["units"][:1] + [
        {"id": "s1", "strength": "attk 1LF, def 9LF", "morale": 2, "missile": "javelin"}]
    with game_of(data, ldrawdir) as g:
        g.advance_to(2, "A")
        with pytest.raises(RulesError, match="may not act further"):
            g.apply({"type": "brig_declare", "player": "A", "unit": "knight",
                     "does": ["charge", "melee"]})
        g.apply({"type": "brig_declare", "player": "A", "unit": "knight", "does": ["charge"]})
        g.end_turn()
        g.apply({"type": "brig_declare", "player": "B", "unit": "s1",
                 "does": ["shoot", "melee"]})
        g.end_turn()
        g.apply({"type": "brig_charge", "player": "A", "unit": "knight", "toward": [0.0, 0.0]})
        g.end_turn()
        g.end_turn()  # phase 3 resolves: the knight strikes s1 (def 9: it stands)
        b = g.system("brigandine")
        assert b.units["knight"].charged and b.units["s1"].in_melee and b.units["s1"].standing
        g.end_turn()  # A in phase 4
        with pytest.raises(RulesError, match="engaged in melee this round"):
            g.apply({"type": "brig_shoot", "player": "B", "units": ["s1"], "target": "knight"})
        g.advance_to(5, "A")
        with pytest.raises(RulesError, match="charged this round"):
            g.apply({"type": "brig_melee", "player": "A", "unit": "knight", "target": "s1"})
        g.end_turn()
        with pytest.raises(RulesError, match="engaged in melee this round"):
            g.apply({"type": "brig_melee", "player": "B", "unit": "s1", "target": "knight"})


def test_man_to_man_attacks_are_split_among_two_foes(ldrawdir):
    """Item 6: "Each combatant has attacks equal to his #attk, which he decides how to split
    this amongst the enemy combatants": Sir Bors (#attk 1) attacked by two Wolves strikes only
    Grim, the foe he named (shipped scene brigandine_charge.toml)."""
    with open_game(REPO / "scenes" / "brigandine_charge.toml", ldrawdir=ldrawdir) as g:
        g.play_script()
        assert g.check() == []
        blows = [e for e in g.events if e.type == "brig_blow"]
        assert {e.defender for e in blows if e.attacker == "bors"} == {"grim"}
        assert any(e.attacker == "skarn" for e in blows)


def test_several_man_to_man_orders_must_split_within_attk(ldrawdir):
    data = charge_scene(0.0)
    data["units"] = [fig("hero", "A", 0, 0), fig("f1", "B", -1.3, 0, 90),
                     fig("f2", "B", 1.3, 0, -90)]
    data["brigandine"]["units"] = [
        {"id": "hero", "strength": "attk 2HF, def 3HF", "weapon": "longsword"},
        {"id": "f1", "strength": "attk 1MF, def 1MF", "weapon": "mace"},
        {"id": "f2", "strength": "attk 1MF, def 1MF", "weapon": "mace"}]
    data["actions"] = []
    with game_of(data, ldrawdir) as g:
        g.advance_to(2, "A")
        g.apply({"type": "brig_declare", "player": "A", "unit": "hero", "does": ["melee"]})
        g.advance_to(5, "A")
        g.apply({"type": "brig_melee", "player": "A", "unit": "hero", "target": "f1",
                 "system": "man_to_man", "attacks": 1})
        with pytest.raises(RulesError, match="has #attk 2"):
            g.apply({"type": "brig_melee", "player": "A", "unit": "hero", "target": "f2",
                     "system": "man_to_man", "attacks": 2})
        g.apply({"type": "brig_melee", "player": "A", "unit": "hero", "target": "f2",
                 "system": "man_to_man", "attacks": 1})
        with pytest.raises(RulesError, match="already fights"):
            g.apply({"type": "brig_melee", "player": "A", "unit": "hero", "target": "f2",
                     "system": "man_to_man", "attacks": 1})


def _troll_scene() -> dict:
    data = charge_scene(0.0)
    data["battlefield"] = {"width": 40.0, "depth": 40.0}
    data["units"] = [fig("s1", "A", -1.0, 0), fig("s2", "A", 0.0, -1.0), fig("troll", "B", 0, 0)]
    data["brigandine"]["units"] = [
        {"id": "s1"}, {"id": "s2"},
        {"id": "troll", "strength": "attk 2HF, def 2FC", "fc_class": "lesser", "move": 8.0}]
    # initiative A 5, B 2; s1 rolls 5 (>= lesser 5), troll 1; s2 rolls 5, troll 1
    data["forced_dice"] = {"brigandine": [5, 2, 5, 1, 5, 1]}
    data["actions"] = [
        {"type": "brig_declare", "player": "A", "turn": 2, "unit": u, "does": ["melee"]}
        for u in ("s1", "s2")] + [
        {"type": "brig_melee", "player": "A", "turn": 5, "unit": u, "target": "troll",
         "system": "fantasy"} for u in ("s1", "s2")]
    data["turns"] = 5
    return data


def test_a_fleeing_monster_left_alone_leaves_the_fight(ldrawdir):
    """Item 7: "it will attempt to flee": it runs and, not attacked again through the next
    round, has fled when round 3 begins."""
    with game_of(_troll_scene(), ldrawdir) as g:
        g.play_turns(1, 5)
        troll = g.system("brigandine").units["troll"]
        assert troll.monster.fleeing and troll.standing
        with pytest.raises(RulesError, match="leaving the fight"):
            g.advance_to(10, "B")
            g.apply({"type": "brig_declare", "player": "B", "unit": "troll", "does": ["move"]})
        g.advance_to(17, "A")  # round 3 begins
        assert troll.fled and not troll.standing


def test_a_monster_attacked_while_leaving_fights_to_the_death(ldrawdir):
    """Item 7: "If it is further attacked while leaving, or cornered, the monster will fight
    to the death": Sir Kay's charge catches the leaving troll in round 2."""
    data = _troll_scene()
    data["units"].append(fig("kay", "A", 3.0, -6.0, 0.0))
    data["brigandine"]["units"].append({"id": "kay", "strength": "attk 2HC, def 2HC",
                                        "move": 16.0, "weapon": "lance"})
    # round 2: initiative A 3, B 2; the troll's morale 6+6 against the cavalry charge holds;
    # Fantasy Combat: Kay rolls 5 (>= lesser 5), the troll 1
    data["forced_dice"]["brigandine"] += [3, 2, 6, 6, 5, 1]
    with game_of(data, ldrawdir) as g:
        g.play_turns(1, 5)
        troll = g.system("brigandine").units["troll"]
        assert troll.monster.fleeing
        g.advance_to(10, "A")  # round 2, declarations
        g.apply({"type": "brig_declare", "player": "A", "unit": "kay", "does": ["charge"]})
        g.advance_to(11, "A")
        g.apply({"type": "brig_charge", "player": "A", "unit": "kay",
                 "toward": [float(v) for v in g.footprint_centre("troll")]})
        g.advance_to(12, "A")
        assert troll.monster.to_the_death and not troll.monster.fleeing and troll.standing
        said = [e.monster for e in g.events if e.type == "brig_fantasy" and e.monster]
        assert said[-1] == "fights to the death"


def test_a_surprise_round_only_the_surprising_party_acts(ldrawdir):
    """Item 8: "In a surprise round, only the surprising party may act until the end of the
    melee phase. After the melee phase, all parties may act." (the check itself is the
    referee's: a scene names who surprised)."""
    data = charge_scene(-90.0, surprise=None)
    data.pop("surprise")
    data["brigandine"]["surprise"] = ["A"]
    with game_of(data, ldrawdir) as g:
        for turn in range(2, 6):
            g.advance_to(turn, "A")
            assert g.current_player == "A"
        g.advance_to(6, "B")  # after the melee phase everyone acts again
        assert g.current_player == "B"
        sits = [e for e in g.events if e.type == "turn" and e.get("sits_out")]
        assert len(sits) == 5 and all(e.player == "B" for e in sits)


def test_the_referee_combines_and_splits_initiative(ldrawdir):
    """Item 8: "Each player rolls, not each soldier. The referee may split up or combine
    enemy initiative in a way that makes sense": split sides roll separately."""
    data = charge_scene(-90.0)
    data["brigandine"]["initiative_split"] = {"B": [["s1"], ["s2"]]}
    with game_of(data, ldrawdir) as g:
        init = [e for e in g.events if e.type == "brig_initiative"][0].initiative
        assert set(init) == {"A", "B (s1)", "B (s2)"}
    data = charge_scene(-90.0)
    data["players"].append({"name": "C"})
    data["brigandine"]["initiative_groups"] = [["B", "C"]]
    with game_of(data, ldrawdir) as g:
        init = [e for e in g.events if e.type == "brig_initiative"][0].initiative
        assert set(init) == {"A", "B+C"}
    data = charge_scene(-90.0)
    data["brigandine"]["initiative_split"] = {"B": [["knight"]]}
    with pytest.raises(Exception, match="not a unit of B"):
        game_of(data, ldrawdir)
