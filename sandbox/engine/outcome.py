"""How a game ends: :class:`Outcome` (terminated or truncated, a winner or a draw, why).

Each game kind's systems say it through their ``outcome(final)`` hook
(:meth:`sandbox.engine.table.System.outcome`); the engine asks them after every action (turn
ends included) and ends the game on the first decided, terminal outcome it gets
(:attr:`sandbox.engine.game.Game.outcome`): an ``outcome`` event, then ``end``. When the game is
finished otherwise (the scene's last turn, the players' agreement), the hooks are asked once
more with ``final=True``: who holds the victory when the battle stops there.

Like python-chess's ``Outcome`` (termination, winner) and Gymnasium's ``terminated`` /
``truncated`` pair.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class Outcome:
    """The result of a game, or that it is not decided yet.

    Attributes
    ----------
    terminated : bool
        The game's rules ended it (a conquest, the Goblet, a decided field, the players
        ending an Escapade: 13.3 "when players decide the battle is over").
    truncated : bool
        It stopped without the rules deciding it (the scene's last turn, no victory condition).
    winner : str or None
        The winning player or side (an Escapade's force, several joined with " and ").
    draw : bool
        Decided with no winner.
    reason : str
        Why, in words (the rule and the numbers).
    """

    terminated: bool = False
    truncated: bool = False
    winner: str | None = None
    draw: bool = False
    reason: str = ""

    @property
    def decided(self) -> bool:
        """A winner or a draw."""
        return self.winner is not None or self.draw

    @property
    def text(self) -> str:
        """One line: ``"Lions win (every Wolf is defeated or fled)"``, ``"Draw (...)"``."""
        if self.winner is not None:
            head = f"{self.winner} win" + ("" if self.winner.endswith("s") else "s")
        elif self.draw:
            head = "Draw"
        elif self.terminated or self.truncated:
            head = "No winner"
        else:
            head = "Undecided"
        return f"{head} ({self.reason})" if self.reason else head

    def to_dict(self) -> dict:
        """JSON-ready fields (an ``outcome`` event, a save, a replay's meta)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> "Outcome":
        """The inverse of :meth:`to_dict` (unknown keys are ignored).

        Raises
        ------
        TypeError
            A field of the wrong type.
        """
        out = cls(**{k: d[k] for k in ("terminated", "truncated", "winner", "draw", "reason")
                     if k in d})
        for name in ("terminated", "truncated", "draw"):
            if not isinstance(getattr(out, name), bool):
                raise TypeError(f"outcome.{name} must be true or false")
        if out.winner is not None and not isinstance(out.winner, str):
            raise TypeError("outcome.winner must be a name or null")
        if not isinstance(out.reason, str):
            raise TypeError("outcome.reason must be text")
        return out


#: The outcome of a game still going on.
UNDECIDED = Outcome(reason="the game goes on")
