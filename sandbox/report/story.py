"""A replay's event log as a battle report's story: turns, lines, dice explained in words.

Pure Python over the replay's events (no physics, no rendering). Every ``roll`` event ends up
in exactly one :class:`LogLine` of kind ``"roll"``: consecutive dice of one reason ("3d10 for
the Explosion of the Missile") share a line, explained by the event that used them (BrikWars
8.2 Damage against Armor, 8.1 an Action Roll against a Use rating, 8.4 an Explosion's Damage
rings, an Armor Roll's total): "d6 rolled 3 against Armor 4: holds".

Impacts are left out of the story (a wall's rubble settles in hundreds of them) except an
impact that rolled Collision Damage, which is told just before its dice; long runs of the same
event on one wreck (32 parts Knocked Back) fold into one line with the others under it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from ..engine.playback import LOG_HIDDEN_EVENTS
from ..engine.replay_index import wreck_of

#: Event types never told (bookkeeping; impacts are told only before their dice).
HIDDEN: frozenset[str] = LOG_HIDDEN_EVENTS | frozenset({"impact"})
#: A run of at least this many events of one type on one wreck folds into one line.
FOLD_AT: int = 4
#: Events at most this far apart (seconds) count as simultaneous (log times are rounded to
#: microseconds).
_SAME_TIME_S = 2e-6
#: How far past a group of dice to look for the event that used them.
_LOOKAHEAD = 200


@dataclass
class LogLine:
    """One line of the story.

    Attributes
    ----------
    kind : str
        ``"event"``, ``"roll"`` (dice explained) or ``"player"`` (a player's turn starts).
    time : float
        Simulated seconds.
    turn : int
    text : str
        The line in words.
    type : str
        The event type (``"roll"`` for dice).
    events : list of int
        Indices into the replay's events this line tells (all dice of a roll line).
    folded : list of str
        Texts of the further events of a folded run (empty when not folded).
    """

    kind: str
    time: float
    turn: int
    text: str
    type: str
    events: list[int] = field(default_factory=list)
    folded: list[str] = field(default_factory=list)


@dataclass
class TurnStory:
    """The lines of one turn (turn 0: the set-up)."""

    turn: int
    players: list[str]
    start_s: float
    end_s: float
    lines: list[LogLine]

    @property
    def title(self) -> str:
        if self.turn == 0:
            return "Set-up"
        who = ", ".join(self.players)
        return f"Turn {self.turn}" + (f": {who}" if who else "")


@dataclass(frozen=True)
class Casualty:
    """A body that ended the game destroyed, off the table, disrupted or damaged."""

    key: str
    name: str
    owner: str
    status: str
    turn: int | None
    cause: str


# ====================================================================== untrusted events
_INTS = frozenset({"turn", "result", "sides", "damage", "total", "armor", "use",
                   "destroyed_parts", "parts", "index", "cumulative_damage", "armor_roll"})
_FLOATS = frozenset({"time", "ring", "radius"})
_BOOLS = frozenset({"forced", "destroyed", "hit", "disrupted", "off_table", "nailed"})
_TEXTS = frozenset({"type", "text", "reason", "stream", "body", "player", "source", "kind",
                    "winner", "key", "name", "owner", "event", "target"})


def _number(v) -> float | None:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    f = float(v)
    return f if math.isfinite(f) and abs(f) < 1e12 else None


def _clean(e: dict) -> dict:
    out: dict = {}
    for k, v in e.items():
        if k in _INTS or k in _FLOATS:
            n = _number(v)
            if n is not None:
                out[k] = int(n) if k in _INTS else n
        elif k in _BOOLS:
            if isinstance(v, bool):
                out[k] = v
        elif k in _TEXTS:
            if isinstance(v, str):
                out[k] = v[:2000]
        elif k == "rings" and isinstance(v, list):
            out[k] = [n for n in map(_number, v[:16]) if n is not None]
        elif k == "point" and isinstance(v, list) and len(v) == 3:
            pt = [_number(c) for c in v]
            if None not in pt:
                out[k] = pt
        elif k in ("pieces", "debris") and isinstance(v, list):
            out[k] = [str(x) for x in v[:10000] if isinstance(x, str)]
        elif k == "states" and isinstance(v, list):
            out[k] = [_clean(x) for x in v[:10000] if isinstance(x, dict)]
    out.setdefault("type", "")
    out.setdefault("time", 0.0)
    out.setdefault("turn", 0)
    return out


def sanitize(events: list) -> list[dict]:
    """The fields of a replay's events a report reads, each of the type it expects (a replay
    is an untrusted file: a field of another type, a NaN or a huge number is left out, so the
    report tells less rather than fails)."""
    return [_clean(e) for e in events if isinstance(e, dict)]


# ====================================================================== dice in words
def _values(rolls: list[dict], summed: bool = True) -> str:
    """``"3 + 6 + 7 = 16"`` (dice added up), or ``"3, 6, 7"`` (each die on its own: a pool
    counting successes)."""
    vals = [int(r.get("result", 0)) for r in rolls]
    if len(vals) == 1:
        return str(vals[0])
    if not summed:
        return ", ".join(map(str, vals))
    return " + ".join(map(str, vals)) + f" = {sum(vals)}"


def _dice(rolls: list[dict]) -> str:
    n, sides = len(rolls), int(rolls[0].get("sides", 0))
    return f"{n if n > 1 else ''}d{sides}"


def _same_time(a: dict, b: dict) -> bool:
    return abs(float(a.get("time", 0.0)) - float(b.get("time", 0.0))) <= _SAME_TIME_S


def _outcome_of_damage(e: dict) -> str:
    if "destroyed_parts" in e:  # a creation's parts within one blast ring (BrikWars 8.4)
        n, parts = int(e.get("destroyed_parts", 0)), int(e.get("parts", 0))
        return f"{n} of {parts} part(s) destroyed" if n else "they hold"
    return "destroyed" if e.get("destroyed") else "holds"


def _against_armor(e: dict, rolled: int | None) -> str:
    """``"→ 6 Damage against Armor 4: destroyed"`` for a damage event."""
    dmg, total, armor = e.get("damage"), e.get("total"), e.get("armor")
    parts = []
    if dmg is not None and rolled is not None and int(dmg) != rolled:
        parts.append(f"→ {dmg} Damage")
    if total is not None and dmg is not None and int(total) != int(dmg):
        parts.append(f"→ Cumulative Damage {total}")
    parts.append(f"against Armor {armor}: {_outcome_of_damage(e)}")
    return " ".join(parts)


def _after_colon(text: str) -> str:
    head, sep, tail = text.partition(": ")
    return tail if sep else text


def _num(v) -> str:
    try:
        return f"{float(v):g}"
    except (TypeError, ValueError):
        return "?"


def _find(events: list[dict], start: int, first: dict, want) -> int | None:
    """Index of the first event from ``start`` at ``first``'s time that ``want`` accepts."""
    for j in range(start, min(len(events), start + _LOOKAHEAD)):
        e = events[j]
        if not _same_time(e, first):
            return None
        if e.get("type") != "roll" and want(e):
            return j
    return None


def explain_rolls(events: list[dict], idx: list[int]) -> str:
    """One group of dice (indices of consecutive ``roll`` events with one reason) in words,
    with what they decided, read from the event that used them.

    >>> ev = [{"type": "roll", "sides": 6, "result": 3, "reason": "Collision Damage to Rex",
    ...        "time": 1.0},
    ...       {"type": "damage", "damage": 3, "total": 3, "armor": 4, "destroyed": False,
    ...        "time": 1.0, "text": "Rex takes 3 Collision Damage"}]
    >>> explain_rolls(ev, [0])
    'Collision Damage to Rex: d6 rolled 3 against Armor 4: holds'
    """
    rolls = [events[i] for i in idx]
    first = rolls[0]
    reason = str(first.get("reason") or first.get("stream") or "roll")
    low = reason.lower()
    # dice added up: Damage, Armor and Explosion rolls (BrikWars 8.2, 8.4); others each alone
    summed = (low.startswith(("armor roll of", "explosion of")) or low.endswith("explodes")
              or first.get("stream") in ("explosion", "collision", "armor", "ground")
              or "damage" in low)
    base = f"{reason}: {_dice(rolls)} rolled {_values(rolls, summed)}"
    if all(r.get("forced") for r in rolls):
        base += " (forced)"
    rolled = sum(int(r.get("result", 0)) for r in rolls)
    after = idx[-1] + 1
    if low.startswith("armor roll of the ground"):
        j = _find(events, after, first, lambda e: e.get("type") == "crater")
        if j is not None:
            return f"{base}: Armor {rolled} — {events[j].get('text', '')}"
    if low.startswith("armor roll of"):
        whose = reason[len("armor roll of "):]
        hits = [e for e in events[after:after + _LOOKAHEAD]
                if e.get("type") == "damage" and _same_time(e, first)
                and e.get("armor") == rolled and str(e.get("text", "")).startswith(whose)]
        if hits:
            told = "; ".join(f"{e.get('damage')} Damage within {_num(e.get('ring'))}\": "
                             f"{_outcome_of_damage(e)}" if "ring" in e else
                             f"{e.get('damage')} Damage: {_outcome_of_damage(e)}" for e in hits)
            return f"{base} = Armor {rolled}; {told}" if len(rolls) == 1 else \
                f"{base}: Armor {rolled}; {told}"
        return f"{base}: Armor {rolled}"
    if first.get("stream") == "explosion" or low.startswith("explosion of") \
            or low.endswith("explodes"):
        j = _find(events, after, first, lambda e: e.get("type") == "explosion")
        if j is not None:
            return f"{base} → {_after_colon(str(events[j].get('text', '')))}"
    if "action roll" in low:
        j = _find(events, after, first, lambda e: "use" in e or "hit" in e)
        if j is not None:
            e = events[j]
            if "use" in e and "total" in e and "hit" in e:
                verdict = "hit" if e.get("hit") else "miss"
                tot = int(e["total"])
                extra = f" (total {tot})" if tot != rolled else ""
                return f"{base}{extra} against Use {e['use']}: {verdict}"
            return f"{base} → {e.get('text', '')}"
    if "damage" in low or first.get("stream") == "collision":
        j = _find(events, after, first, lambda e: e.get("type") == "damage" and "armor" in e)
        if j is not None:
            return f"{base} {_against_armor(events[j], rolled)}"
    j = _find(events, after, first, lambda e: e.get("type") not in HIDDEN)
    if j is None:  # the dice's consequence came later (a blow resolved after a move)
        j = next((k for k in range(after, min(len(events), after + _LOOKAHEAD))
                  if events[k].get("type") not in HIDDEN | {"roll"}), None)
    if j is not None:
        e = events[j]
        if "armor" in e and "damage" in e:
            return f"{base} {_against_armor(e, rolled)}"
        return f"{base} → {e.get('text', '')}"
    return base


def roll_groups(events: list[dict]) -> list[list[int]]:
    """Consecutive ``roll`` events of one reason, stream and die, as index lists."""
    groups: list[list[int]] = []
    prev = None
    for i, e in enumerate(events):
        if e.get("type") != "roll":
            prev = None
            continue
        key = (e.get("reason"), e.get("stream"), e.get("sides"), e.get("time"))
        if prev is not None and key == prev and groups:
            groups[-1].append(i)
        else:
            groups.append([i])
        prev = key
    return groups


# ====================================================================== the story
def _fold_key(e: dict):
    body = e.get("body")
    if not body or e.get("type") in ("roll", "turn", "action", "damage", "destroyed"):
        return None
    return (e.get("type"), wreck_of(str(body)), round(float(e.get("time", 0.0)), 4))


def story_lines(events: list[dict]) -> list[LogLine]:
    """Every line of the story in log order (see the module docstring)."""
    groups = {g[0]: g for g in roll_groups(events)}
    told_impacts = set()
    for g in groups.values():  # the impact whose Collision Damage the dice roll
        if events[g[0]].get("stream") == "collision":
            k = g[0] - 1
            while k >= 0 and events[k].get("type") == "roll":
                k -= 1
            if k >= 0 and events[k].get("type") == "impact" and _same_time(events[k],
                                                                          events[g[0]]):
                told_impacts.add(k)
    lines: list[LogLine] = []
    i = 0
    while i < len(events):
        e = events[i]
        kind = e.get("type", "")
        t, turn = float(e.get("time", 0.0)), int(e.get("turn", 0))
        if kind == "roll":
            g = groups.get(i, [i])
            lines.append(LogLine("roll", t, turn, explain_rolls(events, g), "roll", list(g)))
            i = g[-1] + 1
            continue
        if kind in HIDDEN and i not in told_impacts:
            i += 1
            continue
        key = _fold_key(e)
        j = i + 1
        if key is not None:
            while j < len(events) and _fold_key(events[j]) == key:
                j += 1
        run = list(range(i, j))
        text = str(e.get("text", kind))
        if kind == "turn":
            lines.append(LogLine("player", t, turn, text, kind, [i]))
        elif len(run) >= FOLD_AT:
            lines.append(LogLine("event", t, turn,
                                 f"{text} (and {len(run) - 1} more like it)", kind, run,
                                 [str(events[k].get("text", "")) for k in run[1:]]))
        else:
            for k in run:
                ek = events[k]
                lines.append(LogLine("event", float(ek.get("time", 0.0)),
                                     int(ek.get("turn", 0)), str(ek.get("text", kind)),
                                     str(ek.get("type", "")), [k]))
            j = run[-1] + 1
        i = j
    return lines


def turn_stories(events: list[dict], end_s: float) -> list[TurnStory]:
    """The story split by turn (0: set-up), each turn's players in order of play."""
    lines = story_lines(events)
    turns: dict[int, TurnStory] = {}
    for e in events:
        n = int(e.get("turn", 0))
        ts = turns.setdefault(n, TurnStory(n, [], float(e.get("time", 0.0)), end_s, []))
        if e.get("type") == "turn" and e.get("player") and e["player"] not in ts.players:
            ts.players.append(str(e["player"]))
    for line in lines:
        turns[line.turn].lines.append(line)
    order = sorted(turns)
    for a, b in zip(order, order[1:], strict=False):
        turns[a].end_s = turns[b].start_s
    return [turns[n] for n in order]


# ====================================================================== the end
def outcome_text(events: list[dict]) -> str | None:
    """The game's Outcome in words (the last ``outcome`` event's text), or None."""
    found = [e for e in events if e.get("type") == "outcome"]
    if not found:
        return None
    e = found[-1]
    text = str(e.get("text") or "")
    if not text:
        winner = e.get("winner") or e.get("winners")
        text = f"Winner: {winner}" if winner else "the game is over"
    return text


def casualties(events: list[dict], names: dict[str, str]) -> list[Casualty]:
    """Bodies destroyed, off the table, Disrupted or damaged by the end, worst first.

    Read from the ``end`` event's body states when the log has one, else from ``destroyed``,
    ``off_table`` and ``damage`` events.
    """
    killed: dict[str, tuple[int, str]] = {}
    last_cause: dict[str, str] = {}
    off: dict[str, int] = {}
    for e in events:
        body = str(e.get("body", ""))
        if e.get("type") == "damage" and body:
            last_cause[body] = str(e.get("source") or "Damage")
        elif e.get("type") == "destroyed" and body and body not in killed:
            killed[body] = (int(e.get("turn", 0)), last_cause.get(body, ""))
        elif e.get("type") == "off_table" and body and body not in off:
            off[body] = int(e.get("turn", 0))
    states = next((e.get("states") for e in reversed(events)
                   if e.get("type") == "end" and isinstance(e.get("states"), list)), None)
    out: list[Casualty] = []
    seen: set[str] = set()
    for s in states or []:
        if not isinstance(s, dict) or not s.get("key") or _debris(str(s["key"])):
            continue
        key = str(s["key"])
        seen.add(key)
        name, owner = str(s.get("name") or names.get(key, key)), str(s.get("owner") or "")
        if s.get("destroyed"):
            turn, cause = killed.get(key, (None, last_cause.get(key, "")))
            out.append(Casualty(key, name, owner, "destroyed", turn, cause))
        elif s.get("off_table"):
            out.append(Casualty(key, name, owner, "off the table", off.get(key), ""))
        elif s.get("disrupted"):
            out.append(Casualty(key, name, owner, "disrupted", None, last_cause.get(key, "")))
        elif int(s.get("cumulative_damage") or 0) > 0:
            out.append(Casualty(key, name, owner,
                                f"damaged ({int(s['cumulative_damage'])} Cumulative Damage)",
                                None, last_cause.get(key, "")))
    for key, (turn, cause) in killed.items():
        if key not in seen and not _debris(key):
            out.append(Casualty(key, names.get(key, key), "", "destroyed", turn, cause))
    for key, turn in off.items():
        if key not in seen and key not in killed:
            out.append(Casualty(key, names.get(key, key), "", "off the table", turn, ""))
    rank = {"destroyed": 0, "off the table": 1, "disrupted": 2}
    return sorted(out, key=lambda c: (rank.get(c.status, 3), c.turn if c.turn is not None
                                      else math.inf, c.name))


def _debris(key: str) -> bool:
    """A part a blast destroyed and threw off its creation (``wall~7``): told as a count by
    :func:`broken_parts`, not one by one."""
    root, sep, number = key.rpartition("~")
    return bool(sep and root and number.isdigit())


def broken_parts(events: list[dict], names: dict[str, str]) -> list[str]:
    """Creations broken by explosions, in words ("blast wall: 3 pieces, 32 parts destroyed")."""
    out = []
    for e in events:
        if e.get("type") == "break":
            body = str(e.get("body", ""))
            out.append(f"{names.get(body, body)} broke into {len(e.get('pieces') or [])} "
                       f"piece(s); {len(e.get('debris') or [])} part(s) destroyed "
                       f"(turn {int(e.get('turn', 0))})")
    return out
