"""The online game's wire protocol: JSON text messages, one object each, with a ``type``.

Everything a client sends is validated here (pydantic, ``extra="forbid"``) before the server
looks at it; actions inside ``action`` messages are then validated by the engine's own action
schema (:func:`sandbox.engine.actions.parse_action`), the same one scene files use. Nothing from
the network is ever unpickled or evaluated: :func:`json.loads` and pydantic only.

Client → server
    ``hello {token, version, seq?, hash?}`` (first message, within the hello timeout; ``seq``
    and ``hash``: the state a reconnecting client still holds) · ``action {action, ref?}`` ·
    ``hash {seq, hash}`` (after applying entry ``seq``) · ``state {seq, digest}`` (answer to a
    ``mismatch``) · ``chat {text}`` · ``propose {what: undo|finish}`` · ``vote {id, agree}`` ·
    ``sync_request``.

Server → client
    ``welcome`` (seat, players, turn order, the shared log) · ``sync {seq, save}`` (the
    server's save as JSON text: load it and re-simulate) · ``entry {seq, kind, action?}``
    (kind ``action``, ``undo`` or ``finish``; every accepted change gets the next sequence
    number) · ``confirmed {seq}`` (every connected client sent the server's hash for ``seq``) ·
    ``refused {ref?, reason}`` · ``error {reason}`` · ``mismatch {seq, hash}`` · ``desync {seq,
    seat, difference}`` · ``chat`` · ``proposal`` · ``proposal_result`` · ``presence``.
"""

from __future__ import annotations

import hashlib
import json
import unicodedata
from dataclasses import dataclass
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from ..core.errors import NetError

#: Bumped when a message changes shape; a client of another version is refused at hello.
PROTOCOL_VERSION = 1

#: Largest message the server reads (bytes); a larger one closes the connection (1009).
MAX_MESSAGE_BYTES = 64 * 1024
#: Largest message a client reads (the server's save, with the whole scene, can be large).
CLIENT_MAX_MESSAGE_BYTES = 16 * 1024 * 1024
#: Messages a connection may send in one second before it is disconnected. Not counted: a
#: client's hash reply to an entry it had not yet answered. Actions the server accepted are
#: counted apart, at the same rate: over it the server waits for the second to end before it
#: reads the connection's next message (playing is slowed, never cut off); refused actions,
#: chat, syncs and the rest count and cut it off.
RATE_LIMIT_PER_S = 50
#: Seconds a new TCP connection has to complete the WebSocket handshake.
OPEN_TIMEOUT_S = 10.0
#: Seconds a connected socket has to send its ``hello``.
HELLO_TIMEOUT_S = 10.0
#: Keepalive ping interval and the seconds a pong may take before the peer counts as gone.
PING_INTERVAL_S = 15.0
PING_TIMEOUT_S = 15.0
#: Messages waiting to go out to one client before it counts as too slow and is disconnected.
SEND_QUEUE_LIMIT = 2048
#: Malformed messages one connection may send before it is disconnected.
MAX_BAD_MESSAGES = 100
#: Connections a server holds at once (seats and spectators); more are refused at hello.
MAX_CLIENTS = 32
#: Least seconds between two syncs (the whole save) one connection may ask for.
SYNC_INTERVAL_S = 1.0
#: Longest chat line, characters; chat and entries kept in the shared log.
CHAT_MAX_CHARS = 500
SHARED_LOG_LINES = 200
#: Least seconds between two desync notices about one connection that reach everyone (more
#: are resynchronised all the same, but only counted in the server's own log).
DESYNC_NOTICE_INTERVAL_S = 10.0

#: WebSocket close codes used (RFC 6455): policy violation, too big, unsupported data.
CLOSE_POLICY = 1008
CLOSE_TOO_BIG = 1009
CLOSE_UNSUPPORTED = 1003
CLOSE_GOING_AWAY = 1001


@dataclass(frozen=True)
class Limits:
    """The server's limits on what a connection may do (defaults: the module constants)."""

    max_message_bytes: int = MAX_MESSAGE_BYTES
    rate_per_s: int = RATE_LIMIT_PER_S
    open_timeout_s: float = OPEN_TIMEOUT_S
    hello_timeout_s: float = HELLO_TIMEOUT_S
    ping_interval_s: float | None = PING_INTERVAL_S
    ping_timeout_s: float | None = PING_TIMEOUT_S
    send_queue: int = SEND_QUEUE_LIMIT
    max_bad_messages: int = MAX_BAD_MESSAGES
    max_clients: int = MAX_CLIENTS
    sync_interval_s: float = SYNC_INTERVAL_S
    desync_notice_interval_s: float = DESYNC_NOTICE_INTERVAL_S


#: Characters shown by name rather than as themselves.
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def printable(text: str, limit: int | None = None) -> str:
    """``text`` (from a client: chat, a close reason, a name) made safe for a console, a log
    line or the window: control characters (C0, C1, DEL), bidirectional overrides and line or
    paragraph separators are written as escapes (a newline as ``\\n``, ESC as ``\\x1b``), so
    one line stays one line and nothing steers the terminal; at most ``limit`` characters of
    the result (then ``…``). Idempotent: text made printable once is left as it is."""
    out = []
    for ch in str(text):
        if ch in _NAMED:
            out.append(_NAMED[ch])
            continue
        cat = unicodedata.category(ch)
        if cat in ("Cc", "Cs", "Zl", "Zp") or (cat == "Cf" and unicodedata.bidirectional(ch)
                                                in ("LRE", "RLE", "LRO", "RLO", "PDF", "LRI",
                                                    "RLI", "FSI", "PDI")):
            code = ord(ch)
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")
        else:
            out.append(ch)
    shown = "".join(out)
    if limit is not None and len(shown) > limit:
        shown = shown[:limit] + "…"
    return shown


class _Msg(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


_Token = Annotated[str, Field(min_length=1, max_length=128)]
_Hash = Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]
_Seq = Annotated[int, Field(ge=0, le=10**9)]


class Hello(_Msg):
    """First message of a connection: the join token (and what a reconnecting client holds)."""

    type: Literal["hello"]
    token: _Token
    version: int
    seq: _Seq | None = None
    hash: _Hash | None = None


class ActionMsg(_Msg):
    """An action for the seat's player (its dict form, as a scene file's ``[[actions]]``)."""

    type: Literal["action"]
    action: dict[str, Any]
    ref: Annotated[int, Field(ge=0, le=2**53)] | None = None


class HashMsg(_Msg):
    """The client's ``state_hash()`` after it applied entry ``seq``."""

    type: Literal["hash"]
    seq: _Seq
    hash: _Hash


class StateMsg(_Msg):
    """The client's :func:`state_digest` at ``seq`` (the server asked, after a mismatch)."""

    type: Literal["state"]
    seq: _Seq
    digest: dict[Annotated[str, Field(max_length=200)], Annotated[str, Field(max_length=16)]] = \
        Field(max_length=4000)


class ChatMsg(_Msg):
    type: Literal["chat"]
    text: Annotated[str, Field(min_length=1, max_length=CHAT_MAX_CHARS)]


class ProposeMsg(_Msg):
    """Ask the other seats to agree to take back the last change (``undo``) or to end the game
    now (``finish``)."""

    type: Literal["propose"]
    what: Literal["undo", "finish"]


class VoteMsg(_Msg):
    type: Literal["vote"]
    id: Annotated[int, Field(ge=1, le=2**53)]
    agree: bool


class SyncRequest(_Msg):
    """Send me your save: I will load it and re-simulate."""

    type: Literal["sync_request"]


ClientMessage = Annotated[Union[Hello, ActionMsg, HashMsg, StateMsg, ChatMsg, ProposeMsg,
                                VoteMsg, SyncRequest], Field(discriminator="type")]
_CLIENT_ADAPTER: TypeAdapter = TypeAdapter(ClientMessage)
CLIENT_TYPES = ("hello", "action", "hash", "state", "chat", "propose", "vote", "sync_request")


def parse_client_message(raw: str | bytes) -> BaseModel:
    """Validate one message from a client.

    Raises
    ------
    NetError
        One line: binary frame, not JSON, not an object, unknown ``type``, or the first
        invalid field of a known type.
    """
    if isinstance(raw, (bytes, bytearray, memoryview)):
        raise NetError("binary messages are not accepted: send JSON text")
    try:
        data = json.loads(raw)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise NetError(f"malformed JSON: {exc}") from None
    if not isinstance(data, dict):
        raise NetError(f"a message must be a JSON object, got {type(data).__name__}")
    kind = data.get("type")
    if kind not in CLIENT_TYPES:
        shown = repr(kind)[:40]
        raise NetError(f"unknown message type {shown} (expected one of {', '.join(CLIENT_TYPES)})")
    try:
        return _CLIENT_ADAPTER.validate_python(data)
    except ValidationError as err:
        first = err.errors()[0]
        loc = ".".join(str(p) for p in first["loc"][1:]) or "message"
        raise NetError(f"invalid {kind!r} message: {loc}: {first['msg']}") from None


def dumps(msg: dict) -> str:
    """A message as compact JSON text."""
    return json.dumps(msg, separators=(",", ":"), sort_keys=False)


def parse_server_message(raw: str | bytes) -> dict:
    """A message from the server as a dict with a string ``type`` (a client trusts the server
    no further than this and the engine's own validation of saves and actions).

    Raises
    ------
    NetError
        Binary, not JSON, or not an object with a ``type``.
    """
    if isinstance(raw, (bytes, bytearray, memoryview)):
        raise NetError("the server sent a binary message")
    try:
        data = json.loads(raw)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise NetError(f"the server sent malformed JSON: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("type"), str):
        raise NetError("the server sent a message that is not an object with a type")
    return data


# ------------------------------------------------------------------------------ state digests
def _short(obj: Any) -> str:
    text = json.dumps(obj, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def state_digest(state: dict) -> dict[str, str]:
    """Per-part digests of a :meth:`Game.state_dict <sandbox.engine.game.Game.state_dict>`:
    ``turn``, ``player``, ``over``, ``rolls``, ``system:<name>``, and for every body
    ``body:<key>`` (its state: Damage, owner…) and ``pose:<key>`` (position and rotation as
    the hash rounds them). Two states differ where their digests differ."""
    out = {k: _short(state.get(k)) for k in ("turn", "player", "over", "rolls")}
    for name, sys_state in sorted((state.get("systems") or {}).items()):
        out[f"system:{name}"] = _short(sys_state)
    keys = sorted(set(state.get("bodies") or {}) | set(state.get("poses") or {}))
    for key in keys:
        out[f"body:{key}"] = _short((state.get("bodies") or {}).get(key))
        out[f"pose:{key}"] = _short((state.get("poses") or {}).get(key))
    return out


def first_difference(ours: dict, theirs: dict[str, str]) -> dict:
    """The first differing body between the server's state dict ``ours`` and a client's
    :func:`state_digest` ``theirs``: ``{"body", "part", "server", "text"}`` (``body`` None when
    the bodies agree and the turn, the dice or a system's state differ; then ``part`` names it).

    Only the server's own names reach the text: a body or part the client has and the server
    has not is counted, never named (a digest's keys are client text, and the report goes to
    everyone)."""
    mine = state_digest(ours)
    bodies = sorted({k.split(":", 1)[1] for k in mine if k.startswith(("body:", "pose:"))})
    for key in bodies:
        for part in ("pose", "body"):
            name = f"{part}:{key}"
            if mine.get(name) != theirs.get(name):
                if name not in theirs:
                    text = f"body {key!r}: the client has no such body"
                else:
                    what = "position or rotation" if part == "pose" else "its state"
                    text = f"body {key!r} differs ({what})"
                value = (ours.get("poses" if part == "pose" else "bodies") or {}).get(key)
                if part == "pose" and value is not None:
                    text += f"; the server has it at {value[0]}"
                return {"body": key, "part": part, "server": value, "text": text}
    extra = [k for k in theirs if k not in mine]
    n_bodies = len({k.split(":", 1)[1] for k in extra if k.startswith(("body:", "pose:"))})
    if n_bodies:
        return {"body": None, "part": "bodies", "server": None,
                "text": f"the client has {n_bodies} body(ies) the server has not"}
    for name in sorted(mine):
        if mine.get(name) != theirs.get(name):
            return {"body": None, "part": name, "server": None,
                    "text": f"every body agrees; {name} differs"}
    if extra:
        return {"body": None, "part": None, "server": None,
                "text": f"every body agrees; the client has {len(extra)} part(s) the server "
                        "has not"}
    return {"body": None, "part": None, "server": None,
            "text": "the digests agree (the client's state changed after it sent its hash)"}
