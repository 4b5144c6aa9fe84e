"""Hypothesis strategies for websocket frames sent to ``/ws/games/{id}``.

Most frames look like the client messages of ``docs/protocol.md`` (``move``, ``resign``, ``steps``,
``ping``) with fields fuzzed: versions (current, off by one, huge, negative, not integers), message
ids (long, lone surrogates, control characters, not strings), move texts (near-legal and junk),
unknown types and fields, nested junk. The rest are frames no client should send: binary frames,
invalid UTF-8, JSON that is no object, nesting hundreds of levels deep, integers of thousands of
digits, and frames just over the protocol's 16 KiB limit.

A frame is built in two stages: the strategy draws a :class:`Frame` whose version may be relative
(:class:`Relative`, resolved against the game's version at send time), and :meth:`Frame.encode`
makes the text or bytes to send.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

#: The protocol's largest message (``WS_MAX_MESSAGE_BYTES``).
MAX_MESSAGE = 16 * 1024


@dataclass(frozen=True)
class Relative:
    """A version relative to the game's version when the frame is sent."""

    delta: int


@dataclass(frozen=True)
class Legal:
    """One of the moves legal when the frame is sent (the ``index``-th, modulo their number)."""

    index: int


@dataclass(frozen=True)
class Fresh:
    """A message id never sent before (drawn ids repeat: those test retries)."""


_fresh = itertools.count()


@dataclass(frozen=True)
class Frame:
    """One frame: a message (possibly holding :class:`Relative` versions) or raw text or bytes."""

    message: Any = None
    raw: str | bytes | None = None
    binary: bool = False

    def encode(self, version: int, legal: Sequence[str] = ()) -> str | bytes:
        """The text (or bytes, for a binary frame) to send, versions resolved against ``version``
        and legal moves picked from ``legal``."""
        if self.raw is not None:
            return self.raw
        text = json.dumps(_resolve(self.message, version, legal))
        return text.encode() if self.binary else text

    @property
    def size(self) -> int:
        raw = self.raw if self.raw is not None else json.dumps(_resolve(self.message, 0, ()))
        return len(raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else raw)


def _resolve(value: Any, version: int, legal: Sequence[str]) -> Any:
    if isinstance(value, Relative):
        return version + value.delta
    if isinstance(value, Fresh):
        return f"fresh-{next(_fresh)}"
    if isinstance(value, Legal):
        return legal[value.index % len(legal)] if legal else "0,0"
    if isinstance(value, dict):
        return {k: _resolve(v, version, legal) for k, v in value.items()}
    if isinstance(value, list):
        return [_resolve(v, version, legal) for v in value]
    return value


def mostly(good: st.SearchStrategy[Any], bad: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """``good`` four times in five, else ``bad``: valid-looking messages get past the first check."""
    # Hypothesis favours small integers: 0 to 3 (the likelier) choose ``good``.
    return st.integers(0, 4).flatmap(lambda n: bad if n == 4 else good)


surrogates = st.integers(0xD800, 0xDFFF).map(chr)
#: Any text, lone surrogates and control characters included.
texts = st.text(st.characters(codec=None) | surrogates, max_size=80)

json_scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | texts
)
#: Nested junk: small arrays and objects of anything.
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(texts, inner, max_size=4),
    max_leaves=12,
)

versions = mostly(
    st.sampled_from([0, 0, 0, -1, 1]).map(Relative),
    st.integers()
    | st.sampled_from([-1, 0, 2**31, 2**63 - 1, 2**63, -(2**63) - 1, 10**30])
    | json_values,
)
msg_ids = mostly(
    st.just(Fresh()) | st.uuids().map(str),
    st.text(min_size=1, max_size=8)
    | st.text(min_size=60, max_size=200)
    | texts
    | st.text(alphabet=surrogates, min_size=1, max_size=3)
    | st.sampled_from(["", "\x00", "m\n1", "\u2028", "\ufeff"])
    | json_values,
)
#: Legal moves, Exxit cells near the centre (some legal), other games' notation, junk.
move_texts = mostly(
    st.integers(0, 50).map(Legal)
    | st.builds(lambda q, r: f"{q},{r}", st.integers(-4, 4), st.integers(-4, 4)),
    st.sampled_from(["a1", "pass", "swap", "c6xc2,d3,e4:c2,d3,e4", "0,0 ", " 0,0", "0,0,0"])
    | texts
    | st.text(min_size=190, max_size=260)
    | json_values,
)
prefixes = st.one_of(
    st.lists(move_texts, max_size=3),
    st.lists(st.just("0,0"), min_size=60, max_size=70),
    json_values,
)
message_types = mostly(
    # Resignations are rarer: each ends the game, and a new one is started.
    st.sampled_from(
        ["move"] * 6
        + ["steps", "steps", "ping", "resign", "offer", "answer", "chat", "abort", "claim"]
    ),
    st.sampled_from(["MOVE", "Move", "pong", "ack", "event", "error", "snapshot", ""])
    | json_values,
)
field_names = (
    st.sampled_from(
        ["move", "version", "msg_id", "prefix", "type", "data", "kind", "accept", "text"]
    )
    | texts
)
#: Offers' kinds: the three, and junk.
offer_kinds = mostly(st.sampled_from(["draw", "takeback", "rematch"]), texts | json_values)
accepts = mostly(st.booleans(), json_values)
#: Chat lines: plain, empty, too long, control characters, markup, junk.
chat_texts = mostly(
    st.text(min_size=1, max_size=40),
    st.sampled_from(["", "   ", "x" * 301, "a\x07b", "<script>alert(1)</script>", "\u202e"])
    | st.text(min_size=290, max_size=2100)
    | json_values,
)


@st.composite
def messages(draw: st.DrawFn) -> dict[Any, Any]:
    """A client message of a known type with its fields fuzzed, or an object of junk."""
    kind = draw(message_types)
    message: dict[Any, Any] = {} if draw(st.integers(0, 9)) == 9 else {"type": kind}
    fields = {
        "move": move_texts,
        "version": versions,
        "msg_id": msg_ids,
        "prefix": prefixes,
        "kind": offer_kinds,
        "accept": accepts,
        "text": chat_texts,
    }
    for name, strategy in fields.items():
        # Mostly the fields the type takes, sometimes others, sometimes none.
        wanted = {
            "move": ("move", "version", "msg_id"),
            "resign": ("version", "msg_id"),
            "steps": ("prefix", "msg_id"),
            "ping": ("msg_id",),
            "offer": ("kind", "msg_id"),
            "answer": ("kind", "accept", "msg_id"),
            "chat": ("text", "msg_id"),
            "abort": ("msg_id",),
            "claim": ("msg_id",),
        }.get(kind if isinstance(kind, str) else "", ())
        if (draw(st.integers(0, 19)) < 19) == (name in wanted):
            message[name] = draw(strategy)
    if draw(st.integers(0, 9)) == 9:
        message[draw(field_names)] = draw(json_values)
    return message


def _deep(depth: int, kind: str) -> str:
    if kind == "array":
        return "[" * depth + "]" * depth
    return '{"type": "ping", "msg_id": ' + '{"a": ' * depth + "1" + "}" * depth + "}"


def _long_number(digits: int, where: str) -> str:
    number = "9" * digits
    if where == "version":
        return f'{{"type": "move", "move": "0,0", "version": {number}, "msg_id": "n"}}'
    return f'{{"type": "ping", "msg_id": {number}}}'


def _oversized(size: int) -> str:
    padding = "x" * max(0, size - len('{"type": "ping", "msg_id": ""}'))
    return json.dumps({"type": "ping", "msg_id": padding})


frames = st.one_of(
    messages().map(Frame),
    messages().map(Frame),
    messages().map(Frame),
    messages().map(Frame),
    messages().map(Frame),
    messages().map(lambda m: Frame(m, binary=True)),
    json_values.map(lambda v: Frame(raw=json.dumps(v))),
    st.binary(max_size=64).map(lambda b: Frame(raw=b)),
    st.sampled_from([b"\xff", b'{"type": "ping"}\xff', b"\xc3\x28", b"\xed\xa0\x80"]).map(
        lambda b: Frame(raw=b)
    ),
    texts.map(lambda t: Frame(raw=t)),
    st.builds(_deep, st.integers(30, 3000), st.sampled_from(["array", "object"])).map(
        lambda t: Frame(raw=t)
    ),
    st.builds(_long_number, st.integers(4290, 6000), st.sampled_from(["version", "msg_id"])).map(
        lambda t: Frame(raw=t)
    ),
    st.integers(MAX_MESSAGE - 64, MAX_MESSAGE + 512).map(lambda n: Frame(raw=_oversized(n))),
    st.sampled_from(
        [
            '{"type": "ping", "msg_id": "\\udfff"}',
            '{"type": "move", "move": "\\ud800", "version": 2, "msg_id": "s"}',
            '{"type": "ping", "type": "move"}',
            '{"type": "ping"} {"type": "ping"}',
            '{"type": "move", "move": "0,0", "version": 1e400, "msg_id": "f"}',
            '{"type": "move", "move": "0,0", "version": NaN, "msg_id": "f"}',
            "",
            " ",
            "null",
        ]
    ).map(lambda t: Frame(raw=t)),
)

#: ``since`` values for the query string of a (re)connect.
since_values = st.one_of(
    st.integers(-5, 50).map(str),
    st.sampled_from(["²", "٣", "1e3", "0x10", " 1", "+1", "", str(2**63), str(2**63 - 1)]),
    st.integers(20, 6000).map(lambda n: "9" * n),
    st.text(max_size=20),
)
