"""What every system of the game shares: the body record, the table's constants, and the
:class:`System` base with its fixed hook names.

The engine (:class:`sandbox.engine.game.Game`) owns the table; systems (Fire and Field
Hazards, Traps, projectiles in flight, Bombardment, Explosions, defences, the Escapade, the
skirmish rules of Move and Attack) register with it and are called through the hooks below, in
the order the engine lists them. A system reaches the table only through the engine's public
interface (:class:`TableAPI`): bodies, dice streams, damage, explode, settle, move a unit,
line of sight, publish an event. No system imports the engine, and none calls another's
private names (``tests/test_architecture.py`` checks both).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, Sequence

from ..rules import collision as collision_rules

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

    from ..core.dice import Dice
    from ..physics.world import ImpactEvent, PhysicsWorld
    from .actions import Action
    from .outcome import Outcome
    from .scene import SceneSpec, Stats

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


@dataclass
class BodyState:
    """Mutable battle state of one body on the table."""

    key: str
    kind: str  # "creation", "unit", "payload"
    name: str
    owner: str | None
    stats: "Stats"
    damage: collision_rules.DamageState = field(default_factory=collision_rules.DamageState)
    explosive_dice: int = 0
    off_table: bool = False

    @property
    def cumulative(self) -> bool:
        return self.kind == "creation"

    def to_dict(self) -> dict:
        return {"key": self.key, "kind": self.kind, "name": self.name, "owner": self.owner,
                "off_table": self.off_table, **self.damage.to_dict()}


class TableAPI(Protocol):
    """The narrow interface a system gets to the table (implemented by the engine).

    Lengths are inches, times seconds; ``log`` publishes a typed event (see
    :mod:`sandbox.engine.events`).
    """

    spec: "SceneSpec"
    world: "PhysicsWorld"
    dice: "Dice"
    bodies: dict[str, BodyState]
    turn: int

    @property
    def current_player(self) -> str: ...

    def log(self, type_: str, text: str, **fields: Any) -> dict: ...

    def subscribe(self, type_: str | None, callback: Any) -> None: ...

    def damage(self, victim: BodyState, damage: int, what: str,
               dice: list[tuple[int, int]] | None = None, armor_penalty: int = 0) -> None: ...

    def queue_explosion(self, key: str, point: "np.ndarray") -> None: ...

    def settle(self, max_seconds: float = MAX_ACTION_SECONDS, min_seconds: float = 0.05,
               quiet: bool = False, log_rest: bool = False) -> None: ...

    def step(self, quiet: bool = False) -> None: ...

    def record_frame(self, force: bool = False) -> None: ...

    def add_body(self, key: str, kind: str, name: str, owner: str | None, stats: "Stats",
                 asset: Any, static: bool = False) -> None: ...

    def move_unit(self, key: str, to: Sequence[float], **options: Any) -> Any: ...

    def system(self, name: str) -> "System": ...

    def refusal(self, action: "Action") -> str: ...

    def apply(self, action: "Action") -> list[dict]: ...


class System:
    """A part of the game that registers with the engine and is called through fixed hooks.

    Subclasses set ``name`` and ``actions`` (the :class:`~sandbox.engine.actions.Action`
    classes they play) and override the hooks they need; every hook is a no-op here. The engine
    calls each hook on every system in its fixed order, whoever drove the game (a scene
    script, the window, a loaded save, a replay).

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
        After Damage was applied to a body.
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

    def __init__(self, game: TableAPI):
        self.game = game

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
    def refusal(self, action: Any) -> str:
        """Why ``action`` is refused now ("" when allowed); nothing may change here."""
        return ""

    def apply(self, action: Any, index: int) -> None:
        """Apply one of this system's actions (``index``: its place in the action log)."""
        raise NotImplementedError(f"{type(self).__name__} plays no {action.type!r} action")
