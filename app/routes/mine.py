"""A player's own lists and challenges (``docs/protocol.md``, "My games" and "Challenges")."""

from __future__ import annotations

from fastapi import APIRouter, Depends

from app.deps import ServiceDep, VisitorDep
from app.runtime.limiter import rate_limited
from app.schemas import error_responses
from app.schemas.mine import ChallengeAnswerOut, ChallengeIn, ChallengeOut, MyGamesOut
from app.schemas.outgoing import ChallengeJson, MyGamesJson

router = APIRouter()


@router.get("/api/me/games", response_model=MyGamesOut)
async def my_games(visitor: VisitorDep, service: ServiceDep) -> MyGamesJson:
    """The visitor's games (every player id of its identity), challenges and turn count."""
    return await service.mine.mine(visitor)


@router.post(
    "/api/challenges",
    status_code=201,
    response_model=ChallengeOut,
    responses=error_responses(403, 404, 422, 429),
    dependencies=[Depends(rate_limited("challenge per visitor"))],
)
async def challenge(body: ChallengeIn, visitor: VisitorDep, service: ServiceDep) -> ChallengeJson:
    """Challenge a registered player by username."""
    return await service.challenges.send(
        visitor, body.to, body.game, body.options, body.seat, body.rated, body.time_control
    )


@router.post(
    "/api/challenges/{challenge_id}/accept",
    response_model=ChallengeAnswerOut,
    responses=error_responses(403, 404, 409),
)
async def accept(challenge_id: str, visitor: VisitorDep, service: ServiceDep) -> ChallengeAnswerOut:
    """The challenged player accepts: the game starts (any body is ignored)."""
    return await service.challenges.accept(visitor, challenge_id)


@router.post(
    "/api/challenges/{challenge_id}/decline",
    response_model=ChallengeAnswerOut,
    responses=error_responses(403, 404, 409),
)
async def decline(
    challenge_id: str, visitor: VisitorDep, service: ServiceDep
) -> ChallengeAnswerOut:
    """The challenged player declines (any body is ignored)."""
    return await service.challenges.decline(visitor, challenge_id)


@router.post(
    "/api/challenges/{challenge_id}/cancel",
    response_model=ChallengeAnswerOut,
    responses=error_responses(403, 404, 409),
)
async def cancel(challenge_id: str, visitor: VisitorDep, service: ServiceDep) -> ChallengeAnswerOut:
    """The challenger withdraws the challenge (any body is ignored)."""
    return await service.challenges.cancel(visitor, challenge_id)
