"""Where a new thing plugs in (docs/ARCHITECTURE.md, "Where a new thing plugs in"), shown by
doing it: a weapon, an action type and a small game kind, each registered at test time (the
``plug_in`` fixture takes them out again) and played through ``Game.apply`` and a scene file.
"""

from __future__ import annotations

import dataclasses
from typing import Literal

import pytest

from sandbox.core.dice import DiceExpression
from sandbox.core.errors import RulesError, SceneError
from sandbox.engine.actions import Action
from sandbox.engine.conformance import check_game_kind
from sandbox.engine.game import Game, open_game
from sandbox.engine.kinds import GAMES, GameKind, game_kind, register_game
from sandbox.engine.scene import load_scene
from sandbox.engine.table import System, handles, refuses
from sandbox.rules import weapons


def _scene(tmp_path, text: str):
    path = tmp_path / "scene.toml"
    path.write_text(text)
    return path


DUEL = """
name = "duel"
seed = 3
forced_dice = {{ attack = [3, 4] }}
[battlefield]
width = 24.0
depth = 16.0
[[players]]
name = "Lions"
[[players]]
name = "Wolves"
[[units]]
id = "gunner"
owner = "Lions"
position = [-2.0, 0.0, 0.0]
parts = [{{ part = "3005" }}]
stats = {{ armor = 4, weapons = [{{ bastard = "{weapon}" }}] }}
[[units]]
id = "target"
owner = "Wolves"
position = [1.0, 0.0, 0.0]
parts = [{{ part = "3005" }}]
stats = {{ armor = 3 }}
"""


# ------------------------------------------------------------------------------ a weapon
def test_a_weapon_is_one_row_of_the_weapon_table(plug_in, monkeypatch, tmp_path):
    """A weapon that fires like an existing type (a Gun, a FlameThrower ...) is one row of
    ``rules/weapons.py``'s table: scene files name it, the Skirmish system fires it. (A weapon
    with a rule of its own adds that rule, pure, in ``rules/`` and its use in the system that
    fires it: two files.)"""
    path = _scene(tmp_path, DUEL.format(weapon="NailGun"))
    with pytest.raises(SceneError, match=r"scene.toml: units\[0\].stats.weapons\[0\]: .*NailGun"):
        load_scene(path)  # not a weapon yet
    nail_gun = dataclasses.replace(weapons.bastard_gun("Bastard Gun"), name="NailGun",
                                   range_in=4.0, damage=DiceExpression.parse("1d4+2"))
    monkeypatch.setitem(weapons.BASTARD_GUNS, "NailGun", nail_gun)
    with open_game(path) as game:
        assert game.skirmish.weapons("gunner")[0].range_in == 4.0
        events = game.apply({"type": "attack", "player": "Lions", "unit": "gunner",
                             "target": "target"})
        hits = [e for e in events if e["type"] == "damage"]
        assert len(hits) == 1 and hits[0]["body"] == "target"
        d4s = [e["result"] for e in events if e["type"] == "roll"
               and e["reason"].startswith("gunner's NailGun: Damage")]
        assert d4s[0] == 4 and all(1 <= v <= 4 for v in d4s)  # the row's d4 (forced first)
        assert hits[0]["damage"] == sum(d4s) + 2 and "1d4+2" in hits[0]["text"]
        assert game.bodies["target"].damage.destroyed  # 6 > Armor 3


# ------------------------------------------------------------------------------ an action type
def _herald_kind():
    """An action type beside the system that plays it, added to BrikWars' kind."""

    class Shout(Action):
        """``unit`` shouts ``words`` (a unit of the acting player)."""

        type: Literal["test_shout"]
        unit: str
        words: str

        def describe(self, names=None) -> str:
            return f"{(names or {}).get(self.unit, self.unit)} shouts {self.words!r}"

    class Herald(System):
        name = "herald"

        def __init__(self, game):
            super().__init__(game)
            self.shouts = 0

        @refuses(Shout)
        def shout_refused(self, action: Shout) -> str:
            st = self.game.bodies.get(action.unit)
            if st is None or st.owner != action.player:
                return f"{action.player} has no unit {action.unit!r} to shout"
            return ""

        @handles(Shout)
        def shout(self, action: Shout, index: int) -> None:
            self.shouts += 1
            self.game.log("action", self.game.describe(action), action="shout",
                          player=action.player, body=action.unit)

        def state(self) -> dict:
            return {"shouts": self.shouts}

    brikwars = game_kind("brikwars")
    register_game(dataclasses.replace(brikwars, systems=(*brikwars.systems, Herald)))
    return Shout, Herald


def test_an_action_type_plugs_in_beside_its_system(plug_in, tmp_path):
    _, herald = _herald_kind()
    assert check_game_kind(GAMES["brikwars"]) == []
    text = DUEL.format(weapon="ShotGun") + """
[[actions]]
type = "test_shout"
player = "Lions"
unit = "gunner"
words = "For the Lions!"
"""
    path = _scene(tmp_path, text)
    with open_game(path) as game:  # a scene file names it ...
        game.play_script()
        said = [e for e in game.events if e.get("action") == "shout"]
        assert [e["text"] for e in said] == ["gunner shouts 'For the Lions!'"]
        assert game.state_dict()["systems"]["herald"] == {"shouts": 1}
    with open_game(path) as game:  # ... and Game.apply plays it, refuses it, saves it
        # who may do what comes first: the engine refuses another player's unit (a unit acts
        # for its owner only) before the Herald's own refusal is asked
        with pytest.raises(RulesError, match="target belongs to Wolves: a unit acts for its "
                                             "owner only"):
            game.apply({"type": "test_shout", "player": "Lions", "unit": "target",
                        "words": "x"})
        game.apply({"type": "test_shout", "player": "Lions", "unit": "gunner", "words": "Ha"})
        saved = game.save(tmp_path / "g.save.json")
        again = Game.load(saved)  # re-simulated from the log: the same state hash
        assert again.state_hash() == game.state_hash()
        again.close()


# ------------------------------------------------------------------------------ a game kind
KNOCK = """
name = "knock the brick off the table"
game = "test_knock_off"
seed = 5
[battlefield]
width = 10.0
depth = 6.0
[[players]]
name = "Red"
[[players]]
name = "Blue"
[[units]]
id = "red_brick"
owner = "Red"
position = [-2.5, 0.0, 0.0]
parts = [{ part = "3001", colour = 4 }]
[[units]]
id = "blue_brick"
owner = "Blue"
position = [2.5, 0.0, 0.0]
parts = [{ part = "3001", colour = 1 }]
[[actions]]
type = "test_flick"
player = "Red"
brick = "blue_brick"
speed = 40.0
turn = 1
"""


def _knock_off_kind() -> GameKind:
    """A two-player game: on your turn, flick the other player's brick (once); a brick that
    falls off the table loses."""

    class Flick(Action):
        """Flick ``brick`` (the opponent's) away from the table's centre at ``speed`` in/s."""

        type: Literal["test_flick"]
        brick: str
        speed: float = 40.0

    class KnockOff(System):
        name = "knock_off"

        def __init__(self, game):
            super().__init__(game)
            self.flicked: set[str] = set()

        def start_of_player_turn(self, turn: int, player: str) -> None:
            self.flicked.discard(player)

        @refuses(Flick)
        def flick_refused(self, a: Flick) -> str:
            if a.player in self.flicked:
                return f"{a.player} has flicked this turn"
            st = self.game.bodies.get(a.brick)
            if st is None or st.off_table:
                return f"no brick {a.brick!r} on the table"
            if st.owner == a.player:
                return f"{a.player} may not flick their own brick"
            return ""

        @handles(Flick)
        def flick(self, a: Flick, index: int) -> None:
            self.flicked.add(a.player)
            x, y = self.game.footprint_centre(a.brick)
            out = 1.0 if x >= 0 else -1.0
            self.game.log("action", f"{a.player} flicks {a.brick}", action="flick",
                          player=a.player, body=a.brick)
            self.game.world.set_velocity(a.brick, (out * a.speed, 0.0, 0.2 * a.speed))
            self.game.settle(log_rest=True)

        def winner(self) -> str | None:
            gone = {st.owner for st in self.game.bodies.values() if st.off_table}
            left = [p for p in self.game.players if p not in gone]
            return left[0] if len(gone) == 1 and len(left) == 1 else None

        def state(self) -> dict:
            return {"flicked": sorted(self.flicked), "winner": self.winner()}

    kind = GameKind("test_knock_off", systems=(KnockOff,),
                    description="knock the other player's brick off the table")
    register_game(kind)
    return kind


def test_a_small_game_kind_plays_through_apply_and_a_scene(plug_in, tmp_path):
    kind = _knock_off_kind()
    assert check_game_kind(kind) == []
    path = _scene(tmp_path, KNOCK)
    with open_game(path) as game:  # through a scene file
        assert [s.name for s in game.systems] == ["knock_off", "tabletop"]  # no BrikWars
        assert game.skirmish is None
        game.play_script()
        assert game.bodies["blue_brick"].off_table
        assert game.state_dict()["systems"]["knock_off"]["winner"] == "Red"
        assert not any(e["type"] == "damage" for e in game.events)  # impacts harm nothing
    with open_game(path) as game:  # through Game.apply
        with pytest.raises(RulesError, match="Red may not flick their own brick"):
            game.apply({"type": "test_flick", "player": "Red", "brick": "red_brick"})
        with pytest.raises(RulesError, match="it is Red's turn, not Blue's"):
            game.apply({"type": "test_flick", "player": "Blue", "brick": "red_brick"})
        game.apply({"type": "test_flick", "player": "Red", "brick": "blue_brick",
                    "speed": 40.0})
        with pytest.raises(RulesError, match="Red has flicked this turn"):
            game.apply({"type": "test_flick", "player": "Red", "brick": "blue_brick"})
        assert game.system("knock_off").winner() == "Red"
