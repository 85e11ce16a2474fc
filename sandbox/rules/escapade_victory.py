"""Escapade victory and defeat: Fighting a Losing Battle, who holds the field (BrikWars 13.3, 13.4).

Readings chosen where the text is unclear:

- 13.3 "Unless all defending forces are defeated": the defending forces are the Host's Hero,
  the Garrison and the allied defenders; while any of them stands, the Host holds the victory.
- 13.3 Embracing Defeat: a force has "lost at least half of its Unit Inch value" when its
  surviving Unit Inches are at most half of its starting total; "fewer Unit Inches ... than at
  least one of its enemy Heroes or alliances" compares its alliance's surviving total with the
  largest enemy alliance's (an alliance is never smaller than any one of its Heroes).
- 13.3 The automatic Losing Battle applies to forces led by Heroes; a Garrison has no Hero, so
  it is defeated only by concession, elimination, withdrawal or a chosen Losing Battle.
- 13.3 "Any Heroes still on the field can snatch the victory": the undefeated Hero-led forces
  win together when they all belong to one alliance.
- 13.4 In a Final Battle the Host Hero and Garrison may Fight a Losing Battle at any time; in a
  Last Stand the Hero is Host Hero and Escapading Hero at once.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Sequence

from sandbox.core.errors import RulesError

from .escapade_forces import EscapadeKind, Role, Side, alliance_key

__all__ = [
    "ForceStanding",
    "VictoryOutcome",
    "VictoryStatus",
    "must_fight_losing_battle",
    "may_fight_losing_battle",
    "is_defeated",
    "alliance_totals",
    "victory_status",
    "campaign_exits",
]


@dataclass(frozen=True)
class ForceStanding:
    """Where one force stands at a moment of the battle (facts for the victory rules).

    Attributes
    ----------
    name : str
    role : Role
        Current role (alliances can change by Betrayal).
    initial_inches : float
        Unit Inches at the start of the battle.
    current_inches : float
        Unit Inches of surviving units now (reserves count while a Commander is on the table).
    on_field : bool
        Some unit of the force is on the table.
    led_by_heroes : bool
        The force came with one or more Heroes.
    heroes_on_field : bool
        At least one of its Heroes is alive on the table.
    conceded : bool
    losing_battle : bool
        Its player declared it Fighting a Losing Battle.
    """

    name: str
    role: Role
    initial_inches: float
    current_inches: float
    on_field: bool = True
    led_by_heroes: bool = True
    heroes_on_field: bool = True
    conceded: bool = False
    losing_battle: bool = False

    @property
    def alliance(self) -> str:
        """Alliance key ("attackers", "defenders", or the meddler's own name)."""
        return alliance_key(self.name, self.role)


class VictoryOutcome(Enum):
    """Who would hold the victory if the battle ended now (13.3 Determining Victory)."""

    HOST_HOLDS = "host_holds"
    ESCAPADING_HERO = "escapading_hero"
    SNATCHED = "snatched"
    NO_CLEAR_VICTOR = "no_clear_victor"


@dataclass(frozen=True)
class VictoryStatus:
    """Result of :func:`victory_status`.

    Attributes
    ----------
    outcome : VictoryOutcome
    victors : tuple of str
        Force names holding the victory (empty with no clear victor).
    defeated : tuple of str
        Forces defeated so far.
    reason : str
    """

    outcome: VictoryOutcome
    victors: tuple[str, ...]
    defeated: tuple[str, ...]
    reason: str

    def to_dict(self) -> dict:
        """Plain-dict summary for a log."""
        return {
            "outcome": self.outcome.value,
            "victors": list(self.victors),
            "defeated": list(self.defeated),
            "reason": self.reason,
        }


def must_fight_losing_battle(s: ForceStanding) -> bool:
    """All of a Hero-led force's Heroes are gone: it automatically Fights a Losing Battle (13.3)."""
    return s.led_by_heroes and not s.heroes_on_field and s.role is not Role.GARRISON


def alliance_totals(standings: Sequence[ForceStanding]) -> dict[str, float]:
    """Surviving Unit Inches per alliance."""
    out: dict[str, float] = {}
    for s in standings:
        out[s.alliance] = out.get(s.alliance, 0.0) + s.current_inches
    return out


def may_fight_losing_battle(
    name: str, standings: Sequence[ForceStanding], kind: EscapadeKind = EscapadeKind.STANDARD
) -> bool:
    """Whether force ``name`` may choose to Fight a Losing Battle now (13.3, 13.4).

    It may when it has lost at least half its Unit Inches and its alliance has fewer surviving
    Unit Inches than some enemy alliance; when all its Heroes are gone; or, in a Final Battle or
    Last Stand, at any time if it is the Host's Hero or Garrison.

    Raises
    ------
    RulesError
        If ``name`` is not among ``standings``.
    """
    by = {s.name: s for s in standings}
    if name not in by:
        raise RulesError(f"unknown force {name!r}; known: {sorted(by)!r}")
    s = by[name]
    if kind.is_final and s.role.is_host:
        return True
    if must_fight_losing_battle(s):
        return True
    if s.current_inches > s.initial_inches / 2 + 1e-9:
        return False
    totals = alliance_totals(standings)
    mine = totals[s.alliance]
    return any(total > mine for key, total in totals.items() if key != s.alliance)


def is_defeated(s: ForceStanding) -> bool:
    """Conceded, eliminated/withdrawn, or Fighting a Losing Battle (13.3 Embracing Defeat)."""
    return s.conceded or s.losing_battle or not s.on_field or must_fight_losing_battle(s)


def _snatch(
    standings: Sequence[ForceStanding], defeated: tuple[str, ...], why: str
) -> VictoryStatus:
    heroes = [
        s
        for s in standings
        if not is_defeated(s) and s.led_by_heroes and s.role is not Role.GARRISON
    ]
    alliances = {s.alliance for s in heroes}
    if len(alliances) == 1:
        return VictoryStatus(
            VictoryOutcome.SNATCHED,
            tuple(s.name for s in heroes),
            defeated,
            f"{why}; the {alliances.pop()} Heroes outlasted every rival",
        )
    if not heroes:
        return VictoryStatus(
            VictoryOutcome.NO_CLEAR_VICTOR, (), defeated, f"{why}; no Hero is left undefeated"
        )
    return VictoryStatus(
        VictoryOutcome.NO_CLEAR_VICTOR,
        (),
        defeated,
        f"{why}; rival Heroes are still fighting: {sorted(alliances)!r}",
    )


def victory_status(
    standings: Sequence[ForceStanding], kind: EscapadeKind = EscapadeKind.STANDARD
) -> VictoryStatus:
    """Who holds the victory if the players ended the battle now (13.3 Determining Victory).

    - While any defending force is undefeated, the Host holds the victory.
    - Once all defending forces are defeated, the Escapading Hero wins unless he is defeated too.
    - With no defending forces, the Escapading Hero wins only once all meddlers are defeated.
    - With both leaders defeated, undefeated Heroes win if all their opponents are defeated.

    Parameters
    ----------
    standings : sequence of ForceStanding
    kind : EscapadeKind
        In a Last Stand the Host Hero is also the Escapading Hero.

    Raises
    ------
    RulesError
        If there is no Escapading Hero (nor a Host Hero in a Last Stand).
    """
    defeated = tuple(s.name for s in standings if is_defeated(s))
    lead_role = Role.HOST_HERO if kind is EscapadeKind.LAST_STAND else Role.ESCAPADING_HERO
    leads = [s for s in standings if s.role is lead_role]
    if not leads:
        raise RulesError(f"no {lead_role.value} among {[s.name for s in standings]!r}")
    eh = leads[0]
    defenders = [s for s in standings if s.role.side is Side.DEFENDERS]
    if defenders:
        if any(not is_defeated(s) for s in defenders):
            hosts = tuple(s.name for s in defenders if s.role.is_host) or tuple(
                s.name for s in defenders
            )
            return VictoryStatus(
                VictoryOutcome.HOST_HOLDS, hosts, defeated, "a defending force is still undefeated"
            )
        if not is_defeated(eh) and kind is not EscapadeKind.LAST_STAND:
            return VictoryStatus(
                VictoryOutcome.ESCAPADING_HERO,
                (eh.name,),
                defeated,
                "every defending force is defeated",
            )
        return _snatch(standings, defeated, "the Escapading Hero and the Host are both defeated")
    meddlers = [s for s in standings if s.role is Role.MEDDLER]
    if not is_defeated(eh):
        if all(is_defeated(s) for s in meddlers):
            return VictoryStatus(
                VictoryOutcome.ESCAPADING_HERO,
                (eh.name,),
                defeated,
                "no defenders, and every meddler is defeated",
            )
        return VictoryStatus(
            VictoryOutcome.NO_CLEAR_VICTOR,
            (),
            defeated,
            "no defenders, and meddlers are still undefeated",
        )
    return _snatch(standings, defeated, "no defenders, and the Escapading Hero is defeated")


def campaign_exits(standings: Sequence[ForceStanding], kind: EscapadeKind) -> tuple[str, ...]:
    """Forces whose Hero's campaign ends with this battle (13.4 Final Battle, Last Stand).

    In a Final Battle a defeated Escapading Hero or Host Hero is out of the campaign; a Last
    Stand always ends its Hero's story. In an ordinary Escapade nobody leaves the campaign.
    """
    if kind is EscapadeKind.STANDARD:
        return ()
    out = []
    for s in standings:
        if s.role is Role.HOST_HERO and kind is EscapadeKind.LAST_STAND:
            out.append(s.name)
        elif s.role in (Role.ESCAPADING_HERO, Role.HOST_HERO) and is_defeated(s):
            out.append(s.name)
    return tuple(out)
