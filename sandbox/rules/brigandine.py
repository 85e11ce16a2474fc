"""Brigandine combat (``shared/rules/003``, ch. "Combat"), pure Python: no physics, no window.

Brigandine is a medieval system for minifigs. A battle runs in rounds of eight phases
(:data:`PHASES`); melee is resolved by one of four systems: Skirmish, Man-to-Man, Fantasy
Combat and Jousting. Every die comes from a :class:`~sandbox.core.dice.DiceStream` passed in;
the tables are data (:mod:`sandbox.rules.brigandine_tables`, a default set designed by this
project, since the text prints none).

Stats: ATK, AIM, IQ and DEF are dice (their number of sides, 4..20), and Brigandine's "dice
explode": a die showing its highest face is rolled again and added (003, Skirmish Combat Table:
"any die is theoretically able to reach arbitrarily high values"). Morale is a 2d6 score.
Strengths are written ``"attk 2HF, def 1LC"``: #attk (men fighting) and attk type, #def (hits
to defeat) and def type; types LF/MF/HF (foot), LC/MC/HC (cavalry), FC (Fantasy Combat only).

Choices where the text is silent or contradicts itself (ours, documented here and in README):

* Arquebus reload: phase 6 says "an arquibusier who has not fired or moved may reload", the
  clarifications say artillery "including arquibusses" reloads "on the first movement phase".
  We follow the clarification (phase 3, :data:`RELOAD_PHASE`): it is the more specific rule and
  it is what makes "fire and reload in the same round" impossible. Either way the rate is at
  best one shot every other round.
* The second missile phase is for bow archers who fired once in phase 4 and did nothing else.
* Defensive Action needs the defender *strictly* lower in initiative ("must be lower"): a tie
  is refused too.
* Weary (after a charge) means: may not charge, until a round of rest (no move, no melee).
* "2 ranks lower" (Man-to-Man strike order after the first round) is read as "2 or more".
* Skirmish scores one hit per successful ATK die (the text's steps 5 and 7); the Missile table
  scores 1 + (roll - number) hits (the text's Missile Fire paragraph).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Literal

from ..core.dice import DiceStream
from ..core.errors import RulesError
from .brigandine_tables import UNIT_TYPES, Tables

#: The eight phases of a round, in order (003, Combat Phases).
PHASES: tuple[str, ...] = ("reactions", "declare actions", "first movement", "first missiles",
                           "melee", "artillery", "second movement", "second missiles")
#: Die sizes a stat may have.
DIE_SIZES: tuple[int, ...] = (4, 6, 8, 10, 12, 20)
#: Every type a strength may name (FC: Fantasy Combat only).
ALL_TYPES: tuple[str, ...] = UNIT_TYPES + ("FC",)
#: The initiative a delaying player counts as (phase 1: "resorting to a 1 on the roll").
DELAY_INITIATIVE: int = 1
#: Phase in which artillery (arquebuses included) reloads -- our choice, see the module text.
RELOAD_PHASE: int = 3
#: Most explosions of one die (a guard against a forced stream of maxima).
MAX_EXPLOSIONS: int = 50

MissileKind = Literal["bow", "longbow", "crossbow", "arquebus", "sling", "javelin"]
MISSILE_KINDS: tuple[str, ...] = ("bow", "longbow", "crossbow", "arquebus", "sling", "javelin")


def phase_name(phase: int) -> str:
    """``"3. first movement"`` for phase 3 (1..8)."""
    return f"{phase}. {PHASES[phase - 1]}"


# ============================================================================ strengths, stats
@dataclass(frozen=True)
class Strength:
    """A unit's fighting strength: ``attk`` = (#attk, attk type), ``defence`` = (#def, def type).

    Examples
    --------
    >>> s = parse_strength("attk 2HF, def 1LC")
    >>> s.attk, s.defence
    ((2, 'HF'), (1, 'LC'))
    """

    attk: tuple[int, str]
    defence: tuple[int, str]

    def __str__(self) -> str:
        return f"attk {self.attk[0]}{self.attk[1]}, def {self.defence[0]}{self.defence[1]}"


_STRENGTH_RE = re.compile(r"^\s*attk\s*(\d+)\s*([A-Za-z]{2})\s*,\s*def\s*(\d+)\s*([A-Za-z]{2})\s*$",
                          re.IGNORECASE)


def parse_strength(text: str) -> Strength:
    """Parse ``"attk 2HF, def 1LC"`` (003, "determining the attack and defensive strengths").

    Raises
    ------
    RulesError
        Not in that form, a type outside LF/MF/HF/LC/MC/HC/FC, or a count below 1.
    """
    m = _STRENGTH_RE.match(str(text))
    if not m:
        raise RulesError(f"strength {text!r} is not like 'attk 2HF, def 1LC'")
    na, ta, nd, td = int(m[1]), m[2].upper(), int(m[3]), m[4].upper()
    for t in (ta, td):
        if t not in ALL_TYPES:
            raise RulesError(f"strength {text!r}: type {t!r} is not one of {list(ALL_TYPES)}")
    if ta == "FC":
        raise RulesError(f"strength {text!r}: FC is a def type only (003, Fantasy Combat)")
    if na < 1 or nd < 1:
        raise RulesError(f"strength {text!r}: #attk and #def must be at least 1")
    return Strength((na, ta), (nd, td))


@dataclass(frozen=True)
class Weapon:
    """A melee weapon: its ``type`` (a row of the Weapon Type Table, or None), ``wclass``
    (a row of the Weapon Class Table) and ``rank`` (reach: higher is longer and slower)."""

    name: str
    type: str | None
    wclass: str
    rank: int


def weapon_from_table(tables: Tables, name: str) -> Weapon:
    """The weapon type ``name`` of the man-to-man table, with its class and rank.

    Raises
    ------
    RulesError
        No such weapon type.
    """
    row = tables.man_to_man.weapon_types.get(name)
    if row is None:
        raise RulesError(f"weapon {name!r} is not one of {sorted(tables.man_to_man.weapon_types)}")
    return Weapon(name, name, row.wclass, row.rank)


_ARMOR_BY_WEIGHT = {"L": "leather", "M": "mail", "H": "plate", "F": "plate"}


@dataclass(frozen=True)
class UnitStats:
    """A Brigandine soldier (or a unit standing for several men).

    Attributes
    ----------
    name : str
    atk, aim, iq, def_die : int
        Die sizes (4..20) of ATK, AIM, IQ and DEF.
    morale : int
        Morale score: a 2d6 roll at least this passes (2..12).
    move : float
        Full movement, inches (half of it per movement phase).
    strength : Strength
    weapon : Weapon or None
        Equipped melee weapon (a fist when None).
    missile : str or None
        Missile weapon kind (:data:`MISSILE_KINDS`).
    firing : int
        How many archers it counts as (an English Longbowman: 2).
    armor : str or None
        Man-to-Man armour class; by default from the def type's weight (L leather, M mail,
        H plate).
    fc_class : str or None
        Fantasy class (a row of the Fantasy table); None: a mortal.
    legendary, magic_weapon : bool
        May harm FC-only creatures (003, Fantasy Combat).
    """

    name: str
    atk: int = 6
    aim: int = 6
    iq: int = 6
    def_die: int = 6
    morale: int = 7
    move: float = 6.0
    strength: Strength = field(default_factory=lambda: parse_strength("attk 1MF, def 1MF"))
    weapon: Weapon | None = None
    missile: str | None = None
    firing: int = 1
    armor: str | None = None
    fc_class: str | None = None
    legendary: bool = False
    magic_weapon: bool = False

    def __post_init__(self) -> None:
        for stat in ("atk", "aim", "iq", "def_die"):
            if getattr(self, stat) not in DIE_SIZES:
                raise RulesError(f"{self.name}: {stat} must be a die of {list(DIE_SIZES)} sides, "
                                 f"got {getattr(self, stat)}")
        if not 2 <= self.morale <= 13:
            raise RulesError(f"{self.name}: morale must be 2..13, got {self.morale}")
        if self.missile is not None and self.missile not in MISSILE_KINDS:
            raise RulesError(f"{self.name}: missile {self.missile!r} is not one of "
                             f"{list(MISSILE_KINDS)}")

    @property
    def attk_n(self) -> int:
        return self.strength.attk[0]

    @property
    def attk_type(self) -> str:
        return self.strength.attk[1]

    @property
    def def_n(self) -> int:
        return self.strength.defence[0]

    @property
    def def_type(self) -> str:
        return self.strength.defence[1]

    @property
    def cavalry(self) -> bool:
        """Mounted: a C attk type (LC/MC/HC)."""
        return self.attk_type.endswith("C")

    @property
    def fc_only(self) -> bool:
        """May be harmed only in Fantasy Combat (def type FC)."""
        return self.def_type == "FC"

    @property
    def fc_capable(self) -> bool:
        """May slay FC-only creatures: legendary, a magic weapon, or a creature of a class."""
        return self.legendary or self.magic_weapon or self.fc_class is not None

    @property
    def armor_class(self) -> str:
        return self.armor or _ARMOR_BY_WEIGHT[self.def_type[0]]

    @property
    def skirmish_def_type(self) -> str:
        """The def type for the tables: an FC-only creature's attk type stands in."""
        return self.attk_type if self.fc_only else self.def_type

    @property
    def weapon_or_fist(self) -> Weapon:
        return self.weapon or Weapon("fist", "fist", "light", 0)


# ============================================================================ dice
@dataclass(frozen=True)
class DieRoll:
    """One exploding die: ``faces`` as rolled, ``total`` their sum."""

    sides: int
    faces: tuple[int, ...]

    @property
    def total(self) -> int:
        return sum(self.faces)


def roll_exploding(stream: DiceStream, sides: int, reason: str = "") -> DieRoll:
    """Roll one Brigandine die: a highest face is rolled again and added (003: "dice explode")."""
    faces = [stream.roll(sides, reason).result]
    while faces[-1] == sides and len(faces) <= MAX_EXPLOSIONS:
        faces.append(stream.roll(sides, f"{reason} (explodes)".strip()).result)
    return DieRoll(sides, tuple(faces))


# ============================================================================ phase 1: initiative
def roll_initiative(stream: DiceStream, iq_dice: dict[str, int],
                    delayed: frozenset[str] | set[str] = frozenset()) -> dict[str, int]:
    """Each *player* rolls IQ (003, phase 1): ``{player: roll}``; a delaying player counts 1.

    ``iq_dice`` is each player's IQ die (sides), rolled in the order given. Delaying players
    still roll (their dice are kept in the record) but count :data:`DELAY_INITIATIVE`.
    """
    out = {}
    for player, sides in iq_dice.items():
        r = roll_exploding(stream, sides, f"{player}'s IQ for initiative").total
        out[player] = DELAY_INITIATIVE if player in delayed else r
    return out


def initiative_groups(initiative: dict[str, int]) -> list[list[str]]:
    """Players from highest initiative to lowest; ties share a group and act together."""
    values = sorted(set(initiative.values()), reverse=True)
    return [sorted(p for p, v in initiative.items() if v == value) for value in values]


# ============================================================================ morale
@dataclass(frozen=True)
class MoraleCheck:
    dice: tuple[int, int]
    morale: int

    @property
    def total(self) -> int:
        return sum(self.dice)

    @property
    def passed(self) -> bool:
        """2d6 equal to or higher than the morale score passes (003, Morale)."""
        return self.total >= self.morale


def morale_check(stream: DiceStream, morale: int, reason: str = "morale") -> MoraleCheck:
    """Roll 2d6 (plain dice) against ``morale``."""
    a = stream.roll(6, reason).result
    b = stream.roll(6, reason).result
    return MoraleCheck((a, b), int(morale))


def must_check_morale_against_charge(defender: UnitStats, charger: UnitStats) -> bool:
    """Infantry facing a cavalry charge must pass a morale check to stand (003, Charges)."""
    return charger.cavalry and not defender.cavalry


# ============================================================================ fire rates
@dataclass
class Launcher:
    """A missile or artillery weapon's readiness over the rounds (003, Clarifications).

    * bow, longbow: fire in phase 4 and, only if it did nothing else, again in phase 8
      (at most 2 a round);
    * crossbow: starts loaded; fires in phase 4 only; reloads in phase 7 only (instead of
      moving); at best once a round;
    * arquebus (artillery): starts loaded; fire declared in phase 2 happens in phase 6; the
      shot is lost if the crew does anything else or is meleed before then (not if shot at);
      reloads in phase 3 (our choice: :data:`RELOAD_PHASE`); at best every other round;
    * sling, javelin: phase 4, once a round.
    """

    kind: str
    loaded: bool = True
    shots_this_round: int = 0
    shot_phases: list[int] = field(default_factory=list)
    declared: bool = False
    lost: str = ""

    def new_round(self) -> None:
        self.shots_this_round = 0
        self.shot_phases = []
        self.declared = False
        self.lost = ""

    @property
    def artillery(self) -> bool:
        """An arquebus, or any artillery weapon (a kind that is not a hand missile)."""
        return self.kind == "arquebus" or self.kind not in MISSILE_KINDS

    def fire_refusal(self, phase: int, did_other: bool = False) -> str:
        """Why it may not fire now ("" when it may). ``did_other``: moved or meleed this round."""
        k = self.kind
        if self.artillery:
            if phase != 6:
                return "artillery fires only in phase 6, declared in phase 2"
            if not self.declared:
                return "artillery fire must be declared in phase 2"
            if self.lost:
                return f"the shot is lost: {self.lost}"
            return "" if self.loaded else f"the {self.kind} is not loaded"
        if phase == 4:
            if k in ("crossbow",) and not self.loaded:
                return "the crossbow is not loaded (reload in phase 7)"
            return "" if self.shots_this_round == 0 else "already fired this round"
        if phase == 8:
            if k not in ("bow", "longbow"):
                return "the second missile phase is for archers with bows only"
            if did_other:
                return "only an archer who did nothing but shoot fires again in phase 8"
            if self.shot_phases != [4]:
                return "only an archer who has fired once (in phase 4) fires a second time"
            return ""
        return f"missiles fly in phases 4 and 8, not in phase {phase}"

    def fire(self, phase: int, did_other: bool = False) -> None:
        """Fire (raises RulesError with the reason when it may not)."""
        why = self.fire_refusal(phase, did_other)
        if why:
            raise RulesError(why)
        self.shots_this_round += 1
        self.shot_phases.append(phase)
        if self.kind == "crossbow" or self.artillery:
            self.loaded = False

    def reload_refusal(self, phase: int) -> str:
        if self.kind != "crossbow" and not self.artillery:
            return f"a {self.kind} needs no reloading"
        if self.loaded:
            return f"the {self.kind} is loaded"
        if self.kind == "crossbow" and phase != 7:
            return "crossbows reload only in the second movement phase (7)"
        if self.artillery and phase != RELOAD_PHASE:
            return f"artillery reloads in the first movement phase ({RELOAD_PHASE})"
        return ""

    def reload(self, phase: int) -> None:
        why = self.reload_refusal(phase)
        if why:
            raise RulesError(why)
        self.loaded = True
        if self.declared:
            self.crew_acted("reloading")

    # artillery -----------------------------------------------------------------------------
    def declare_refusal(self) -> str:
        if not self.artillery:
            return "only artillery fire is declared for phase 6"
        return "" if self.loaded else f"the {self.kind} is not loaded: it cannot be declared"

    def declare(self) -> None:
        why = self.declare_refusal()
        if why:
            raise RulesError(why)
        self.declared = True

    def crew_acted(self, what: str) -> None:
        """The crew did something between declaring and phase 6: the shot is lost."""
        if self.declared and not self.lost:
            self.lost = f"the crew was {what} before phase 6"

    def meleed(self) -> None:
        self.crew_acted("meleed")

    def shot_at(self) -> None:
        """Being fired upon does not spoil the shot (003, Clarifications)."""


# ============================================================================ missiles
def form_missile_units(archers: list[str], size: int = 4) -> list[list[str]]:
    """Group one player's archers into missile units of at most ``size`` (003, Missile Fire:
    "The maximum size for a unit is 4; above this count as an additional unit").

    >>> [len(u) for u in form_missile_units([f"a{i}" for i in range(6)])]
    [4, 2]
    """
    if size < 1:
        raise RulesError(f"a missile unit holds at least 1 archer, not {size}")
    return [list(archers[i:i + size]) for i in range(0, len(archers), size)]


def missile_hits(roll: int, number: int) -> int:
    """Hits of one AIM die: 0 below ``number``, 1 at it, one more for each point above
    (003, Missile Fire): ``1 + (roll - number)``."""
    return 0 if roll < number else 1 + (roll - number)


@dataclass(frozen=True)
class MissileResult:
    archers: tuple[str, ...]
    firing: int
    aim: DieRoll
    number: int
    hits: int


def resolve_missile_unit(stream: DiceStream, tables: Tables, archers: list[UnitStats],
                         target: UnitStats) -> MissileResult:
    """One missile unit fires at ``target``: total #firing, the target's def type, one AIM die
    (the unit's best AIM), hits per :func:`missile_hits`.

    Raises
    ------
    RulesError
        An empty unit, more archers than a unit holds, or an FC-only target.
    """
    if not archers:
        raise RulesError("a missile unit needs at least one archer")
    if len(archers) > tables.missile.max_unit_size:
        raise RulesError(f"a missile unit holds at most {tables.missile.max_unit_size} archers")
    if target.fc_only:
        raise RulesError(f"{target.name} can be fought only in Fantasy Combat")
    firing = sum(a.firing for a in archers)
    number = tables.missile.number(firing, target.def_type)
    aim = roll_exploding(stream, max(a.aim for a in archers),
                         f"AIM of {len(archers)} archer(s) at {target.name}")
    return MissileResult(tuple(a.name for a in archers), firing, aim, number,
                         missile_hits(aim.total, number))


# ============================================================================ Skirmish
def defensive_action_refusal(attacker_initiative: int, defender_initiative: int) -> str:
    """Defensive Action needs the defender lower in initiative than the attacker (he has not
    attacked yet this round); "" when allowed (003, Defensive Action)."""
    if defender_initiative >= attacker_initiative:
        return (f"Defensive Action needs the defender lower in initiative "
                f"({defender_initiative} is not below {attacker_initiative})")
    return ""


def negated_by_defence(atk: list[int], defence: list[int]) -> int:
    """How many ATK dice the DEF dice negate, each DEF die matched to one ATK die and negating
    it only when strictly greater (ties do not negate); the defender's best matching."""
    count, pool = 0, sorted(defence)
    for a in sorted(atk):
        for i, d in enumerate(pool):
            if d > a:
                pool.pop(i)
                count += 1
                break
    return count


@dataclass(frozen=True)
class SkirmishResult:
    attacker: str
    defender: str
    dice: int
    number: int
    atk: tuple[int, ...]
    successes: int
    defence: tuple[int, ...]
    negated: int
    hits: int
    def_left: int

    @property
    def defeated(self) -> bool:
        return self.def_left <= 0


def skirmish_attack(stream: DiceStream, tables: Tables, attacker: UnitStats,
                    defender: UnitStats, def_left: int, *, defensive_action: bool = False,
                    attacker_initiative: int = 0, defender_initiative: int = 0,
                    attk_n: int | None = None) -> SkirmishResult:
    """One Skirmish attack (003, Skirmish Combat, steps 2-8).

    Dice: the cell's dice per man × #attk, each an exploding ATK die, a success at the cell's
    number; each success is a hit. With ``defensive_action`` the defender rolls DEF dice equal
    to his remaining #def, each negating one successful ATK die it strictly beats. Hits come
    off ``def_left``; at 0 the defender is defeated.

    Raises
    ------
    RulesError
        Defensive Action by a defender not lower in initiative; an FC-only defender.
    """
    if defender.fc_only:
        raise RulesError(f"{defender.name} can be fought only in Fantasy Combat")
    if defensive_action:
        why = defensive_action_refusal(attacker_initiative, defender_initiative)
        if why:
            raise RulesError(why)
    per_man, number = tables.skirmish.cell(attacker.attk_type, defender.def_type)
    n = per_man * (attacker.attk_n if attk_n is None else attk_n)
    rolls = [roll_exploding(stream, attacker.atk, f"{attacker.name} ATK at {defender.name}").total
             for _ in range(n)]
    good = [r for r in rolls if r >= number]
    defence: list[int] = []
    negated = 0
    if defensive_action:
        defence = [roll_exploding(stream, defender.def_die, f"{defender.name} DEF "
                                  f"(Defensive Action)").total for _ in range(max(0, def_left))]
        negated = negated_by_defence(good, defence)
    hits = len(good) - negated
    return SkirmishResult(attacker.name, defender.name, n, number, tuple(rolls), len(good),
                          tuple(defence), negated, hits, max(0, def_left - hits))


# ============================================================================ Man-to-Man
ParryKind = Literal["none", "parry_riposte", "shatter", "shatter_hits"]


def strike_order(round_no: int, rank_a: int, rank_b: int, init_a: int, init_b: int) -> str:
    """Who attacks first in Man-to-Man (003, step 2): ``"a"``, ``"b"`` or ``"together"``.

    First round: a weapon 2 or more ranks higher strikes first (reach). Later rounds: a weapon
    2 or more ranks lower strikes first (speed). Otherwise initiative; a tie strikes together.
    """
    if round_no <= 1:
        if rank_a - rank_b >= 2:
            return "a"
        if rank_b - rank_a >= 2:
            return "b"
    else:
        if rank_b - rank_a >= 2:
            return "a"
        if rank_a - rank_b >= 2:
            return "b"
    if init_a == init_b:
        return "together"
    return "a" if init_a > init_b else "b"


def extra_blows(attacker_rank: int, defender_rank: int) -> int:
    """Extra blows for a much quicker weapon: 8+ ranks lower: 2; 4-7 lower: 1; else 0."""
    lower = defender_rank - attacker_rank
    return 2 if lower >= 8 else 1 if lower >= 4 else 0


def blows_per_attack(tables: Tables, attacker: UnitStats, defender: UnitStats) -> int:
    """The Skirmish cell's first number (dice per man) plus :func:`extra_blows`."""
    per_man, _ = tables.skirmish.cell(attacker.attk_type, defender.skirmish_def_type)
    return per_man + extra_blows(attacker.weapon_or_fist.rank, defender.weapon_or_fist.rank)


def parry_kind(defender_rank: int, attacker_rank: int) -> ParryKind:
    """The parry open to a defender by rank difference (defender's minus attacker's; 003 Parry):

    * +2 or more: no parry (``"none"``);
    * +1 to -3: parry; a blow that then misses is riposted, the blow recovered;
    * -4 to -7: parry; the defender's weapon shatters if the blow would have hit without it;
    * -8 or less: as -4..-7, and a blow hitting despite the parry deals an ATK roll of hits.
    """
    d = defender_rank - attacker_rank
    if d >= 2:
        return "none"
    if d >= -3:
        return "parry_riposte"
    if d >= -7:
        return "shatter"
    return "shatter_hits"


@dataclass(frozen=True)
class BlowResult:
    attacker: str
    defender: str
    d6: int
    atk: int
    number: int
    parried: bool
    def_roll: int
    would_hit: bool
    hit: bool
    hits: int
    riposte: bool
    shattered: bool


def resolve_blow(stream: DiceStream, tables: Tables, attacker: UnitStats, defender: UnitStats,
                 parry: bool = False) -> BlowResult:
    """One blow: d6 + ATK against the man-to-man number for the attacker's weapon and the
    defender's armour; with ``parry`` (when :func:`parry_kind` allows it) the defender's DEF
    die is subtracted from the ATK die, with the outcomes of :func:`parry_kind`.

    Raises
    ------
    RulesError
        A parry where the ranks allow none.
    """
    w, dw = attacker.weapon_or_fist, defender.weapon_or_fist
    kind = parry_kind(dw.rank, w.rank)
    if parry and kind == "none":
        raise RulesError(f"{defender.name}'s {dw.name} (rank {dw.rank}) cannot parry a "
                         f"{w.name} (rank {w.rank}): 2 or more ranks above it")
    number = tables.man_to_man.to_hit(w.type, w.wclass, defender.armor_class)
    d6 = stream.roll(6, f"{attacker.name} blow at {defender.name}").result
    atk = roll_exploding(stream, attacker.atk, f"{attacker.name} ATK").total
    would_hit = d6 + atk >= number
    def_roll = 0
    if parry:
        def_roll = roll_exploding(stream, defender.def_die, f"{defender.name} parries").total
    hit = d6 + max(0, atk - def_roll) >= number
    hits = 1 if hit else 0
    riposte = parry and kind == "parry_riposte" and not hit
    shattered = parry and kind in ("shatter", "shatter_hits") and would_hit
    if parry and kind == "shatter_hits" and hit:
        hits = roll_exploding(stream, attacker.atk, f"{attacker.name} hits through the parry").total
    return BlowResult(attacker.name, defender.name, d6, atk, number, parry, def_roll, would_hit,
                      hit, hits, riposte, shattered)


@dataclass
class Fighter:
    """One side of a Man-to-Man fight: stats, #def left, and whether it parries when it may."""

    stats: UnitStats
    def_left: int
    parries: bool = True
    can_defend: bool = True  # a charger meleed again may not defend (003, Charges)
    strikes: bool = True     # False: it may not act further this round (a charger)
    #: How many of its #attk attacks it makes in this fight (None: all). "Each combatant has
    #: attacks equal to his #attk, which he decides how to split this amongst the enemy
    #: combatants" (003, Man-to-Man): a fighter facing two foes splits them.
    attacks: int | None = None


@dataclass(frozen=True)
class ManToManResult:
    order: str
    blows: tuple[BlowResult, ...]
    def_left: tuple[int, int]
    shattered: tuple[bool, bool]


def man_to_man_round(stream: DiceStream, tables: Tables, a: Fighter, b: Fighter, round_no: int,
                     init_a: int, init_b: int) -> ManToManResult:
    """One round of Man-to-Man between ``a`` and ``b`` (003, Man-to-Man steps 2-5).

    Each has #attk attacks of :func:`blows_per_attack` blows; they alternate attacks in
    :func:`strike_order` (together: both attacks land before hits count) until all are spent or
    one is defeated. A parrying defender spends a blow of his own (a riposte recovers it); a
    shattered weapon leaves him with his fists.
    """
    order = strike_order(round_no, a.stats.weapon_or_fist.rank, b.stats.weapon_or_fist.rank,
                         init_a, init_b)
    sides = [a, b]
    stats = [a.stats, b.stats]
    attacks = [a.stats.attk_n if a.attacks is None else max(0, a.attacks),
               b.stats.attk_n if b.attacks is None else max(0, b.attacks)]
    pool = [blows_per_attack(tables, stats[0], stats[1]) * attacks[0] if a.strikes else 0,
            blows_per_attack(tables, stats[1], stats[0]) * attacks[1] if b.strikes else 0]
    left = [a.def_left, b.def_left]
    shattered = [False, False]
    record: list[BlowResult] = []
    first = 1 if order == "b" else 0

    def attack(i: int) -> int:
        j = 1 - i
        hits = 0
        n = min(pool[i], blows_per_attack(tables, stats[i], stats[j]))
        pool[i] -= n
        for _ in range(n):
            kind = parry_kind(stats[j].weapon_or_fist.rank, stats[i].weapon_or_fist.rank)
            parry = (sides[j].parries and sides[j].can_defend and kind != "none"
                     and pool[j] > 0 and not shattered[j])
            if parry:
                pool[j] -= 1
            blow = resolve_blow(stream, tables, stats[i], stats[j], parry)
            record.append(blow)
            if blow.riposte:
                pool[j] += 1
            if blow.shattered:
                shattered[j] = True
                stats[j] = replace(stats[j], weapon=None)
            hits += blow.hits
        return hits

    for _ in range(64):
        if (pool[0] <= 0 and pool[1] <= 0) or min(left) <= 0:
            break
        if order == "together":
            h0 = attack(0) if pool[0] > 0 else 0
            h1 = attack(1) if pool[1] > 0 else 0
            left[1] = max(0, left[1] - h0)
            left[0] = max(0, left[0] - h1)
            continue
        for i in (first, 1 - first):
            if pool[i] > 0 and min(left) > 0:
                j = 1 - i
                left[j] = max(0, left[j] - attack(i))
    return ManToManResult(order, tuple(record), (left[0], left[1]), (shattered[0], shattered[1]))


# ============================================================================ Fantasy Combat
@dataclass
class MonsterMorale:
    """An FC-only creature fought by those who cannot slay it (003, Fantasy Combat): its #attk
    stands in for #def; at cumulative hits equal to #attk it flees; attacked while fleeing, or
    cornered, it fights to the death."""

    attk_n: int
    hits: int = 0
    fleeing: bool = False
    to_the_death: bool = False

    def struck(self, cornered: bool = False) -> str:
        """Record one hit; returns ``"flees"``, ``"fights to the death"`` or ``"fights"``."""
        if self.fleeing or cornered:
            self.fleeing = False
            self.to_the_death = True
        self.hits += 1
        if self.to_the_death:
            return "fights to the death"
        if self.hits >= self.attk_n:
            self.fleeing = True
            return "flees"
        return "fights"


@dataclass(frozen=True)
class FantasyResult:
    rolls: tuple[int, int]
    numbers: tuple[int, int]
    struck: tuple[bool, bool]  # struck[0]: a struck b; struck[1]: b struck a
    slays: tuple[bool, bool]   # the strike takes #def off (else it only drives an FC-only off)


def fantasy_exchange(stream: DiceStream, tables: Tables, a: UnitStats,
                     b: UnitStats) -> FantasyResult:
    """One round of Fantasy Combat: both roll their ATK die at once; each strikes when it
    reaches the number of the other's class (mortal by default). No initiative: both may fall.
    A strike costs one #def -- unless it lands on an FC-only creature from someone who may not
    slay it (:attr:`UnitStats.fc_capable`), when it counts toward driving it off
    (:class:`MonsterMorale`).

    Raises
    ------
    RulesError
        A class missing from the table, or neither side able to fight in Fantasy Combat.
    """
    classes = tables.fantasy.classes
    nums = []
    for u in (b, a):
        c = u.fc_class or "mortal"
        if c not in classes:
            raise RulesError(f"{u.name}: Fantasy class {c!r} is not one of {sorted(classes)}")
        nums.append(classes[c])
    if not (a.fc_capable or b.fc_capable or a.fc_only or b.fc_only):
        raise RulesError(f"neither {a.name} nor {b.name} fights in Fantasy Combat")
    ra = roll_exploding(stream, a.atk, f"{a.name} Fantasy Combat").total
    rb = roll_exploding(stream, b.atk, f"{b.name} Fantasy Combat").total
    struck = (ra >= nums[0], rb >= nums[1])
    slays = (not b.fc_only or a.fc_capable, not a.fc_only or b.fc_capable)
    return FantasyResult((ra, rb), (nums[0], nums[1]), struck, slays)


# ============================================================================ Jousting
@dataclass(frozen=True)
class JoustChoice:
    aim: str
    stance: str


@dataclass(frozen=True)
class JoustResult:
    outcomes: tuple[str, str]  # outcomes[0]: what a's lance did to b; [1]: b's to a
    points: tuple[int, int]

    @property
    def decided(self) -> bool:
        return any(o in ("unhorsed", "slain") for o in self.outcomes)


def joust_refusal(tables: Tables, choice: JoustChoice) -> str:
    if choice.aim not in tables.jousting.aims:
        return f"aim {choice.aim!r} is not one of {tables.jousting.aims}"
    if choice.stance not in tables.jousting.stances:
        return f"stance {choice.stance!r} is not one of {tables.jousting.stances}"
    return ""


def resolve_joust(tables: Tables, a: JoustChoice, b: JoustChoice) -> JoustResult:
    """One pass of a joust: the secret choices revealed together, no dice (003, Jousting)."""
    for c in (a, b):
        why = joust_refusal(tables, c)
        if why:
            raise RulesError(why)
    oa = tables.jousting.outcome(a.aim, b.stance)
    ob = tables.jousting.outcome(b.aim, a.stance)
    pts = tables.jousting.points
    return JoustResult((oa, ob), (pts[oa], pts[ob]))


# ============================================================================ artillery
@dataclass(frozen=True)
class ArtilleryResult:
    weapon: str
    aim: DieRoll
    number: int
    hits: int


def resolve_artillery(stream: DiceStream, tables: Tables, weapon: str, crew: UnitStats,
                      target: UnitStats) -> ArtilleryResult:
    """A declared artillery shot in phase 6: the crew's AIM die against the weapon's number for
    the target's def type; a hit deals ``hits`` plus one per ``extra_hit_every`` points above.

    Raises
    ------
    RulesError
        No such artillery weapon in the table.
    """
    w = tables.artillery.weapons.get(weapon)
    if w is None:
        raise RulesError(f"artillery {weapon!r} is not one of {sorted(tables.artillery.weapons)}")
    number = w.to_hit[UNIT_TYPES.index(target.skirmish_def_type)]
    aim = roll_exploding(stream, crew.aim, f"{crew.name} fires the {weapon} at {target.name}")
    hits = 0 if aim.total < number else w.hits + (aim.total - number) // w.extra_hit_every
    return ArtilleryResult(weapon, aim, number, hits)
