"""The hotseat game session without a window: turns, Move, Measure, line of sight, Attack,
undo and save/load (issue 7). Scene: scenes/skirmish.toml (built-in parts only)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from sandbox.core.errors import ReplayError, RulesError, SceneError
from sandbox.engine.actions import AttackAction, EndTurnAction, MoveAction, parse_action
from sandbox.engine.game import Game as GameSession
from sandbox.engine.measure import SmokeField, edge_point, footprint_gap, segment_in_smoke
from sandbox.engine.scene import Stats, load_scene
from sandbox.games.brikwars.hazard_scene import FieldEntry

REPO = Path(__file__).resolve().parents[1]
SCENE = REPO / "scenes" / "skirmish.toml"
LK, BF = "Lion Knights", "Black Falcons"


@pytest.fixture()
def session():
    spec, base = load_scene(SCENE)
    s = GameSession(spec, base)
    yield s
    s.close()


def move(unit, to, player=LK, sprint=False):
    return MoveAction(type="move", player=player, unit=unit, to=to, sprint=sprint)


def test_measure_geometry():
    assert footprint_gap((0, 0), (1, 1), (4, 0), (5, 1)) == 3.0
    assert footprint_gap((0, 0), (2, 2), (1, 1), (3, 3)) == 0.0
    assert edge_point((0, 0, 0), (2, 2, 1), (1, 10)).tolist() == [1.0, 2.0, 0.0]
    s = SmokeField((5.0, 0.0), 1.0)
    assert segment_in_smoke((0, 0, 1), (10, 0, 1), s)          # through
    assert segment_in_smoke((5, 0, 1), (10, 0, 1), s)          # out of
    assert not segment_in_smoke((0, 1.5, 1), (10, 1.5, 1), s)  # beside
    assert not segment_in_smoke((0, 0, 6), (10, 0, 6), s)      # above the 5" top
    with pytest.raises(RulesError, match="radius"):
        SmokeField((0, 0), 0.0)


def test_weapons_in_scene_stats_are_validated():
    st = Stats(weapons=[{"type": "Gun", "size": 2}, {"bastard": "ShotGun"}])
    assert len(st.weapons) == 2
    for bad in ({"type": "Laser", "size": 2}, {"bastard": "Potato"}, {"type": "Gun"}, {}):
        with pytest.raises(ValueError):
            Stats(weapons=[bad])


def test_turn_order_and_ownership(session):
    assert session.current_player == LK and session.turn == 1
    with pytest.raises(RulesError, match="Lion Knights' turn"):
        session.apply(move("falcon1", (5.0, -3.0), player=BF))
    with pytest.raises(RulesError, match="belongs to Black Falcons"):
        session.apply(move("falcon1", (5.0, -3.0)))
    session.apply(EndTurnAction(type="end_turn", player=LK))
    assert session.current_player == BF and session.turn == 1
    session.apply(EndTurnAction(type="end_turn", player=BF))
    assert session.current_player == LK and session.turn == 2
    assert ([e["text"] for e in session.events if e["type"] == "turn"][-1]
            == "Turn 2: Lion Knights' turn")


def test_move_within_allowance_then_refused(session):
    c0 = session.footprint_centre("knight1")
    session.apply(move("knight1", (c0[0] + 3.0, c0[1])))
    c1 = session.footprint_centre("knight1")
    assert c1[0] - c0[0] == pytest.approx(3.0, abs=0.1)
    assert session.skirmish.move_allowance("knight1") == pytest.approx(2.0, abs=1e-6)
    before = session.state_hash()
    with pytest.raises(RulesError, match=r'may move 2.00" more this turn .*not 2.50"'):
        session.apply(move("knight1", (c1[0] + 2.5, c1[1])))
    assert session.state_hash() == before  # a refused move changes nothing
    assert len(session.actions) == 1
    lo, _ = session.bounds("knight1")
    assert lo[2] == pytest.approx(0.0, abs=0.03)  # it stands on the table again


def test_a_clamped_move_stops_at_the_limit_and_loads_the_same(session, tmp_path):
    """Issue 31 item 4: ``clamp=True`` shortens a move a hair (or more) over the limit to the
    limit along its line; without it the same move is refused; a save replays it the same."""
    c0 = session.footprint_centre("knight1")
    far = (c0[0] + 3.0, c0[1] + 4.05)  # 5.04" for a Move of 5"
    with pytest.raises(RulesError, match="may move 5.00"):
        session.apply(move("knight1", far))
    clamped = MoveAction(type="move", player=LK, unit="knight1", to=far, clamp=True)
    assert clamped.refusal(session) == ""
    session.apply(clamped)
    step = session.footprint_centre("knight1") - c0
    assert float(np.linalg.norm(step)) == pytest.approx(5.0, abs=0.1)
    assert step[1] / step[0] == pytest.approx(4.05 / 3.0, rel=0.05)  # along the line
    assert session.skirmish.move_allowance("knight1") < 1e-3
    assert session.actions[-1].to == pytest.approx(far)  # the log keeps what was asked
    path = session.save(tmp_path / "clamp.save.json")
    again = GameSession.load(path)
    try:
        assert again.state_hash() == session.state_hash()
    finally:
        again.close()


def test_move_into_the_wall_is_refused(session):
    # knight2 stands at (-6, 3); the wall at x = 0 spans y 1.74..4.26
    session.apply(move("knight2", (-2.0, 3.0)))
    session.apply(EndTurnAction(type="end_turn", player=LK))
    session.apply(EndTurnAction(type="end_turn", player=BF))
    with pytest.raises(RulesError, match="stone wall is there"):
        session.apply(move("knight2", (-0.5, 3.0)))
    assert session.footprint_centre("knight2")[0] == pytest.approx(-2.0, abs=0.05)


def test_sprint_rolls_the_action_die_once(session):
    spec, base = load_scene(SCENE)
    forced = GameSession(spec.model_copy(update={"forced_dice": {"sprint": [4]}}), base)
    try:
        c = forced.footprint_centre("knight1")
        with pytest.raises(RulesError, match="without Sprinting"):
            forced.apply(move("knight1", (c[0] + 2.0, c[1]), sprint=True))
        forced.apply(move("knight1", (c[0] + 8.0, c[1]), sprint=True))
        # 5 + 4 - 8
        assert forced.skirmish.move_allowance("knight1") == pytest.approx(1.0, abs=1e-6)
        roll = [e for e in forced.events if e["type"] == "roll" and e["stream"] == "sprint"]
        assert [r["result"] for r in roll] == [4]
        pv = forced.skirmish.attack_preview("knight1", 0, "falcon1")
        assert not pv.allowed and "already used its Action" in pv.reason
    finally:
        forced.close()


def test_measure_and_line_of_sight(session):
    m = session.measure("knight1", "falcon1")
    lo1, hi1 = session.bounds("knight1")
    lo2, hi2 = session.bounds("falcon1")
    assert m.inches == pytest.approx(lo2[0] - hi1[0], abs=0.01)  # edge to edge along x
    assert m.inches < 12.0 - 0.5  # not centre to centre
    assert session.measure((0, 0), (3, 4)).inches == pytest.approx(5.0)
    assert session.line_of_sight("knight1", "falcon1").clear
    blocked = session.line_of_sight("knight2", "falcon2")
    assert not blocked.clear and blocked.blocked_by == "wall"
    # a real Smoke Field between knight1 and falcon1, placed by the Field Hazards system
    session.hazards.add_field(FieldEntry(id="s1", hazard="smoke", size=3.0, centre=(0.0, -3.0)))
    sl = session.line_of_sight("knight1", "falcon1")
    assert not sl.clear and sl.blocked_by == "smoke"
    pv = session.skirmish.attack_preview("knight1", 0, "falcon1")
    assert not pv.allowed and "smoke" in pv.reason


def test_attack_preview_lists_modifiers_and_attack_rolls_logged_dice(session):
    pv = session.skirmish.attack_preview("knight1", 0, "falcon1")  # Bastard Gun: Use 3, Range 10"
    assert pv.use == 3 and pv.range_in == 10
    over = math.ceil(pv.distance_in - 10 - 1e-9)
    assert [m.source for m in pv.modifiers] == [f'Out of Range {over}"']
    assert any("Out of Range" in line for line in pv.lines())
    n_rolls = len([e for e in session.events if e["type"] == "roll"])
    session.apply(AttackAction(type="attack", player=LK, unit="knight1", weapon=0,
                               target="falcon1"))
    rolls = [e for e in session.events if e["type"] == "roll"][n_rolls:]
    assert rolls and all(r["stream"] == "attack" for r in rolls)
    assert "Action Roll vs Black Hawk" in rolls[0]["reason"]
    assert any(e["type"] == "action_roll" for e in session.events)
    with pytest.raises(RulesError, match="already used its Action"):
        session.apply(AttackAction(type="attack", player=LK, unit="knight1", weapon=0,
                                   target="falcon1"))
    with pytest.raises(RulesError, match="no weapon 2 .weapons are numbered from 0"):
        session.skirmish.attack_preview("knight1", 2, "falcon1")


def test_forced_hit_damages_and_knocks_back(session):
    spec, base = load_scene(SCENE)
    # ShotGun (BlastGun, 1 Firing Arc): Action 5 hits Use 3; d8 6 + 1 - 4" BlastGun distance =
    # 3 Damage, under Armor 4; any Damage knocks a minifig back 1" (8.1)
    s = GameSession(spec.model_copy(update={"forced_dice": {"attack": [5, 6]}}), base)
    try:
        c = s.footprint_centre("knight1")
        s.apply(move("knight1", (c[0] + 5.0, c[1])))
        s.apply(EndTurnAction(type="end_turn", player=LK))
        s.apply(move("falcon1", (1.5, -3.0), player=BF))
        s.apply(EndTurnAction(type="end_turn", player=BF))
        s.apply(move("knight2", (-3.5, -0.5)))
        before = s.footprint_centre("falcon1")
        pv = s.skirmish.attack_preview("knight2", 0, "falcon1")
        assert pv.arc_points == 1 and pv.allowed
        s.apply(AttackAction(type="attack", player=LK, unit="knight2", weapon=0, target="falcon1"))
        dmg = [e for e in s.events if e["type"] == "damage" and e["body"] == "falcon1"]
        assert dmg and "ShotGun" in dmg[0]["text"]
        assert any(e["type"] == "knockback" for e in s.events)
        assert np.linalg.norm(s.footprint_centre("falcon1") - before) > 0.3
    finally:
        s.close()


def test_undo_restores_the_exact_state(session):
    start = session.state_hash()
    c = session.footprint_centre("knight1")
    session.apply(move("knight1", (c[0] + 2.0, c[1])))
    after_move = session.state_hash()
    session.apply(AttackAction(type="attack", player=LK, unit="knight1", weapon=0,
                               target="falcon1"))
    session.undo()
    assert session.state_hash() == after_move
    session.undo()
    assert session.state_hash() == start
    with pytest.raises(RulesError, match="nothing to undo"):
        session.undo()


def test_save_load_round_trip_and_atomic_failure(session, tmp_path):
    c = session.footprint_centre("knight1")
    session.apply(move("knight1", (c[0] + 4.0, c[1] + 1.0)))
    session.apply(AttackAction(type="attack", player=LK, unit="knight1", weapon=0,
                               target="falcon1"))
    session.apply(EndTurnAction(type="end_turn", player=LK))
    path = session.save(tmp_path / "game.save.json")
    doc = json.loads(path.read_text())
    assert doc["format"] == "brikwars-sandbox-save" and doc["version"] == 2
    assert [a["type"] for a in doc["actions"]] == ["move", "attack", "end_turn"]
    loaded = GameSession.load(path)
    try:
        assert loaded.state_hash() == session.state_hash()
        assert loaded.current_player == BF
        assert [e["text"] for e in loaded.events] == [e["text"] for e in session.events]
    finally:
        loaded.close()
    # a tampered log no longer reproduces the checksum
    doc["actions"][0]["to"][0] += 0.5
    bad = tmp_path / "bad.save.json"
    bad.write_text(json.dumps(doc))
    with pytest.raises(ReplayError, match="does not match"):
        GameSession.load(bad)
    # a failing save leaves the previous file untouched
    good = path.read_bytes()
    real = session.state_hash
    session.state_hash = lambda: (_ for _ in ()).throw(OSError("disk full"))
    with pytest.raises(OSError):
        session.save(path)
    session.state_hash = real
    assert path.read_bytes() == good
    with pytest.raises(ReplayError, match="not a brikwars-sandbox-save"):
        bad.write_text("{}")
        GameSession.load(bad)


def test_parse_action_names_the_field():
    with pytest.raises(SceneError, match="to"):
        parse_action({"type": "move", "player": LK, "unit": "knight1", "to": "north"})


def test_big_drop_is_refused_without_strategy_bricks_and_never_logged(tmp_path):
    """BrikWars 13.2: a Bombardment's Payload costs Strategy bricks from the pile (one per
    Explosive die); a drop the pile cannot pay for is refused, changes nothing, is not logged."""
    from sandbox.games.brikwars.scene_flight import BombardAction, DropZone

    def drop(bricks, player=LK):
        return BombardAction(type="bombard", player=player, target=(8.0, 5.0), drop_zone="pad",
                             big_drop=True, explosive_dice=bricks)

    spec, base = load_scene(SCENE)
    pad = DropZone(id="pad", centre=(8.0, 5.0), size=4.0)

    def game(pile):
        players = [p.model_copy(update={"strategy_bricks": pile}) for p in spec.players]
        return GameSession(spec.model_copy(update={"players": players, "drop_zones": [pad]}),
                           base)

    with game(0) as s:
        assert s.bombardment.strategy_pile() == 0
        before = s.state_hash()
        with pytest.raises(RulesError, match="costs 1 Strategy brick and Lion Knights has 0 "
                                             "in the Strategy pile"):
            s.apply(drop(1))
        assert s.actions == [] and s.state_hash() == before
    # with a pile of 2: one drop of 2 bricks, then the pile is empty and the next is refused
    with game(2) as s:
        s.apply(drop(2))
        assert s.bombardment.strategy_pile(LK) == 0 and s.bombardment.strategy_pile(BF) == 2
        with pytest.raises(RulesError, match="has 0 in the Strategy pile"):
            s.apply(drop(1))
        assert [a.type for a in s.actions] == ["bombard"]
        loaded = GameSession.load(s.save(tmp_path / "drop.save.json"))
        try:
            assert loaded.state_hash() == s.state_hash()
        finally:
            loaded.close()


def test_long_mixed_session_saves_and_loads_in_a_fresh_process(session, tmp_path):
    """Moves, attacks, refusals of every kind, undo (twice in a row too), end turns: the save
    loads in a new process with the same checksum as the live game."""
    import subprocess
    import sys

    from sandbox.games.brikwars.scene_flight import BombardAction

    s = session

    def refused(action, match):
        n, before = len(s.actions), s.state_hash()
        with pytest.raises(RulesError, match=match):
            s.apply(action)
        assert len(s.actions) == n and s.state_hash() == before

    s.apply(move("knight2", (-2.0, 3.0)))
    refused(move("knight1", (0.0, -3.0)), "may move")                  # too far
    refused(move("falcon1", (5.0, -3.0)), "belongs to Black Falcons")  # not ours
    refused(BombardAction(type="bombard", player=LK, target=(6.0, 3.0), marked_by="knight1",
                          explosive_dice=1), "is not a Scout")            # 13.2: a Scout Marks
    c = s.footprint_centre("knight1")
    s.apply(move("knight1", (c[0] + 3.0, c[1] + 0.5)))
    s.apply(AttackAction(type="attack", player=LK, unit="knight1", weapon=0, target="falcon1"))
    s.undo()
    s.undo()                                                           # an extra undo
    c = s.footprint_centre("knight1")
    s.apply(move("knight1", (c[0] + 2.5, c[1])))
    s.apply(AttackAction(type="attack", player=LK, unit="knight1", weapon=0, target="falcon1"))
    s.apply(EndTurnAction(type="end_turn", player=LK))
    c = s.footprint_centre("falcon1")
    s.apply(move("falcon1", (c[0] - 3.0, c[1]), player=BF))
    refused(move("falcon1", (c[0] - 3.0, c[1] + 4.0), player=BF), "may move")
    s.apply(AttackAction(type="attack", player=BF, unit="falcon1", weapon=0, target="knight1"))
    s.undo()
    s.apply(EndTurnAction(type="end_turn", player=BF))
    s.apply(EndTurnAction(type="end_turn", player=LK))
    s.undo()
    refused(move("knight2", (-0.5, 3.0)), "stone wall is there")       # teleported and back
    c = s.footprint_centre("knight2")
    s.apply(move("knight2", (c[0], c[1] - 2.0)))
    s.apply(EndTurnAction(type="end_turn", player=LK))
    assert s.turn == 2 and s.current_player == BF
    path = s.save(tmp_path / "long.save.json")
    assert json.loads(path.read_text())["checksum"] == s.state_hash()
    code = ("import sys; from sandbox.engine.game import Game as GameSession; "
            "print(GameSession.load(sys.argv[1], check=False).state_hash())")
    out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True,
                         cwd=REPO, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == s.state_hash()


def test_entry_colour_paints_the_main_colour_of_its_model(session):
    """Scene units say colour = 1 (Blue) / 0 (Black): the model's colour-16 parts take it."""
    table = session.assets["knight1"].model.colours

    def has(key, code):
        cols = session.assets[key].colours[:, :3]
        return bool(np.any(np.all(np.abs(cols - np.asarray(table.rgba(code))[:3]) < 1e-3, axis=1)))

    assert has("knight1", 1) and not has("knight1", 0)
    assert has("falcon1", 0) and not has("falcon1", 1)
    # the shared, cached model itself is unchanged (16 stays 16 for the next entry)
    assert any(p.colour == 16 for p in session.assets["knight1"].model.placements)


def test_open_game_says_what_files_it_takes(tmp_path):
    from sandbox.engine.game import open_game

    (tmp_path / "x.replay").write_bytes(b"PK\x03\x04junk")
    with pytest.raises(SceneError, match=r"is a replay.*\.toml.*\.save\.json.*sandbox replay"):
        open_game(tmp_path / "x.replay")
    (tmp_path / "model.ldr").write_text("1 16 0 0 0 1 0 0 0 1 0 0 0 1 3001.dat\n")
    with pytest.raises(SceneError, match=r"LDraw model.*\.toml"):
        open_game(tmp_path / "model.ldr")


def test_saves_are_written_with_the_usual_file_mode(session, tmp_path):
    import os
    import stat

    mask = os.umask(0o022)
    os.umask(mask)
    path = session.save(tmp_path / "game.save.json")
    assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~mask


def test_a_save_loaded_with_another_library_names_the_parts_that_differ(tmp_path, monkeypatch,
                                                                         ldrawdir):
    """Issue 31 item 8: a save records where each part came from; loaded without the LDraw
    library it was made with (or with one it was made without), the refusal names the parts
    and why, in one line."""
    from sandbox.engine.game import open_game, part_source_changes

    lib = ldrawdir
    monkeypatch.delenv("LDRAWDIR", raising=False)
    for made_with, loaded_with, was, now in ((lib, None, "the LDraw library",
                                              "the built-in catalogue"),
                                             (None, lib, "the built-in catalogue",
                                              "the LDraw library")):
        game = open_game(REPO / "scenes" / "skirmish.toml", ldrawdir=made_with)
        c = game.footprint_centre("knight1")
        game.apply(move("knight1", (c[0] + 2.0, c[1])))
        saved = game.part_sources()
        assert saved["3815.dat"] == ("library" if made_with else "catalogue")
        path = game.save(tmp_path / "lib.save.json")
        game.close()
        assert json.loads(path.read_text())["part_sources"] == saved
        with pytest.raises(ReplayError) as err:
            GameSession.load(path, ldrawdir=loaded_with)
        text = str(err.value)
        assert "\n" not in text and "does not match the save" in text
        assert f"saved from {was} now come from {now}" in text and "3815.dat" in text, text
        assert "LDRAWDIR" in text
        GameSession.load(path, ldrawdir=made_with).close()  # with the same library it loads
    # an old save (no record) and an untrusted one say nothing more
    assert part_source_changes(None, saved) == "" and part_source_changes([1], saved) == ""
