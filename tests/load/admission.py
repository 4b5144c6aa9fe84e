"""What the site-wide socket limits cost per socket (issue 27): ``python -m tests.load.admission``.

Times :class:`~app.runtime.sockets.SocketLimits` (one process's memory, the limits before issue 27)
and :class:`~app.runtime.sockets.RedisSocketLimits` (the local Redis, under a prefix of its own)
admitting and releasing sockets, with a guest already holding ``held`` sockets and its address
``held`` more from other guests (the script reads every member of both sets), and the lease's
renewal with 2,000 sockets held. Median and 99th percentile per call, in microseconds. Figures,
never pass or fail.
"""

from __future__ import annotations

import argparse
import asyncio
import secrets
import statistics
import time

from app.domain.clock import FakeClock
from app.runtime.sockets import RedisSocketLimits, Refusal, SocketLimits

REDIS = "redis://127.0.0.1:6379/0"


def figures(samples: list[float]) -> str:
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return f"median {statistics.median(ordered) * 1e6:7.1f} us   p99 {p99 * 1e6:7.1f} us"


async def measure(limits: SocketLimits, rounds: int, held: int) -> tuple[list[float], list[float]]:
    for n in range(held):  # ann's sockets, and other guests' from the same address
        assert not isinstance(await limits.admit("ann", "203.0.113.7"), Refusal)
        assert not isinstance(await limits.admit(f"guest{n}", "203.0.113.7"), Refusal)
    opens, closes = [], []
    for _ in range(rounds):
        start = time.perf_counter()
        number = await limits.admit("ann", "203.0.113.7")
        opens.append(time.perf_counter() - start)
        assert isinstance(number, int)
        start = time.perf_counter()
        await limits.release(number)
        closes.append(time.perf_counter() - start)
    return opens, closes


async def main(rounds: int, held: int) -> None:
    clock = FakeClock(int(time.time() * 1000))
    memory = SocketLimits(held + 1, 2 * held + 1)
    prefix = f"bench-{secrets.token_hex(4)}:"
    redis = RedisSocketLimits(held + 1, 2 * held + 1, url=REDIS, prefix=prefix, clock=clock)
    try:
        for name, limits in (("memory (one process)", memory), ("Redis (site-wide)", redis)):
            opens, closes = await measure(limits, rounds, held)
            print(f"{name:22} open:  {figures(opens)}")
            print(f"{'':22} close: {figures(closes)}")
        for n in range(2000):
            await redis.admit(f"crowd{n}", f"198.51.100.{n % 250}")
        renewals = []
        for _ in range(20):
            start = time.perf_counter()
            await redis.renew()
            renewals.append(time.perf_counter() - start)
        print(f"{'lease, 2,000 sockets':22} renew: {figures(renewals)} (every PRESENCE_REFRESH)")
    finally:
        await redis.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=2000)
    parser.add_argument("--held", type=int, default=31, help="sockets the guest already holds")
    arguments = parser.parse_args()
    asyncio.run(main(arguments.rounds, arguments.held))
