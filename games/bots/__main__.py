"""Command line: ``python -m games.bots match GAME --a hard --b easy --games N``.

Plays level A against level B, seats alternating, and prints the win rate of A with its 95 %
Wilson interval; ``--verbose`` prints each game. Also ``python -m games.bots levels``: the level
table of every game.
"""

from __future__ import annotations

import argparse
import sys

from .. import get, names
from ..cli import options_of
from .levels import LEVEL_NAMES, LEVELS, MCTS
from .match import run_match


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    parser = argparse.ArgumentParser(prog="python -m games.bots", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    p_match = sub.add_parser("match", help="play two levels against each other")
    p_match.add_argument("game", choices=names())
    p_match.add_argument("--a", default="hard", choices=LEVEL_NAMES)
    p_match.add_argument("--b", default="easy", choices=LEVEL_NAMES)
    p_match.add_argument("--games", type=int, default=10)
    p_match.add_argument("--options", nargs="*", default=[], metavar="NAME=VALUE")
    p_match.add_argument("--key", default="match", help="seed key prefix of the games")
    p_match.add_argument("--max-plies", type=int, default=1000)
    p_match.add_argument("--verbose", action="store_true")
    sub.add_parser("levels", help="print every game's levels")
    args = parser.parse_args(argv)

    if args.command == "levels":
        for slug, levels in LEVELS.items():
            for level in levels.values():
                b = level.budget
                search = (
                    f"sims={b.simulations:<5} cutoff={b.cutoff:<2} widen={b.widen:g}"
                    if level.algorithm == MCTS
                    else "one ply, evaluator only"
                )
                until = (
                    "all game"
                    if level.temperature_plies >= 1000
                    else f"before ply {level.temperature_plies}"
                )
                print(
                    f"{slug:10} {level.name:8} {level.algorithm:6} {search:29} "
                    f"candidates={b.candidates:<3} sampled={b.sampled!s:5} "
                    f"T={level.temperature:g} {until:15} resign<={level.resign_below}"
                )
        return 0
    try:
        rules = get(args.game, **options_of(args.options))
    except ValueError as exc:
        print(exc, file=sys.stderr)
        return 2

    def report(_: int, line: str) -> None:
        if args.verbose:
            print(line, flush=True)

    tally = run_match(
        rules,
        args.a,
        args.b,
        args.games,
        key=args.key,
        max_plies=args.max_plies,
        report=report,
    )
    print(f"{args.game}: {tally.line(args.a, args.b)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
