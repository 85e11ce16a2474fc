"""Explosions in the game (BrikWars 8.4): the book's Wall Demolition as a physics scene,
detonation chains, Duds and Field Hazard blasts."""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import pytest

from sandbox.engine.game import Game
from sandbox.engine.scene import load_scene

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def demolition():
    spec, base = load_scene(ROOT / "scenes" / "wall_demolition.toml")
    g = Game(spec, base)
    start = {k: g.world.pose(k)[0].copy() for k in g.world.dynamic_keys()}
    top = {}
    orig = g._on_step

    def on_step(world, events):
        orig(world, events)
        for k in world.dynamic_keys():
            z = world.pose(k)[0][2]
            top[k] = max(top.get(k, z), z)

    g._on_step = on_step
    g.turn = 1
    g.apply(spec.actions[0], 0, by="referee")  # the scene script's missile: a referee's tool
    yield g, start, top
    g.close()


def test_rings_are_the_books(demolition):
    g, _, _ = demolition
    ex = [e for e in g.events if e["type"] == "explosion"]
    assert len(ex) == 1 and ex[0]["rings"] == [16, 9, 3] and ex[0]["knockback"] == [3, 2, 1]
    crater = [e for e in g.events if e["type"] == "crater"][0]
    assert crater["armor"] == 8 and 3.5 < crater["radius"] < 4.0  # 9 beats 8, 3 does not


def test_wall_parts_within_two_inches_are_destroyed_and_thrown(demolition):
    g, _, _ = demolition
    s = g.blasts.structures["wall"]
    assert s.armor_roll == 15
    dmg = [e for e in g.events if e["type"] == "damage" and e["body"] == "wall"]
    assert [(e["ring"], e["damage"]) for e in dmg] == [(2.0, 16), (4.0, 9), (6.0, 3)]
    assert dmg[0]["destroyed_parts"] == dmg[0]["parts"] > 0
    assert dmg[1]["destroyed_parts"] == 0 and dmg[2]["destroyed_parts"] == 0
    debris = [k for k, st in g.bodies.items() if st.kind == "debris"]
    assert len(debris) == dmg[0]["parts"] and all(g.bodies[k].damage.destroyed for k in debris)
    kb = {e["body"]: e["inches"] for e in g.events if e["type"] == "knockback" and "inches" in e}
    assert all(kb[k] == 3 for k in debris if k in kb) and len([k for k in debris if k in kb]) >= 20
    # thrown: rubble lies spread out about the blast, off the wall line
    moved = [np.hypot(*g.world.pose(k)[0][:2] - np.array([-3.78, -0.315])) for k in debris]
    assert np.median(moved) > 1.5


def test_rest_of_wall_stands_and_tower_flies_up_about_two_inches(demolition):
    g, start, top = demolition
    assert not g.bodies["wall"].damage.destroyed
    pieces = [e for e in g.events if e["type"] == "piece"]
    nailed = [e for e in pieces if e["nailed"]]
    loose = [e for e in pieces if not e["nailed"]]
    assert max(e["parts"] for e in nailed) > 80  # the long wall section still stands
    tower = [e for e in loose if e["parts"] == 30]
    assert len(tower) == 1
    key = tower[0]["body"]
    kb = [e for e in g.events if e["type"] == "knockback" and e["body"] == key][0]
    assert kb["inches"] == 2 and np.allclose(kb["velocity"][:2], 0)  # straight up
    # rise: the tower starts where the wall held it; the guard rides up with it
    rise_guard = top["reale"] - start["reale"][2]
    assert 1.6 < rise_guard < 2.6
    assert g.world.pose(key)[0][2] < 3.0  # and it came back down
    big = max(nailed, key=lambda e: e["parts"])["body"]
    assert g.world.pose(big)[0][2] > 1.0  # the standing section is upright


def test_collision_of_four_harms_neither_tower_nor_guard(demolition):
    g, _, _ = demolition
    tower = [e["body"] for e in g.events if e["type"] == "piece" and e["parts"] == 30][0]
    coll = [e for e in g.events if e["type"] == "damage" and e["source"] == "Collision Damage"]
    t = [e for e in coll if e["body"] == tower]
    r = [e for e in coll if e["body"] == "reale"]
    assert len(t) == 1 and (t[0]["damage"], t[0]["total"], t[0]["armor"]) == (4, 13, 15)
    assert len(r) == 1 and (r[0]["damage"], r[0]["total"], r[0]["armor"]) == (4, 4, 4)
    assert not g.bodies[tower].damage.destroyed and not g.bodies["reale"].damage.destroyed
    assert not g.bodies["templin"].damage.destroyed


CHAIN = textwrap.dedent(
    """
    name = "barrels"
    seed = 3
    [battlefield]
    width = 30
    depth = 20
    [[players]]
    name = "Red"
    [[units]]
    id = "a"
    parts = [{{ part = "3005", colour = 4, position = [1.0, 0, 0] }}]
    stats = {{ size = 1, armor = 2 }}
    [[units]]
    id = "b"
    parts = [{{ part = "3005", colour = 4, position = [2.5, 0, 0] }}]
    stats = {{ size = 1, armor = 2 }}
    [[units]]
    id = "c"
    parts = [{{ part = "3005", colour = 1, position = [4.0, 0, 0] }}]
    stats = {{ size = 1, armor = 2 }}
    [[explosives]]
    body = "a"
    xsize = 1
    stability = "unstable"
    [[explosives]]
    body = "b"
    xsize = 1
    stability = "unstable"
    [[explosives]]
    body = "c"
    xsize = 1
    stability = "semi-stable"
    {actions}
    [forced_dice]
    explosion = {explosion}
    """
)


def _play(tmp_path, actions, explosion):
    p = tmp_path / "s.toml"
    p.write_text(CHAIN.format(actions=textwrap.dedent(actions), explosion=explosion))
    spec, base = load_scene(p)
    g = Game(spec, base)
    try:
        g.run()
    finally:
        g.close()
    return g


def test_chain_reaction_in_order_and_semi_stable_at_end_of_turn(tmp_path):
    g = _play(tmp_path, """
        [[actions]]
        type = "missile"
        player = "Red"
        point = [0.0, 0.0, 0.2]
        xsize = 1
    """, "[5, 4, 3, 2]")
    ex = [e for e in g.events if e["type"] == "explosion"]
    assert [e["body"] for e in ex] == ["missile1", "a", "b", "c"]
    assert [e["rings"] for e in ex] == [[5], [4], [3], [2]]
    end = [i for i, e in enumerate(g.events) if e["type"] == "detonation" and e["body"] == "c"]
    assert "end of the turn" in g.events[end[0]]["text"]
    assert all(g.blasts.charges[k].spent for k in "abc")


def test_dud_stays_armed_and_unstable_then_goes_off(tmp_path):
    g = _play(tmp_path, """
        [[actions]]
        type = "missile"
        player = "Red"
        point = [-6.0, 0.0, 0.2]
        xsize = 2
        [[actions]]
        type = "missile"
        player = "Red"
        point = [-7.0, 0.0, 0.2]
        xsize = 1
    """, "[1, 1, 5, 4, 3]")
    dud = [e for e in g.events if e["type"] == "dud"]
    assert len(dud) == 1 and dud[0]["body"] == "missile1"
    ex = [e["body"] for e in g.events if e["type"] == "explosion"]
    assert ex == ["missile2", "missile1"]
    assert g.blasts.charges["missile1"].spent and g.blasts.charges["missile1"].dud


def test_field_hazard_blast_shrinks_each_turn(tmp_path):
    g = _play(tmp_path, """
        [[actions]]
        type = "missile"
        player = "Red"
        point = [-10.0, 5.0, 0.2]
        xsize = 3
        hazard = "Smoke"
        hazard_dice = 2
        [[actions]]
        type = "missile"
        player = "Red"
        point = [-10.0, -8.0, 0.2]
        xsize = 1
        turn = 2
    """, "[4, 4]")
    f = g.blasts.fields[0]
    assert f.hazard == "Smoke" and f.history == [8.0] and f.size_in == 7.0
    assert [e["rings"] for e in g.events if e["type"] == "explosion"] == [[4], [4]]


def test_a_payload_going_off_by_its_launcher_leaves_no_pass_through_and_undoes(ldrawdir):
    """A Payload flies with its contacts with its own Launcher off (until 2" clear) and here
    goes off 1.5" from the catapult: the blast breaks the catapult into its three parts, and
    pybullet gives the freed ids out again (the bottom brick takes the catapult's, the middle
    brick the boulder's). pybullet keeps "don't collide" pairs by id after a body is removed:
    before the fix the boulder-catapult pair passed to the two bricks, the middle one fell
    through the bottom one to the table (0.378" deep in it, a brick's height) and the world
    still listed the gone pair in ``no_collide``. Now the bricks stack (0, 0.378", 0.756").
    Undo restores the world in place (the pair switched and the bodies removed are in its
    journal), equal to the game without the launch, and the launch again gives the same
    hash."""
    import tomllib

    from sandbox.engine.scene import scene_from_dict

    data = tomllib.loads((ROOT / "scenes" / "catapult_over_wall.toml").read_text())
    data.pop("expect", None)
    for part in data["creations"][0]["parts"]:  # the wall right in front of the catapult
        part["position"][0] = -5.3
    data["creations"][0]["fixed"] = data["creations"][1]["fixed"] = False
    data["explosives"] = [{"body": "boulder", "xsize": 1, "stability": "unstable"}]
    data["forced_dice"] = {"projectile": [5], "explosion": [6], "armor": [1, 1, 1, 1]}
    lob = data["actions"][0]
    lob.pop("target_body")
    lob.update(target=[-5.3, 0.0, 2.0], arc="low")
    with Game(scene_from_dict(data), ROOT / "scenes", ldrawdir=ldrawdir) as g:
        w = g.world
        boulder, catapult = w.bodies["boulder"].uid, w.bodies["catapult"].uid
        g.play_turns()
        ex = next(e for e in g.events if e["type"] == "explosion")
        assert ex["body"] == "boulder"
        assert np.hypot(ex["point"][0] + 7.0, ex["point"][1]) < 2.0  # not yet clear
        assert "catapult" not in w.bodies and "boulder" not in w.bodies
        bottom, middle, top = (w.bodies[f"catapult~{i}"] for i in range(3))
        assert (bottom.uid, middle.uid) == (catapult, boulder)  # the case: ids given again
        lows = [float(w.aabb(b.key)[0][2]) for b in (bottom, middle, top)]
        assert lows == pytest.approx([0.0, 0.378, 0.756], abs=0.02), lows
        deepest = min((p[8] for p in w.client.getClosestPoints(bottom.uid, middle.uid, 0.0)),
                      default=0.0)
        assert deepest > -0.01
        assert w.no_collide == set()
        final = g.state_hash()
        undone = g.undo()
        assert undone.type == "launch" and g.world is w  # restored in place, no rebuild
        assert w.no_collide == set() and {"boulder", "catapult"} <= set(w.bodies)
        with Game(g.spec, g.base_dir, g.ldrawdir, seed=g.seed, actions=list(g.actions),
                  forced_dice=g.forced_dice) as fresh:
            assert g.state_hash() == fresh.state_hash()
            assert w.poses() == fresh.world.poses()
            assert {k: b.uid for k, b in w.bodies.items()} == {
                k: b.uid for k, b in fresh.world.bodies.items()}
        g.apply(undone, by=undone.by)
        assert g.state_hash() == final
