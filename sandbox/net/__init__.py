"""Online play: an authoritative server and lockstep clients on the one engine.

Actions travel, not positions: every peer simulates the same actions on its own
:class:`~sandbox.engine.game.Game` and proves it with ``state_hash()`` after each one
(:mod:`.server`, :mod:`.client`, the wire format in :mod:`.protocol`).
"""

from .client import HeadlessClient
from .protocol import Limits
from .server import GameServer, Seat, make_seats

__all__ = ["GameServer", "HeadlessClient", "Limits", "Seat", "make_seats"]
