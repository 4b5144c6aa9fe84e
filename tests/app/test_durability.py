"""Kill the server with SIGKILL in the middle of games: every acknowledged move survives, and the
clients resume (reconnect with ``since``, resend the unacknowledged move with its message id)."""

from __future__ import annotations

import asyncio

import websockets

from games.record import replay
from tests.support.gameplay import MovePicker, quick_game, start_game
from tests.support.server import LiveServer
from tests.support.wsclient import GameSocket, TestVisitor

GAMES = 4
ACKS_BEFORE_KILL = 24


class Table:
    """One game as its two players see it: the moves acknowledged, and the one in flight."""

    def __init__(self, game_id: str, players: dict[int, TestVisitor], seed: int) -> None:
        slug, options = quick_game()
        self.game_id = game_id
        self.players = players
        self.picker = MovePicker(slug, options, seed)
        self.version = 2
        self.acked: list[str] = []
        self.pending: tuple[str, str, int] | None = None  # text, msg_id, based-on version
        self.sockets: dict[int, GameSocket] = {}

    async def connect(self, since: int | None = None) -> None:
        for seat, visitor in self.players.items():
            self.sockets[seat] = await visitor.open(self.game_id, since=since)
            first = await self.sockets[seat].expect("snapshot", "catchup")
            self.version = max(self.version, first["version"])

    async def play(self, acked_total: list[int], reached: asyncio.Event | None) -> None:
        """Play until the game ends or the connection dies; set ``reached`` after enough acks."""
        while (seat := self.picker.to_move()) is not None:
            if self.pending is None:
                text = self.picker.pick()
                self.pending = (text, f"{self.game_id}-{len(self.acked)}", self.version)
            text, msg_id, based_on = self.pending
            socket = self.sockets[seat]
            await socket.send({"type": "move", "move": text, "version": based_on, "msg_id": msg_id})
            answer = await socket.expect("ack", "error")
            assert answer["type"] == "ack", answer
            self.picker.play(text)
            self.acked.append(text)
            self.version = answer["version"]
            self.pending = None
            acked_total[0] += 1
            if reached is not None and acked_total[0] >= ACKS_BEFORE_KILL:
                reached.set()  # and keep playing: the kill lands while moves are in flight


async def test_sigkill_loses_no_acknowledged_move_and_clients_resume(database_url: str) -> None:
    server = LiveServer(database_url)
    server.start()
    visitors = [await TestVisitor(server.url).start(f"P{i}") for i in range(2 * GAMES)]
    tables: list[Table] = []
    try:
        for g in range(GAMES):
            ann, bo = visitors[2 * g], visitors[2 * g + 1]
            slug, options = quick_game()
            body = await start_game(ann.http, bo.http, slug, options)
            table = Table(body["id"], {1: ann, 2: bo}, seed=g)
            await table.connect()
            tables.append(table)
        acked_total = [0]
        reached = asyncio.Event()
        tasks = [asyncio.create_task(t.play(acked_total, reached)) for t in tables]
        await asyncio.wait_for(reached.wait(), 60)
        server.kill()  # SIGKILL: no shutdown handler runs
        results = await asyncio.gather(*tasks, return_exceptions=True)
        assert all(
            r is None or isinstance(r, (websockets.ConnectionClosed, OSError, TimeoutError))
            for r in results
        ), results
        assert sum(len(t.acked) for t in tables) >= ACKS_BEFORE_KILL

        restarted = LiveServer(database_url, port=server.port)
        restarted.start()
        try:
            for table in tables:
                stored = (await table.players[1].http.get(f"/api/games/{table.game_id}")).json()
                moves: list[str] = stored["game"]["moves"]
                assert moves[: len(table.acked)] == table.acked  # every acknowledged move is there
                assert len(moves) - len(table.acked) in (0, 1)  # at most the one in flight
                await table.connect(since=table.version)
            await asyncio.gather(*(t.play([0], None) for t in tables))
            for table in tables:
                record = (
                    await table.players[2].http.get(f"/games/{table.game_id}/record.json")
                ).json()
                assert record["moves"] == table.acked
                final = replay(record)
                assert table.picker.rules.outcome(final) is not None
                assert record["result"] == table.picker.rules.outcome(final).to_json()  # type: ignore[union-attr]
        finally:
            restarted.stop()
    finally:
        for visitor in visitors:
            await visitor.close()
        server.stop()
