"""Request bodies and websocket messages (Pydantic v2), told apart by ``type`` on the socket."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr

MsgId = Annotated[StrictStr, Field(min_length=1, max_length=64)]
MoveText = Annotated[StrictStr, Field(min_length=1, max_length=200)]
Token = Annotated[StrictStr, Field(min_length=1, max_length=80)]


class Strict(BaseModel):
    """Unknown fields are refused, so a typo is an error rather than silently ignored."""

    model_config = ConfigDict(extra="forbid")


class NameIn(Strict):
    name: Any


class CreateIn(Strict):
    game: StrictStr
    options: dict[str, Any] = Field(default_factory=dict)
    seat: Any = "random"
    public: bool = True


class JoinIn(Strict):
    token: Any = None


class MoveIn(Strict):
    move: MoveText
    version: StrictInt
    msg_id: MsgId


class ResignIn(Strict):
    version: StrictInt | None = None
    msg_id: MsgId


# --- websocket messages from the client ------------------------------------------------------


class WsMove(Strict):
    type: Literal["move"]
    move: MoveText
    version: StrictInt
    msg_id: MsgId


class WsResign(Strict):
    type: Literal["resign"]
    version: StrictInt | None = None
    msg_id: MsgId


class WsSteps(Strict):
    type: Literal["steps"]
    prefix: Annotated[list[Annotated[StrictStr, Field(max_length=40)]], Field(max_length=64)]
    msg_id: MsgId | None = None


class WsPing(Strict):
    type: Literal["ping"]
    msg_id: MsgId | None = None


WS_MESSAGES: dict[str, type[Strict]] = {
    "move": WsMove,
    "resign": WsResign,
    "steps": WsSteps,
    "ping": WsPing,
}
