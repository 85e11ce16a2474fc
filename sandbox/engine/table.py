"""What every system of the game shares: the body record, the table's constants, and the
:class:`System` base with its fixed hook names.

The engine (:class:`sandbox.engine.game.Game`) owns the table; a game kind's systems register
with it and are called through the hooks below, in the order the kind lists them. A system
reaches the table only through the Game's public, typed methods (``Table``: the Game is the
table; systems name the type ``Table`` and never import the engine at run time): bodies, dice
streams, settle, move a unit, line of sight, publish an event, and another system by its class
(``table.system(Skirmish)``, typed). No system imports the engine, and none calls another's
private names (``tests/test_architecture.py`` checks both).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Sequence, TypeVar

from ..core.errors import RulesError

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

    from ..physics.world import ImpactEvent, PhysicsWorld
    from .game import Game as Table  # the one interface a system gets: the Game is the table
    from .outcome import Outcome
    from .scene import SceneSpec, Stats

F = TypeVar("F", bound=Callable[..., Any])

#: Physics steps per recorded replay frame (480 Hz physics → 60 frames per second).
STEPS_PER_FRAME: int = 8
#: Longest a single action may take to come to rest, simulated seconds.
MAX_ACTION_SECONDS: float = 8.0
#: A body whose lowest point is this far below the table top (inches) has fallen off it.
OFF_TABLE_DEPTH_IN: float = 6.0
#: Time allowed for the scene to settle before the first action, seconds.
SETTLE_SECONDS: float = 1.5
#: A moved unit is set down this far (inches) above where it stood, then physics settles it.
MOVE_LIFT_IN: float = 0.02
#: Eye height of a unit as a fraction of its height, for line of sight.
EYE_FRACTION: float = 0.8
#: Neutral player's name when a scene has no players.
NEUTRAL_PLAYER = "Player"


class ActionSpent(RulesError):
    """An action failed after it spent something that cannot be taken back (a die rolled for
    a Sprint that fell short): :meth:`Game.apply` keeps it in the log and raises this."""


@dataclass
class Condition:
    """The engine's own record of a body's condition: on the table, or destroyed.

    A game kind gives its bodies a richer record (:attr:`GameKind.body_condition`; BrikWars:
    :class:`sandbox.rules.collision.DamageState`, with Armor Rolls, Cumulative Damage and
    Disruption); the engine reads only ``destroyed`` and ``to_dict()``.
    """

    destroyed: bool = False

    def to_dict(self) -> dict:
        return {"destroyed": self.destroyed}


@dataclass
class BodyState:
    """Mutable battle state of one body on the table.

    ``damage`` is the game's per-body record (see :class:`Condition`): the engine reads only
    its ``destroyed`` flag and ``to_dict()``; the game's systems read and write the rest.
    """

    key: str
    kind: str  # "creation", "unit", "payload"
    name: str
    owner: str | None
    stats: "Stats"
    damage: Any = field(default_factory=Condition)
    explosive_dice: int = 0
    off_table: bool = False

    @property
    def cumulative(self) -> bool:
        return self.kind == "creation"

    def to_dict(self) -> dict:
        return {"key": self.key, "kind": self.kind, "name": self.name, "owner": self.owner,
                "off_table": self.off_table, **self.damage.to_dict()}


def handles(*classes: type) -> Callable[[F], F]:
    """Mark a :class:`System` method as the one that applies actions of ``classes``:
    ``@handles(MoveAction)`` on ``def move(self, action, index)``. The system plays those
    action types (they join its ``actions``) and :meth:`System.apply` calls the method."""
    def mark(fn: F) -> F:
        fn.handles_actions = tuple(classes)  # type: ignore[attr-defined]
        return fn
    return mark


def refuses(*classes: type) -> Callable[[F], F]:
    """Mark a :class:`System` method as the one that says why an action of ``classes`` is
    refused now (``def move_refused(self, action) -> str``, "" when allowed):
    :meth:`System.refusal` calls it."""
    def mark(fn: F) -> F:
        fn.refuses_actions = tuple(classes)  # type: ignore[attr-defined]
        return fn
    return mark


class System:
    """A part of the game that registers with the engine and is called through fixed hooks.

    Subclasses set ``name`` and override the hooks they need; every hook is a no-op here. The
    engine calls each hook on every system in its fixed order, whoever drove the game (a scene
    script, the window, a loaded save, a replay).

    Actions: a method decorated ``@handles(SomeAction)`` applies that action type, one
    decorated ``@refuses(SomeAction)`` says why it is refused (see :func:`handles`); the
    classes join :attr:`actions` (which may also list classes whose ``apply`` and
    ``refusal`` the subclass overrides itself).

    Hooks
    -----
    setup()
        Once, after the bodies are built and settled.
    on_step(world, impacts)
        After every physics step of an action, with that step's impact events.
    on_path(key, start, end, careful) -> end
        A unit moved from ``start`` to ``end`` ((3,) inches): return where it really ended
        (a Concealed Hazard may stop it short).
    on_damage(victim, damage)
        After Damage was applied to a body (a game's damage rule calls
        :meth:`Table.after_damage`, which runs this hook on every system).
    on_impact(event)
        A physics impact (:class:`~sandbox.physics.world.ImpactEvent`) the engine has just
        logged: a game whose impacts harm (BrikWars Collision Damage) listens here; a game
        without such a system knocks its pieces about for show.
    after_step()
        After every system's ``on_step`` of a physics step (queued detonations go off here).
    after_settle(quiet, max_seconds, min_seconds)
        Physics came to rest in :meth:`Table.settle`; a system may set bodies moving again
        (a destroyed unit falls over) and step physics itself until they rest.
    needs_settle() -> bool
        Something waits for physics to rest (a unit destroyed as a turn began): the engine
        settles after the turn-boundary hooks.
    status_words(key) -> list of str
        A body's status in words (Disrupted, on Fire ...), shown by the window and the card.
    blocks_sight(start, end) -> str
        What blocks the straight line of sight from ``start`` to ``end`` ((3,) inches) that
        is no body (a Smoke Field: ``"smoke"``); "" when nothing does.
    sight_blockers() -> list
        The things :meth:`blocks_sight` looks at, for the window to draw (circles with
        ``centre`` and ``radius``).
    start_of_turn(turn) / end_of_turn(turn)
        Once a game turn (round), before the first player acts / after the last one ends.
    start_of_player_turn(turn, player) / end_of_player_turn(turn, player)
        Each player's part of the turn (a phase); Brigandine's phases fit here.
    pending() -> bool
        Something still has to happen in a later turn (a Payload in flight).
    player_order() -> list of str or None
        The players' turn order, when the game sets one (asked once, at set-up).
    sits_out(turn, player) -> str
        Why a player has no part in a turn ("" when they play it): the engine skips them.
    check() -> list of str
        The scene's expectations and victory conditions that failed, in words.
    outcome(final) -> Outcome or None
        How the game stands by this system's victory rules (None: it has none): asked after
        every action (``final`` False: only a terminal outcome ends the game) and once when
        the game is finished otherwise (``final`` True: who holds the victory then).
    state() -> dict
        What the state hash covers of this system (JSON-ready).
    """

    name: ClassVar[str] = ""
    actions: ClassVar[tuple[type, ...]] = ()
    #: Action class -> name of the method that applies it / says why it is refused.
    appliers: ClassVar[dict[type, str]] = {}
    refusers: ClassVar[dict[type, str]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        appliers: dict[type, str] = {}
        refusers: dict[type, str] = {}
        for klass in reversed(cls.__mro__):
            for attr, fn in vars(klass).items():
                for a in getattr(fn, "handles_actions", ()):
                    appliers[a] = attr
                for a in getattr(fn, "refuses_actions", ()):
                    refusers[a] = attr
        cls.appliers, cls.refusers = appliers, refusers
        cls.actions = tuple(dict.fromkeys([*cls.actions, *appliers]))

    def __init__(self, game: Table):
        self.game = game

    @classmethod
    def wanted(cls, spec: "SceneSpec") -> bool:
        """Whether a game of this scene has this system (the Escapade: only with an
        ``[escapade]`` table). Asked before the system is built."""
        return True

    # hooks -------------------------------------------------------------------------------
    def setup(self) -> None:
        """Once the table is built and settled."""

    def on_step(self, world: "PhysicsWorld", impacts: "Sequence[ImpactEvent]") -> None:
        """After each physics step of an action."""

    def on_path(self, key: str, start: "np.ndarray", end: "np.ndarray",
                careful: bool = False) -> "np.ndarray":
        """A unit's move from ``start`` to ``end``; returns where it ended."""
        return end

    def on_damage(self, victim: BodyState, damage: int) -> None:
        """After Damage was applied to ``victim``."""

    def on_impact(self, event: "ImpactEvent") -> None:
        """A physics impact the engine has just logged."""

    def after_step(self) -> None:
        """After every system's ``on_step`` of one physics step."""

    def after_settle(self, quiet: bool, max_seconds: float, min_seconds: float) -> None:
        """Physics came to rest (``quiet``: a settle without rules)."""

    def needs_settle(self) -> bool:
        """True when something waits for physics to rest."""
        return False

    def status_words(self, key: str) -> list[str]:
        """Body ``key``'s status in words (none: nothing to say)."""
        return []

    def may_act(self, key: str, player: str) -> str:
        """Why unit ``key`` may not move or act for ``player`` now, by this system's rules
        ("" when nothing here forbids it; BrikWars: Disrupted, not its turn)."""
        return ""

    def blocks_sight(self, start: "np.ndarray", end: "np.ndarray") -> str:
        """What blocks sight from ``start`` to ``end`` that is no body ("" when nothing)."""
        return ""

    def sight_blockers(self) -> list:
        """What :meth:`blocks_sight` looks at, for the window to draw."""
        return []

    def start_of_turn(self, turn: int) -> None:
        """Before the first player of ``turn`` acts."""

    def end_of_turn(self, turn: int) -> None:
        """After the last player of ``turn`` ended it."""

    def start_of_player_turn(self, turn: int, player: str) -> None:
        """When ``player``'s part of ``turn`` begins."""

    def end_of_player_turn(self, turn: int, player: str) -> None:
        """When ``player`` ends the turn."""

    def pending(self) -> bool:
        """True while something must still happen in a later turn."""
        return False

    def player_order(self) -> list[str] | None:
        """The players' turn order this system imposes (None: the scene's order)."""
        return None

    def sits_out(self, turn: int, player: str) -> str:
        """Why ``player`` takes no part in ``turn`` ("" when they play it; 13.2 Deployment
        Rush: only rushing Heroes play the rush turn). Nothing may change here."""
        return ""

    def check(self) -> list[str]:
        """Failed expectations, in words."""
        return []

    def state(self) -> dict:
        """JSON-ready state covered by the state hash."""
        return {}

    def outcome(self, final: bool = False) -> "Outcome | None":
        """The game's outcome by this system's victory rules (None: it decides none)."""
        return None

    # actions -----------------------------------------------------------------------------
    @staticmethod
    def method_for(table: dict[type, str], action: Any) -> str | None:
        for klass in type(action).__mro__:
            if klass in table:
                return table[klass]
        return None

    def refusal(self, action: Any) -> str:
        """Why ``action`` is refused now ("" when allowed), from its ``@refuses`` method;
        nothing may change here."""
        name = self.method_for(self.refusers, action)
        return getattr(self, name)(action) if name is not None else ""

    def apply(self, action: Any, index: int) -> None:
        """Apply one of this system's actions (``index``: its place in the action log) with
        its ``@handles`` method.

        Raises
        ------
        NotImplementedError
            No method of this system handles that action class.
        """
        name = self.method_for(self.appliers, action)
        if name is None:
            raise NotImplementedError(f"{type(self).__name__} plays no {action.type!r} action")
        getattr(self, name)(action, index)
