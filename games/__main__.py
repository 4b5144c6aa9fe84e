"""Command line: ``python -m games list | replay FILE | random GAME | bench [GAME ...]``."""

from __future__ import annotations

import argparse
import json
import random
import sys

from . import get, names, native
from .bench import measure, random_game
from .cli import options_of
from .errors import RecordError
from .record import make_record, replay, rules_of


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    parser = argparse.ArgumentParser(prog="python -m games", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="list the games and their options")
    p_replay = sub.add_parser("replay", help="validate a record and print its final position")
    p_replay.add_argument("file", help="a hexmoot-record/1 JSON file ('-' for standard input)")
    p_random = sub.add_parser("random", help="play a random legal game and print its record")
    p_random.add_argument("game")
    p_random.add_argument("--options", nargs="*", default=[], metavar="NAME=VALUE")
    p_random.add_argument("--seed", type=int, default=None)
    p_bench = sub.add_parser("bench", help="time legal_moves, apply and playouts")
    p_bench.add_argument("games", nargs="*")
    p_bench.add_argument("--games-played", type=int, default=6)
    args = parser.parse_args(argv)

    if args.command == "list":
        for slug in names():
            rules = get(slug)
            opts = ", ".join(
                f"{o.name}={o.default} ({'|'.join(map(str, o.choices))})" for o in rules.OPTIONS
            )
            print(f"{slug:10} {rules.title:10} {opts}")
        return 0
    if args.command == "replay":
        if args.file == "-":
            text = sys.stdin.read()
        else:
            with open(args.file, encoding="utf-8") as f:
                text = f.read()
        try:
            record = json.loads(text)
            rules = rules_of(record)
            state = replay(record)
        except (json.JSONDecodeError, RecordError) as exc:
            print(f"invalid record: {exc}", file=sys.stderr)
            return 1
        outcome = rules.outcome(state)
        print(json.dumps(rules.view(state)["cells"]))
        print(f"{len(record['moves'])} plies; to move: {rules.to_move(state)}")
        print(f"outcome: {json.dumps(outcome.to_json()) if outcome else 'none (game not over)'}")
        return 0
    if args.command == "random":
        try:
            rules = get(args.game, **options_of(args.options))
        except ValueError as exc:
            print(exc, file=sys.stderr)
            return 2
        seed = args.seed if args.seed is not None else random.randrange(2**32)
        _, moves = random_game(rules, random.Random(seed))
        players = [{"seat": 1, "name": "random"}, {"seat": 2, "name": "random"}]
        print(json.dumps(make_record(rules, moves, players) | {"seed": seed}, indent=1))
        return 0
    if args.command == "bench":
        print(f"build: {native.BUILD} ({native.REASON})", flush=True)  # games/native.py
        for slug in args.games or names():
            print(measure(slug, games_played=args.games_played).line(), flush=True)
        return 0
    return 2


if __name__ == "__main__":
    sys.exit(main())
