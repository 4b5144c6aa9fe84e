"""The TypedDicts the services build (``app.schemas.outgoing``) against the models documenting
them: the same keys, and a key a dict may leave out is one its model may do without."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from app.schemas import messages, mine, outgoing, responses

NONE: frozenset[str] = frozenset()
TYPE = frozenset({"type"})
#: Each TypedDict, the model documenting it, and the model's keys the dict leaves to its sender.
PAIRS: list[tuple[type, type[BaseModel], frozenset[str]]] = [
    (outgoing.PlayerJson, responses.Player, NONE),
    (outgoing.ClockJson, responses.ClockOut, NONE),
    (outgoing.AwayJson, responses.AwayOut, NONE),
    (outgoing.TableJson, responses.TableFields, NONE),
    (outgoing.StateJson, messages.GameState, NONE),
    (outgoing.LiveEntryJson, responses.LiveEntry, NONE),
    (outgoing.EventMsgJson, messages.EventMsg, NONE),
    (outgoing.LiveUpdateJson, messages.LiveUpdateMsg, NONE),
    (outgoing.LiveEndJson, messages.LiveEndMsg, NONE),
    (outgoing.StepsJson, responses.StepsOut, NONE),
    (outgoing.SeatRatingJson, responses.SeatRating, NONE),
    (outgoing.InvitationJson, responses.Invitation, NONE),
    (outgoing.YouJson, responses.You, NONE),
    (outgoing.GameSummaryJson, responses.GameSummary, NONE),
    (outgoing.ChatLineJson, responses.ChatLineOut, NONE),
    (outgoing.ChatLogJson, responses.ChatLog, NONE),
    (outgoing.SnapshotJson, responses.Snapshot, NONE),
    (outgoing.EventEntryJson, messages.EventEntry, NONE),
    (outgoing.CatchupJson, messages.CatchupMsg, TYPE),
    (outgoing.SnapshotMsgJson, messages.SnapshotMsg, NONE),
    (outgoing.CatchupMsgJson, messages.CatchupMsg, NONE),
    (outgoing.RecordJson, responses.RecordOut, NONE),
    (outgoing.OpenGameJson, responses.OpenGame, NONE),
    (outgoing.LiveListJson, messages.LiveMsg, NONE),
    (outgoing.OpenGamesJson, responses.OpenGamesOut, NONE),
    (outgoing.LiveJson, responses.LiveOut, NONE),
    (outgoing.AckJson, responses.AckOut, NONE),
    (outgoing.OfferAnswerJson, responses.OfferAnswerOut, NONE),
    (outgoing.EndedJson, responses.EndedOut, NONE),
    (outgoing.ChatSaidJson, responses.ChatSaidOut, NONE),
    (outgoing.TableMsgJson, messages.TableMsg, NONE),
    (outgoing.ChatLineMsgJson, messages.ChatLineMsg, NONE),
    (outgoing.AckMsgJson, messages.AckMsg, NONE),
    (outgoing.DoneMsgJson, messages.DoneMsg, NONE),
    (outgoing.ChallengePersonJson, mine.ChallengePerson, NONE),
    (outgoing.ChallengeJson, mine.ChallengeOut, NONE),
    (outgoing.ChallengesJson, mine.Challenges, NONE),
    (outgoing.ChallengeAnsweredJson, messages.ChallengeAnsweredMsg, NONE),
    (outgoing.MyGameJson, mine.MyGame, NONE),
    (outgoing.MyGamesJson, mine.MyGamesOut, NONE),
    (outgoing.ArchiveEntryJson, responses.ArchiveEntry, NONE),
    (outgoing.ArchiveJson, responses.ArchiveOut, NONE),
]


@pytest.mark.parametrize(
    ("typed", "model", "added"), PAIRS, ids=[typed.__name__ for typed, _, _ in PAIRS]
)
def test_typed_dict_has_its_models_keys(
    typed: type, model: type[BaseModel], added: frozenset[str]
) -> None:
    required: frozenset[str] = typed.__required_keys__  # type: ignore[attr-defined]
    optional: frozenset[str] = typed.__optional_keys__  # type: ignore[attr-defined]
    fields = {field.alias or name: field for name, field in model.model_fields.items()}
    assert required | optional | added == set(fields)
    assert all(not fields[key].is_required() for key in optional)
