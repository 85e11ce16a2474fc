"""Typed events: one record type per ``type``, one JSON-lines log, subscribers by type.

An :class:`Event` is a ``dict`` (so the log is plain JSON lines, and readers that index
``ev["type"]`` keep working) with a registered ``type`` and the fields every event carries:
``time`` (simulated seconds), ``turn`` and ``text`` (what a player reads). Its other fields are
the event's facts (``body``, ``damage``, ``position`` …). :data:`EVENT_TYPES` names every type
the engine and its systems publish, with what it means; publishing an unregistered type is a
programming error (ValueError), so a subscriber never waits on a type nothing writes.

The log, the replay index, the Escapade ledger and the window subscribe through
:class:`EventBus` (``game.subscribe(type, callback)``) rather than scanning the log.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any, Callable

#: Every event type, with its meaning.
EVENT_TYPES: dict[str, str] = {
    "setup": "the battlefield is laid out (width, depth, seed)",
    "body": "a body is put on the table (kind, parts, mass)",
    "warning": "a model problem (a missing part drawn as a box)",
    "ready": "every body has settled before the first turn",
    "turn": "a player's part of a turn begins (player)",
    "end_turn": "a player ends the turn (player)",
    "end": "the game is over (every body's state)",
    "outcome": "how the game ended: terminated or truncated, the winner or a draw, why",
    "turn_limit": "the last turn a game may have ended: nothing more is played (limit)",
    "undo": "an action was taken back",
    "roll": "a die rolled (stream, sides, result, reason)",
    "action": "an action in words (cross, interact …)",
    "move": "a unit moved (body, inches, to)",
    "face": "a unit turned in place to face a direction (body, degrees)",
    "sprint": "a Sprint roll added Move",
    "rest": "everything on the table came to rest",
    "release": "a dropped Payload is let go",
    "landed": "a Payload came to rest (position, off_target)",
    "impact": "two bodies hit (normal speed, impulse)",
    "damage": "Damage applied to a body against its Armor",
    "destroyed": "a body is destroyed",
    "disrupted": "a body is Disrupted",
    "recovered": "a body recovers from Disruption",
    "off_table": "a body fell off the table",
    "attack": "a unit attacks (weapon, Use, modifiers)",
    "action_roll": "an Action Roll against Use",
    "jammed": "a weapon jams",
    "divert_power": "a Creation Diverts All Power (saved inches, 8.1)",
    "turret": "a portable Turret is Set Up, or must be again (8.1)",
    "gunnery_support": "a Gunner supports a mounted weapon (+1 Action, 8.5)",
    "homing_in": "a Critical Failure cancels Homing In (8.5)",
    "interfere": "a unit Interferes from another set of Controls (8.5)",
    "knockback": "a body is knocked back",
    "parry_order": "a unit will Parry Close Combat attacks with a weapon, or stops (8.2)",
    "parry": "a Parry roll against an incoming blow, Shove or Grab (8.2)",
    "deflection": "a Shield Parry's layers of Deflection cancel Damage dice (8.2)",
    "knocked_away": "a failed Parry knocks the parrying weapon out of its hands (8.2)",
    "shove": "a unit (or a Combined Attack) Shoves a target (8.2)",
    "shoved": "how far a Shove moved its target (8.2)",
    "grab": "a unit Grabs a target (8.2)",
    "grabbed": "a Grab holds its target: it cannot move (8.2)",
    "released": "a Grab's hold ends (8.2)",
    "explosion": "an Explosion (point, rings)",
    "detonation": "an Explosive goes off (Premature Detonation, chains)",
    "dud": "an Explosive is a Dud",
    "break": "a creation breaks into pieces",
    "piece": "a piece of a broken creation",
    "crater": "a crater left by an Explosion",
    "launch": "a Payload is launched",
    "flight": "a Payload flies on (12\" a turn)",
    "held": "a Payload is held in the air between turns",
    "tracking": "a Tracking Rocket turns",
    "miss": "a shot misses and lands elsewhere",
    "lost": "a Payload is lost",
    "melee_impact": "a launched Melee Weapon strikes",
    "reload": "a Cannon is Reloaded",
    "marker": "a red-brick X marks a target",
    "bombard": "a Strategic Bombardment is called in",
    "ground": "a Bombardment lands",
    "fire": "a Fire starts or grows",
    "burning": "a Burning Roll",
    "burning_strike": "a burning body strikes another (+1 Fire)",
    "spread": "Fire spreads",
    "fire_blocked": "Fire spread blocked by an obstacle",
    "fire_out": "a Fire goes out",
    "extinguish": "firefighting",
    "engulfed": "a creation is fully engulfed",
    "engulfed_rider": "a rider of a burning creation burns",
    "field": "a Field Hazard is placed (hazard, centre, size)",
    "field_gone": "a Field Hazard is gone",
    "powered_field": "a powered Field spends Power",
    "power": "Power spent",
    "shield": "an Energy Shield deflects Damage dice",
    "exposure": "Exposure Damage in a Field",
    "terrain": "Difficult Terrain",
    "pushed": "a body is pushed by a Field (Thrust, Slippery)",
    "footing": "a footing roll in a Slippery Field",
    "concealed": "a Concealed Hazard roll",
    "stopped": "a Scout spots a Concealed Hazard and stops",
    "triggered": "a Concealed Hazard goes off",
    "follow": "a follower walks behind a Scout",
    "revealed": "a hidden Field or Trap is revealed",
    "sight": "a line of sight check",
    "mark": "a Scout Marks a target",
    "trap": "a Trap is armed",
    "trap_sprung": "a Trap springs",
    "trap_quiet": "an interaction sets nothing off",
    "trap_attack": "a Weapon Trap attacks",
    "escapade": "an Escapade fact (kill, exit, relay, status)",
    "brig_phase": "Brigandine: a phase of a round begins (round, phase, phase_name)",
    "brig_initiative": "Brigandine: IQ initiative rolled or the order fixed (initiative)",
    "brig_order": "Brigandine: a player gives an order (hidden until its phase resolves)",
    "brig_reveal": "Brigandine: declarations and joust choices revealed (end of phase 2)",
    "brig_reload": "Brigandine: a crossbow or artillery reloads",
    "brig_draw": "Brigandine: a side arm drawn (phase 3) becomes the equipped weapon",
    "brig_blocked": "Brigandine: a move or charge cannot end where ordered",
    "brig_charge": "Brigandine: a charge, what its sweep struck",
    "brig_morale": "Brigandine: a morale check (2d6 against morale)",
    "brig_hits": "Brigandine: hits taken off #def",
    "brig_defeated": "Brigandine: a unit reduced to 0 #def",
    "brig_fled": "Brigandine: a unit flees (failed morale, a driven-off monster)",
    "brig_unhorsed": "Brigandine: a jouster is unhorsed",
    "brig_skirmish": "Brigandine: a Skirmish attack (dice, number, Defensive Action)",
    "brig_missile": "Brigandine: a missile unit fires (#firing, AIM, hits)",
    "brig_blow": "Brigandine: a Man-to-Man blow (parry, riposte, shatter)",
    "brig_fantasy": "Brigandine: a Fantasy Combat exchange",
    "brig_joust": "Brigandine: a joust pass (aims, stances, outcomes)",
    "brig_artillery": "Brigandine: artillery fires in phase 6, or its shot is lost",
    "mbw": "a Micro Brick War fact (farm, build, move, capture, Goblet)",
    "mbw_fight": "a Micro Brick War fight: d6 + Attack vs d6 + Defend (+ City)",
    "mbw_victory": "a Micro Brick War game is decided (winner, or a draw)",
    "dice_tray": "a player rolls dice in the dice tray (dice, total)",
    "done": "a unit is marked done for this turn, or unmarked (body, done)",
    "table_marker": "a ruler or template is laid on the table (marker, kind, points, radius)",
    "table_marker_removed": "a ruler or template is taken off the table (marker)",
    "pick_up": "a unit picks up a loose object (body, item)",
    "put_down": "a unit puts down what it carries (body, item, to)",
    "topple": "a destroyed unit falls over (body)",
}


class Event(dict):
    """One event: a dict with ``type``, ``time``, ``turn``, ``text`` and its facts.

    Attribute access reads the fields (``ev.type``, ``ev.body``); missing ones are None.
    """

    __slots__ = ()

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return self.get(name)


def make_event(type_: str, time: float, turn: int, text: str, fields: dict) -> Event:
    """An :class:`Event` of a registered type.

    Raises
    ------
    ValueError
        ``type_`` is not in :data:`EVENT_TYPES`.
    """
    if type_ not in EVENT_TYPES:
        raise ValueError(f"event type {type_!r} is not registered in sandbox.engine.events")
    return Event({"type": type_, "time": time, "turn": turn, "text": text, **fields})


class EventBus:
    """Subscribers by event type (None: every event), called in subscription order."""

    def __init__(self) -> None:
        self._subs: dict[str | None, list[Callable[[dict], None]]] = defaultdict(list)

    def subscribe(self, type_: str | None, callback: Callable[[dict], None]) -> None:
        """Call ``callback(event)`` for each event of ``type_`` (None: all).

        Raises
        ------
        ValueError
            An unregistered type.
        """
        if type_ is not None and type_ not in EVENT_TYPES:
            raise ValueError(f"no event type {type_!r} (see sandbox.engine.events.EVENT_TYPES)")
        self._subs[type_].append(callback)

    def publish(self, ev: dict) -> None:
        for cb in self._subs.get(ev["type"], ()):
            cb(ev)
        for cb in self._subs.get(None, ()):
            cb(ev)
