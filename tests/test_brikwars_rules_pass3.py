"""BrikWars rules at the table, third pass (issue 27 items 9-14): each played through
``Game.apply`` with the text it follows quoted (BrikWars ch. 8, F, 13)."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

from sandbox.engine.game import Game
from sandbox.engine.scene import load_scene

HEAD = """
name = "rules pass 3"
seed = 3
turns = 3
[battlefield]
width = 40
depth = 30
[[players]]
name = "Red"
side = "north"
[[players]]
name = "Blue"
side = "south"
[[players]]
name = "Green"
side = "north"
"""


def unit(uid, x, y, move=5.0, extra="", owner="Red", size=1):
    return textwrap.dedent(f"""
    [[units]]
    id = "{uid}"
    owner = "{owner}"
    position = [{x}, {y}, 0]
    stats = {{ size = {size}, armor = 30, move = {move}{extra} }}
    parts = [ {{ part = "3005", colour = 4, position = [0, 0, 0] }},
              {{ part = "3005", colour = 4, position = [0, 0, 0.378] }},
              {{ part = "3005", colour = 4, position = [0, 0, 0.756] }} ]
    """)


def table(tmp_path, *parts) -> Game:
    """A game at turn 1 with no scripted actions: the test applies them."""
    p = tmp_path / "s.toml"
    p.write_text(HEAD + "".join(textwrap.dedent(x) for x in parts))
    spec, base = load_scene(p)
    return Game(spec, base)


def act(g: Game, **kw) -> list[dict]:
    """Apply one action at the table (the path a player's click takes)."""
    return g.apply({"turn": g.turn, **kw})


# ---------------------------------------------------------------------- 11: F.1 Slippery
ICE = """
[[fields]]
id = "ice"
hazard = "difficult"
terrain = "slippery"
size = 6
dice = "1d6"
centre = [0, 0]
radius = 3
"""


def test_a_unit_standing_on_ice_is_stuck_and_walks_only_what_is_left(tmp_path):
    """F.1 Slippery Fields "force units to continue in whatever direction they were already
    moving (or to remain stuck in place if they weren't moving), spending their own Move inches
    equal to the Hazard inches. They may then use whatever Move inches they have remaining."
    A unit standing on ice (Hazard 2" forced on its 1d6, Move 5") has 3" left: asked 5" it
    walks 3"."""
    g = table(tmp_path, ICE, unit("u", 0, 0, move=5), "[forced_dice]\nhazard = [2]\n")
    try:
        start = g.footprint_centre("u").copy()
        act(g, type="move", player="Red", unit="u", to=[5.0, 0.0])
        end = g.footprint_centre("u")
        walked = float(np.linalg.norm(end - start))
        assert 2.7 < walked < 3.3, walked
        stuck = [e for e in g.events if e["type"] == "stuck"]
        assert len(stuck) == 1 and stuck[0]["inches"] == 2 and stuck[0]["left"] == 3
        assert not [e for e in g.events if e["type"] == "pushed"]  # stuck: no slide
        assert g.system("skirmish").move_allowance("u") == pytest.approx(0.0)
    finally:
        g.close()


def test_stuck_on_ice_a_short_step_leaves_the_rest(tmp_path):
    """The same unit asked for 1": 1" walked + 2" spent on the ice, 2" of Move left; a second
    step that turn is made while moving (no second stuck)."""
    g = table(tmp_path, ICE, unit("u", 0, 0, move=5), "[forced_dice]\nhazard = [2, 2]\n")
    try:
        act(g, type="move", player="Red", unit="u", to=[1.0, 0.0])
        assert g.system("skirmish").move_allowance("u") == pytest.approx(2.0, abs=1e-3)
        act(g, type="move", player="Red", unit="u", to=[2.0, 0.0])  # moving now: slides
        assert len([e for e in g.events if e["type"] == "stuck"]) == 1
    finally:
        g.close()


# ---------------------------------------------------------------------- 12: F.3 Mark
SMOKE = """
[[fields]]
id = "smoke"
hazard = "smoke"
size = 3
centre = [-3.5, 0]
radius = 1.2
height = 6
"""

MARK_UNITS = (unit("scout", 4, 0, extra=", scout = true", owner="Red")
              + unit("gunner", -7, 0, owner="Green",
                     extra=', weapons = [{ type = "Gun", size = 1 }]')
              + unit("blue", 0, 6, owner="Blue", extra=', weapons = [{ type = "Gun", size = 1 }]')
              + unit("t", 0, 0, owner="Blue"))


def _to_green(g: Game) -> None:
    act(g, type="end_turn", player="Red")
    act(g, type="end_turn", player="Blue")
    assert g.current_player == "Green"


def test_an_allied_scouts_mark_gives_the_bonus_and_the_sight(tmp_path):
    """F.3: "Until the beginning of the Scout's next turn, the Marked target is considered
    visible to all allies, and all allies making Ranged attacks on a Marked target do so with
    a +1 Action Bonus." Red's Scout Marks the Blue target; Green (Red's ``side``) fires
    through Smoke at it with +1; Blue, an enemy, gets nothing from the Mark."""
    g = table(tmp_path, SMOKE, MARK_UNITS, "[forced_dice]\nattack = [6]\n")
    try:
        act(g, type="mark", player="Red", scout="scout", target="t")
        assert g.hazards.mark_bonus("blue", "t") is None  # an enemy of the Scout
        _to_green(g)
        sk = g.system("skirmish")
        pv = sk.attack_preview("gunner", 0, "t")
        assert pv.sight.blocked_by == "smoke" and pv.allowed, pv.reason
        assert [m.action for m in pv.modifiers if "Mark" in m.source] == [1]
        ev = act(g, type="attack", player="Green", unit="gunner", target="t")
        atk = next(e for e in ev if e["type"] == "attack")
        assert any("Mark" in m["source"] and m["action"] == 1 for m in atk["modifiers"])
    finally:
        g.close()


def test_without_a_mark_smoke_hides_the_target(tmp_path):
    """The same shot with no Mark: Smoke "blocks vision completely" (F.1): refused."""
    g = table(tmp_path, SMOKE, MARK_UNITS)
    try:
        _to_green(g)
        with pytest.raises(Exception, match="smoke"):
            act(g, type="attack", player="Green", unit="gunner", target="t")
    finally:
        g.close()


GRENADE = """
[[creations]]
id = "grenade"
owner = "Green"
position = [-2.6, -0.6, 0.0]
stats = { size = 0.5, armor = 0, move = 0.0 }
parts = [ { part = "3005", colour = 2, position = [0.0, 0.0, 0.0] } ]
[[explosives]]
body = "grenade"
xsize = 1
stability = "semi-stable"
"""


@pytest.mark.parametrize("marked", [True, False])
def test_a_mark_lifts_the_unseen_target_penalty_of_a_throw(tmp_path, marked):
    """8.4: "Attacks fired over obstacles are subject to a possible -5 Attack Penalty if the
    attacker is firing at targets he can't see (5.1: Making Attacks), but this can be
    circumvented by using a Scout's Tracking ability (F.3: The Scout)". A Green grenadier
    throws at an unseen Blue target (forced 4 on the d6, Use 2): with the Mark of an allied
    (Red, same ``side``) Scout it is a hit (4); without, 4 - 5 = -1, a miss."""
    g = table(tmp_path, unit("scout", 4, 0, extra=", scout = true", owner="Red"),
              unit("thrower", -2.0, 0, owner="Green"), unit("t", 0.9, 0, owner="Blue"),
              GRENADE, "[forced_dice]\nprojectile = [4]\nexplosion = [1]\n")
    try:
        if marked:
            act(g, type="mark", player="Red", scout="scout", target="t")
        _to_green(g)
        act(g, type="throw", player="Green", throwers=["thrower"], payload="grenade",
            target=[0.9, 0.0, 0.9], target_body="t", unseen=True)
        rolled = [e for e in g.events if e["type"] == "attack" and "flight" in e]
        assert rolled and rolled[0]["hit"] is marked
        assert rolled[0]["total"] == (4 if marked else -1)
        assert bool([e for e in g.events if e["type"] == "mark_sight"]) is marked
    finally:
        g.close()


# ---------------------------------------------------------------------- 13: 13.2 Reinforcements
def reserve(uid, x, y, owner="Red"):
    return unit(uid, x, y, owner=owner).replace("[[units]]", "[[reserves]]")


def reinforcement_table(tmp_path, *extra) -> Game:
    p = tmp_path / "s.toml"
    head = HEAD.replace('name = "Red"\nside = "north"',
                        'name = "Red"\nside = "north"\nstrategy_bricks = 3')
    p.write_text(head + "".join(textwrap.dedent(x) for x in (
        unit("cmd", -15, 0, extra=', specialties = ["Commander"]'),
        unit("enemy", 10, 0, owner="Blue"),
        reserve("fresh", -18, 5), reserve("east", 18, 5)) + extra))
    spec, base = load_scene(p)
    return Game(spec, base)


def test_reinforcements_enter_at_a_safe_edge_point_and_arrive_at_the_turns_end(tmp_path):
    """13.2 Non-Escapade Reinforcements: "If a battlefield doesn't have assigned friendly
    edges, Reinforcements can enter from any part of the battlefield edge that's closer to a
    friendly or allied unit than it is to any enemy units, and with no enemy units within ten
    inches." and "Reinforcements appear at the end of the turn they're called in on"."""
    g = reinforcement_table(tmp_path)
    try:
        ev = act(g, type="reinforcements", player="Red", commander="cmd", units=["fresh"],
                 entry=[-20.0, 5.0])
        assert [e["type"] for e in ev if e["type"] == "reinforcements"]
        assert "fresh" not in g.bodies  # not yet: at the end of the turn
        assert g.bombardment.strategy_pile("Red") == 2  # one brick per Unit Inch
        act(g, type="end_turn", player="Red")
        assert "fresh" in g.bodies and "fresh" in g.world.bodies
        assert any(e["type"] == "arrival" and e["unit"] == "fresh" for e in g.events)
    finally:
        g.close()


@pytest.mark.parametrize("extra, entry, units, why", [
    # an enemy 9.2" from the entry point: "with no enemy units within ten inches"
    (unit("near", -14, 12, owner="Blue"), [-20.0, 5.0], ["fresh"], "within 10"),
    # not on the edge
    ("", [-15.0, 5.0], ["fresh"], "not on the battlefield edge"),
    # the east edge: 11.2" from the enemy, 35.4" from the Commander (the nearest friend)
    ("", [20.0, 5.0], ["east"], "closer to a friend"),
])
def test_reinforcements_refused_at_an_unsafe_entry_point(tmp_path, extra, entry, units, why):
    """The same rule's refusals, each with its numbers; nothing changes."""
    g = reinforcement_table(tmp_path, extra)
    try:
        with pytest.raises(Exception, match=why):
            act(g, type="reinforcements", player="Red", commander="cmd", units=units,
                entry=entry)
        assert g.bombardment.strategy_pile("Red") == 3
    finally:
        g.close()


def test_an_allied_unit_makes_an_edge_point_safe(tmp_path):
    """"closer to a friendly or allied unit": Green (Red's ``side``) stands 3.6" from the east
    entry point, the enemy 11.2" away: Red's Reinforcements may enter there."""
    g = reinforcement_table(tmp_path, unit("ally", 17, 7, owner="Green"))
    try:
        act(g, type="reinforcements", player="Red", commander="cmd", units=["east"],
            entry=[20.0, 5.0])
        act(g, type="end_turn", player="Red")
        assert "east" in g.bodies
    finally:
        g.close()


# ---------------------------------------------------------------------- 9: 8.1/8.4 Rocket Power
def creation(cid, x, y, extra="", owner="Red", size=1):
    return textwrap.dedent(f"""
    [[creations]]
    id = "{cid}"
    owner = "{owner}"
    position = [{x}, {y}, 0]
    stats = {{ size = {size}, armor = "2d10", move = 4{extra} }}
    parts = [ {{ part = "3001", colour = 7, position = [0, 0, 0] }} ]
    """)


def rocket(xsize, more=""):
    return f', weapons = [{{ type = "Rocket", size = {xsize}{more} }}]'


@pytest.mark.parametrize("xsize, allowed", [(3, False), (2, True)])
def test_a_creation_pays_a_rockets_xsize_in_power(tmp_path, xsize, allowed):
    """8.4: "When an Explosive or Rocket is dropped, thrown, or fired directly by a Creation,
    the XSize is also the amount of Power it takes to properly activate the weapon." A Size 1"
    Creation has 2" of Power (8.1): an XSize 3 Rocket is refused, an XSize 2 one spends 2"."""
    g = table(tmp_path, creation("rig", -4, 0, extra=rocket(xsize)), unit("t", 0, 0, owner="Blue"),
              "[forced_dice]\nprojectile = [6]\nexplosion = [1, 1, 1]\n")
    try:
        pv = g.skirmish.attack_preview("rig", 0, "t")
        assert pv.allowed is allowed, pv.reason
        if not allowed:
            assert 'needs 3" more' in pv.reason and "XSize in Power" in pv.reason
            with pytest.raises(Exception, match="Power"):
                act(g, type="attack", player="Red", unit="rig", target="t")
            return
        ev = act(g, type="attack", player="Red", unit="rig", target="t")
        power = [e for e in ev if e["type"] == "power"]
        assert power and power[0]["inches"] == 2 and power[0]["left"] == 0
    finally:
        g.close()


@pytest.mark.parametrize("xsize, heavy, allowed", [(1, False, True), (2, False, False),
                                                   (2, True, True), (3, True, False)])
def test_a_minifig_fires_a_rocket_by_hand_within_the_hand_held_limits(tmp_path, xsize, heavy,
                                                                      allowed):
    """8.1 Explosive Size: points of XSize count "as if they were inches of Weapon Size"; 8.1
    Hand-Held Weapons: "A Weapon up to the Creation's Size is Short (S) for that Creation. Up to
    one-and-a-half times its Size is a Bastard Weapon (M), and up to twice the Creation's Size
    is Long (L)", and a Ranged weapon is never Long. A minifig (Size 1") fires an XSize 1
    Rocket by hand; XSize 2 only as a Heavy Compensating (standing still); XSize 3 never."""
    spec = ', specialties = ["Heavy"]' if heavy else ""
    g = table(tmp_path, unit("trooper", -4, 0, extra=rocket(xsize) + spec),
              unit("t", 0, 0, owner="Blue"))
    try:
        pv = g.skirmish.attack_preview("trooper", 0, "t")
        assert pv.allowed is allowed, pv.reason
        if not allowed:
            assert "Not Allowed (8.1 Hand-Held Weapons, Explosive Size)" in pv.reason
            assert f"XSize {xsize}" in pv.reason
    finally:
        g.close()


# ---------------------------------------------------------------------- 10: 8.2 Armor Plating
def plated(plating, extra="", owner="Blue"):
    return creation("tank", 0, 0, owner=owner, size=2,
                    extra=f', deflection = 2, plating = "{plating}"' + extra)


def gunner():
    return unit("gunner", -4, 0, extra=', weapons = [{ type = "Gun", size = 1 }]')


def test_armor_plating_deflects_a_guns_die(tmp_path):
    """8.2 Armor Plating: "Effect: Deflection over covered area"; "Unless they specifically
    target an un-Armored section, their attack will Koincidentally hit any section of Armor
    Plating that is visible and within range". A Size 1" Gun's single d6 (a 5) meets two
    layers: cancelled, 0 Damage lands."""
    g = table(tmp_path, plated("whole"), gunner(),
              "[forced_dice]\nattack = [5, 5]\n")
    try:
        ev = act(g, type="attack", player="Red", unit="gunner", target="tank")
        d = next(e for e in ev if e["type"] == "deflection")
        assert d["layers"] == 2 and d["before"] == 5 and d["after"] == 0
        assert next(e for e in ev if e["type"] == "damage")["damage"] == 0
    finally:
        g.close()


def test_an_unarmored_section_is_aimed_past_partial_plating(tmp_path):
    """The same shot "specifically" aimed at an un-Armored section of a Creation plated only
    in part: the 5 lands; against whole Plating there is no such section (refused)."""
    g = table(tmp_path, plated("part"), gunner(),
              "[forced_dice]\nattack = [5, 5]\n")
    try:
        ev = act(g, type="attack", player="Red", unit="gunner", target="tank", part="unarmored")
        assert not [e for e in ev if e["type"] == "deflection"]
        assert next(e for e in ev if e["type"] == "damage")["damage"] == 5
    finally:
        g.close()
    g = table(tmp_path, plated("whole"), gunner())
    try:
        with pytest.raises(Exception, match="covers all of it"):
            act(g, type="attack", player="Red", unit="gunner", target="tank", part="unarmored")
    finally:
        g.close()


def test_a_joint_is_armored_one_d10_lower(tmp_path):
    """8.1: "hinges, joints, and other moving attachment points are weak points Armored at
    one d10 lower than the rest of the Creation". The tank's 2d10 Armor rolls 3 + 3 = 6; its
    turret ring (scene data ``joints``) is hit with Armor 6 - 3 (the d10 less) = 3: the Gun's 5
    beats it although it would not beat 6. Partial Plating: a joint lies outside it."""
    g = table(tmp_path, plated("part", ', joints = ["turret ring"]'), gunner(),
              "[forced_dice]\nattack = [5, 5]\narmor = [3, 3, 3]\n")
    try:
        ev = act(g, type="attack", player="Red", unit="gunner", target="tank", part="joint")
        wp = next(e for e in ev if e["type"] == "weak_point")
        assert wp["penalty"] == -3
        dmg = next(e for e in ev if e["type"] == "damage")
        assert dmg["damage"] == 5 and dmg["armor"] == 3 and dmg["destroyed"]
    finally:
        g.close()


def test_plating_halves_speed_and_forbids_sprint(tmp_path):
    """8.2: "the Creation is permanently at Half Speed for as long as the Armor Plating is
    attached" and "No alternate forms of Movement" (read at the table: no Sprint). A plated
    Creation of Move 4" moves 2"."""
    g = table(tmp_path, plated("whole", owner="Red"))
    try:
        assert g.skirmish.move_allowance("tank") == pytest.approx(2.0)
        assert "Armor Plating (whole): 2 layers; Half Speed, no Sprint (8.2)" in \
            g.skirmish.stat_card("tank")
        with pytest.raises(Exception, match="Half Speed under Armor Plating"):
            act(g, type="move", player="Red", unit="tank", to=[3.0, 0.0])
        with pytest.raises(Exception, match="no Sprint"):
            act(g, type="move", player="Red", unit="tank", to=[3.0, 0.0], sprint=True)
        c = g.footprint_centre("tank")
        act(g, type="move", player="Red", unit="tank", to=[float(c[0]) + 1.9, float(c[1])])
        assert g.skirmish.move_allowance("tank") == pytest.approx(0.1, abs=1e-3)
    finally:
        g.close()


# ---------------------------------------------------------------------- 14: the ShotGun Wedding
def test_the_shotgun_wedding_takes_cover_from_the_bodies_in_between():
    """8.3 BlastGuns, "ShotGun Wedding": "Between Constance's baby and the baby in her own left
    hand, Virginia has 1/3 cover from babies, reducing her risk by another -1"; Purity, "almost
    completely shielded behind Wooyang. With only tiny portions showing, [is] at -2 to Damage";
    and for Arc Fire "modifiers for cover and Target Size not only affect the Action Roll for
    the attack, but also apply to the Damage". The shipped scene measures cover by rays from
    Grundy's eye (as line of sight) in thirds and plays the blast through ``Game.apply``."""
    from conftest import REPO

    from sandbox.rules.attacks import ArcTarget, arc_modifiers

    spec, base = load_scene(REPO / "scenes" / "shotgun_wedding.toml")
    shot = spec.actions[0]
    with Game(spec.model_copy(update={"actions": []}), base) as g:
        pv = g.skirmish.attack_preview("grundy", 0, "wooyang")
        cover = {h.key: round(h.cover, 3) for h in pv.arc_hits}
        assert cover["wooyang"] == 0 and cover["virginia"] == pytest.approx(1 / 3, abs=1e-3)
        assert 5 / 6 <= cover["purity"] < 1
        by = {h.key: arc_modifiers(pv.weapon, 1, ArcTarget(h.key, h.size_in, h.distance_in,
                                                           cover_fraction=h.cover))
              for h in pv.arc_hits}
        cov = {k: next((m for m in ms if "cover" in m.source), None) for k, ms in by.items()}
        assert cov["wooyang"] is None
        assert (cov["virginia"].action, cov["virginia"].damage) == (-1, -1)
        assert (cov["purity"].action, cov["purity"].damage) == (-2, -2)
        ev = g.apply(shot)
        dmg = {e["body"]: e["damage"] for e in ev if e["type"] == "damage"}
        # Purity: 7 + 1 - 5" - 2 cover = 1 against Armor 2 (without cover 3: destroyed)
        assert dmg["purity"] == 1 and not g.bodies["purity"].damage.destroyed
        assert dmg["virginia"] == 3 and g.bodies["virginia"].damage.destroyed
        assert g.bodies["wooyang"].damage.destroyed


def test_a_shot_at_a_partly_hidden_target_is_allowed_with_its_cover(tmp_path):
    """5.1 cover on a single shot: a target whose centre is hidden behind another body but
    part of which shows may be shot at that part, the cover counting against the exposed Size
    (here 2/3 or more hidden: -2 on the Action Roll); a wholly hidden one may not."""
    g = table(tmp_path, unit("gunner", -5, 0, extra=', weapons = [{ type = "Gun", size = 1 }]'),
              unit("wall", -2, 0, owner="Blue"), unit("t", 0, 0.3, owner="Blue"),
              unit("hidden", 0.5, 0, owner="Blue"))
    try:
        pv = g.skirmish.attack_preview("gunner", 0, "t")
        c = g.skirmish.cover("gunner", "t", pv.sight)
        assert 0 < c < 1 and pv.allowed, (c, pv.reason)
        assert any("cover" in m.source for m in pv.modifiers)
        hid = g.skirmish.attack_preview("gunner", 0, "hidden")
        assert not hid.allowed and "no line of sight" in hid.reason
    finally:
        g.close()


def test_an_allied_scout_marks_a_bombardment_target(tmp_path):
    """13.2 Strategic Bombardment: the target "must be Marked by an allied Scout" (F.3: "all
    allies"): Green's Scout (Red's ``side``) Marks Red's Bombardment; Blue's Scout cannot."""
    p = tmp_path / "s.toml"
    head = HEAD.replace('name = "Red"\nside = "north"',
                        'name = "Red"\nside = "north"\nstrategy_bricks = 3')
    p.write_text(head + "".join(textwrap.dedent(x) for x in (
        unit("gscout", 0, 0, owner="Green", extra=", scout = true"),
        unit("bscout", 0, 2, owner="Blue", extra=", scout = true"))))
    spec, base = load_scene(p)
    with Game(spec, base) as g:
        bomb = {"type": "bombard", "player": "Red", "target": [4.0, 0.0], "explosive_dice": 1}
        from sandbox.engine.actions import parse_action

        assert g.bombardment.mark_refusal(parse_action({**bomb, "marked_by": "gscout"})) == ""
        assert "cannot Mark" in g.bombardment.mark_refusal(
            parse_action({**bomb, "marked_by": "bscout"}))
        act(g, **bomb, marked_by="gscout")
        assert g.bombardment.strategy_pile("Red") == 2
