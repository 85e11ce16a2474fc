"""Difficult Terrain as physics, powered Concealed and Difficult Fields, and the Scout's
Tracking in running games (BrikWars F.1 Difficult Terrain, Powered Field Hazards; F.3)."""

from __future__ import annotations

import textwrap

from sandbox.engine.game import Game
from sandbox.engine.scene import load_scene

HEAD = """
name = "field physics"
seed = 3
turns = 1
[battlefield]
width = 30
depth = 20
[[players]]
name = "Red"
[[players]]
name = "Blue"
"""


def unit(uid, x, y, move=5.0, extra="", owner="Red"):
    return textwrap.dedent(f"""
    [[units]]
    id = "{uid}"
    owner = "{owner}"
    position = [{x}, {y}, 0]
    stats = {{ size = 1, armor = 30, move = {move}{extra} }}
    parts = [ {{ part = "3005", colour = 4, position = [0, 0, 0] }},
              {{ part = "3005", colour = 4, position = [0, 0, 0.378] }},
              {{ part = "3005", colour = 4, position = [0, 0, 0.756] }} ]
    """)


def cross(uid, x, y, turn=1):
    return textwrap.dedent(f"""
    [[actions]]
    type = "cross"
    player = "Red"
    unit = "{uid}"
    to = [{x}, {y}]
    turn = {turn}
    """)


def play(tmp_path, *parts) -> Game:
    p = tmp_path / "s.toml"
    p.write_text(HEAD + "".join(textwrap.dedent(x) for x in parts))
    spec, base = load_scene(p)
    g = Game(spec, base)
    g.run()
    return g


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


def test_slippery_field_slides_the_unit_on_physically(tmp_path):
    # 6" towards the centre: 3" in, the ice (3") takes 3" of Move -> stops 5" along at x = -1,
    # then slides on its way for the 3" it spent, to x = 2. No footing roll for moving (F.1).
    g = play(tmp_path, ICE, unit("u", -6, 0, move=8), cross("u", 0, 0),
             "[forced_dice]\nhazard = [3]\n")
    try:
        pos, _ = g.world.pose("u")
        assert abs(pos[0] - 2.0) < 0.3 and abs(pos[1]) < 0.3
        push = [e for e in g.events if e["type"] == "pushed"]
        assert len(push) == 1 and abs(push[0]["inches"] - 3.0) < 0.1
        assert not g.bodies["u"].damage.disrupted
        assert not [e for e in g.events if e["type"] == "footing"]
    finally:
        g.close()


def test_slippery_critical_failure_knocks_the_unit_over(tmp_path):
    """F.1: "Units on foot in a Slippery Field fall over and become Disrupted on any Critical
    Failure on an Action Roll": here the roll of an attack made standing on the ice."""
    gunner = unit("u", -6, 0, move=8, extra=', weapons = [{ type = "Gun", size = 1 }]')
    attack = textwrap.dedent("""
    [[actions]]
    type = "attack"
    player = "Red"
    unit = "u"
    target = "t"
    """)
    g = play(tmp_path, ICE, gunner, unit("t", 2, 6, owner="Blue"), cross("u", 0, 0), attack,
             "[forced_dice]\nhazard = [3]\nattack = [1]\n"
             "[expect.hazards]\ndisrupted = [\"u\"]\n")
    try:
        assert g.bodies["u"].damage.disrupted
        assert any(e["type"] == "disrupted" and e["body"] == "u" for e in g.events)
        _, orn = g.world.pose("u")
        x, y, z, w = orn
        up_z = 1 - 2 * (x * x + y * y)  # body z axis . world z
        assert up_z < 0.5  # lying down
        assert g.hazards.check() == []
    finally:
        g.close()


THRUST = """
[[fields]]
id = "river"
hazard = "difficult"
terrain = "thrust"
size = 4
dice = "1d6"
centre = [0, 0]
radius = 2
thrust_direction = [0, 1]
"""


def test_thrust_pushes_at_the_start_then_full_move(tmp_path):
    # carried 3" north first (a real push), then 5" of Move towards (6, 3): ends at (5, 3)
    # (from the start point it would have ended near (4.47, 2.68)).
    g = play(tmp_path, THRUST, unit("u", 0, 0), cross("u", 6, 3),
             "[forced_dice]\nhazard = [3]\n")
    try:
        pos, _ = g.world.pose("u")
        assert abs(pos[0] - 5.0) < 0.3 and abs(pos[1] - 3.0) < 0.3
        push = [e for e in g.events if e["type"] == "pushed"]
        assert len(push) == 1 and abs(push[0]["inches"] - 3.0) < 0.1
    finally:
        g.close()


GEN = """
[[creations]]
id = "gen"
position = [10, 8, 0]
stats = { size = 1, armor = 30, move = 0, power = 10 }
parts = [ { part = "3001", colour = 1, position = [0, 0, 0] } ]
"""


def test_powered_concealed_hazard_goes_off_once_a_turn(tmp_path):
    mines = """
    [[fields]]
    id = "mines"
    hazard = "concealed"
    size = 6
    dice = "2d6"
    centre = [0, 0]
    radius = 6
    powered = true
    powered_by = "gen"
    """
    g = play(tmp_path, GEN, mines, unit("a", -7, -3), unit("b", -7, 3),
             cross("a", -2, -3), cross("b", -2, 3),
             "[forced_dice]\nhazard = [2, 3, 3, 2]\n[expect.hazards]\ntriggered = [\"a\"]\n"
             "safe = [\"b\"]\n")
    try:
        pw = [e for e in g.events if e["type"] == "powered_field"]
        assert [e["activated"] for e in pw] == [True, False]
        assert pw[0]["power"] == 2 and g.defences.power_left("gen") == 8
        assert g.hazards.check() == []
    finally:
        g.close()


def test_powered_difficult_field_acts_once_a_turn(tmp_path):
    mud = """
    [[fields]]
    id = "mud"
    hazard = "difficult"
    terrain = "slow"
    size = 4
    dice = "1d6"
    centre = [0, 0]
    radius = 6
    powered = true
    powered_by = "gen"
    """
    g = play(tmp_path, GEN, mud, unit("a", -7, -3), unit("b", -7, 3),
             cross("a", 0, -3), cross("b", 0, 3), "[forced_dice]\nhazard = [4]\n")
    try:
        a, _ = g.world.pose("a")
        b, _ = g.world.pose("b")
        # 5" Move less 4" of mud: 1" -- but never short of where it entered the mud
        assert abs(a[0] - (-27 ** 0.5)) < 0.3
        assert abs(b[0] - (-2.0)) < 0.3   # the mud already spent its dice this turn
        assert [e["activated"] for e in g.events if e["type"] == "powered_field"] == [True, False]
        assert g.defences.power_left("gen") == 9
    finally:
        g.close()


def test_scout_reveals_hidden_things_in_view_to_his_side(tmp_path):
    hidden = """
    [[fields]]
    id = "mines"
    hazard = "concealed"
    size = 2
    dice = "2d10 Exp"
    centre = [0, 0]
    radius = 1
    hidden = true
    [[traps]]
    id = "plate"
    trigger = "region"
    centre = [0, 5]
    effect = "hazard"
    dice = "1d6"
    hidden = true
    [[creations]]
    id = "wall"
    position = [-3, 2.5, 0]
    stats = { size = 2, armor = 30, weight_class = 9, move = 0 }
    parts = [ { part = "3008", colour = 71, position = [0, 0, 0] },
              { part = "3008", colour = 71, position = [0, 0, 0.378] },
              { part = "3008", colour = 71, position = [0, 0, 0.756] },
              { part = "3008", colour = 71, position = [0, 0, 1.134] } ]
    """
    g = play(tmp_path, hidden, unit("scout", -6, 0, extra=", scout = true"),
             "[expect.hazards]\nrevealed = [\"mines\"]\n")
    try:
        rev = [e for e in g.events if e["type"] == "revealed"]
        assert [(e["thing"], e["players"]) for e in rev] == [("mines", ["Red"])]
        assert g.hazards.revealed == {"mines": ["Red"]}
        assert g.hazards.check() == []
    finally:
        g.close()
    g = play(tmp_path, hidden, unit("grunt", -6, 0))  # no Scout, nothing revealed
    try:
        assert g.hazards.revealed == {}
        assert not any(e["type"] == "revealed" for e in g.events)
    finally:
        g.close()
