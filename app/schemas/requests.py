"""HTTP request bodies (Pydantic v2): unknown fields are refused, so a typo is an error."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PlainValidator,
    StrictBool,
    StrictInt,
    StrictStr,
    WithJsonSchema,
    model_validator,
)

from app.errors import excerpt
from app.parsing import json_fault

# No control characters: a message id is stored and looked up, and PostgreSQL text holds no NUL.
MsgId = Annotated[StrictStr, Field(min_length=1, max_length=64, pattern=r"^[^\x00-\x1f\x7f]+$")]
MoveText = Annotated[StrictStr, Field(min_length=1, max_length=200)]


def _seat(value: object) -> object:
    if value in (1, 2, "random") and type(value) in (int, str):  # never True, 1.0 or "1"
        return value
    raise ValueError(f"seat must be 1, 2 or 'random', not {excerpt(value)}")


#: The seat a creator or challenger asks for (a bool or a float is refused, though True == 1).
Seat = Annotated[
    Literal[1, 2, "random"],
    PlainValidator(_seat),
    WithJsonSchema({"enum": [1, 2, "random"], "description": '1, 2 or "random"'}),
]


#: A client's estimate of its network lag (ms), credited from its quota in timed games.
Lag = Annotated[StrictInt, Field(ge=0, le=60_000, description="the client's lag estimate (ms)")]


#: A time control as a request gives it: checked by ``TimeControl.parse`` (``bad_option`` naming the
#: part), documented in the OpenAPI schema with its exact shapes.
TimeControlField = Annotated[
    Any,
    WithJsonSchema(
        {
            "anyOf": [
                {"type": "null"},
                {
                    "type": "object",
                    "properties": {"kind": {"const": "unlimited"}},
                    "required": ["kind"],
                    "additionalProperties": False,
                },
                {
                    "type": "object",
                    "properties": {
                        "kind": {"const": "realtime"},
                        "base": {"type": "integer", "minimum": 30, "maximum": 10800},
                        "increment": {"type": "integer", "minimum": 0, "maximum": 180},
                    },
                    "required": ["kind", "base"],
                    "additionalProperties": False,
                },
                {
                    "type": "object",
                    "properties": {
                        "kind": {"const": "correspondence"},
                        "days": {"enum": [1, 2, 3, 5, 7, 14]},
                    },
                    "required": ["kind", "days"],
                    "additionalProperties": False,
                },
            ]
        }
    ),
]


class Strict(BaseModel):
    """Unknown fields are refused, so a typo is an error rather than silently ignored; so are a
    value of another type than its field's (``"yes"`` or ``1`` for a boolean, ``"5"`` for an
    integer: pydantic's strict mode), text holding a lone surrogate (JSON's ``"\\udfff"``: it
    cannot be encoded to be stored or echoed) or a control character, and values nested deeper
    than ``app.parsing.MAX_DEPTH``."""

    model_config = ConfigDict(extra="forbid", strict=True)

    @model_validator(mode="before")
    @classmethod
    def _unicode_text(cls, data: Any) -> Any:
        fault = json_fault(data)
        if fault is not None:
            raise ValueError(fault)
        return data


class NameIn(Strict):
    """``PUT /api/me``: the new display name (checked by ``app.identity.validate_name``)."""

    name: Any


class CreateIn(Strict):
    """``POST /api/games``: which game, its options, the creator's seat and visibility."""

    game: StrictStr
    options: dict[str, Any] = Field(default_factory=dict)
    seat: Seat = "random"
    public: bool = True
    rated: bool = Field(False, description="rated games need an account, and their opponent too")
    time_control: TimeControlField = Field(
        None,
        description='{"kind": "unlimited"} (the default), {"kind": "realtime", "base": seconds, '
        '"increment": seconds} or {"kind": "correspondence", "days": 1, 2, 3, 5, 7 or 14}',
    )
    takebacks: bool | None = Field(
        None, description="whether takebacks may be asked; by default yes if casual, no if rated"
    )


def _text_or_none(value: object) -> object:
    return value if isinstance(value, str) else None


#: A join token: anything but text opens nothing, as a wrong token does (``bad_token``, or a
#: private game's ``game_not_found``), never ``invalid_request``. Its schema stays "any value",
#: which is what the route takes (and what the HTTP fuzzing's links were tuned against).
JoinToken = Annotated[StrictStr | None, BeforeValidator(_text_or_none), WithJsonSchema({})]


class JoinIn(Strict):
    """``POST /api/games/{id}/join``: the join token of the invitation."""

    token: JoinToken = None


class MoveIn(Strict):
    """``POST /api/games/{id}/moves``: the HTTP twin of the websocket ``move``."""

    move: MoveText
    version: StrictInt
    msg_id: MsgId
    lag: Lag = 0


class ResignIn(Strict):
    """``POST /api/games/{id}/resign``: the HTTP twin of the websocket ``resign``."""

    version: StrictInt | None = None
    msg_id: MsgId


class ReplayIn(Strict):
    """``POST /api/replay``: a game, its options and moves to replay."""

    game: StrictStr
    options: dict[str, Any] = Field(default_factory=dict)
    moves: Annotated[list[StrictStr], Field(max_length=2000)]
    from_: Annotated[StrictInt, Field(alias="from", ge=0, le=2000)] = 0
    count: Annotated[StrictInt, Field(ge=1, le=32)] = 32


def raw_body(schema: dict[str, Any]) -> dict[str, Any]:
    """``openapi_extra`` for a route that reads and checks its raw body itself (to name the first
    bad ply, or to refuse an oversized body before parsing it): the JSON body it expects."""
    content = {"application/json": {"schema": schema}}
    return {"requestBody": {"required": True, "content": content, "description": RAW_BODY}}


#: How the document tells a body the route reads itself (one that is not UTF-8 is ``bad_json``).
RAW_BODY = "Read by the route itself: a body that is no JSON, or not UTF-8, is bad_json."


REPLAY_BODY = raw_body(ReplayIn.model_json_schema())
#: An imported record has the shape ``GET /games/{id}/record.json`` answers.
RECORD_BODY = raw_body({"$ref": "#/components/schemas/RecordOut"})


OfferKind = Literal["draw", "takeback", "rematch"]


class OfferIn(Strict):
    """``POST /api/games/{id}/offer``: a draw, a takeback or a rematch."""

    kind: OfferKind


class AnswerIn(Strict):
    """``POST /api/games/{id}/answer``: accept or decline the opponent's offer (or withdraw
    one's own with ``accept: false``)."""

    kind: OfferKind
    accept: StrictBool


class ChatIn(Strict):
    """``POST /api/games/{id}/chat``: a line for the visitor's room."""

    text: Annotated[StrictStr, Field(max_length=2000)]
