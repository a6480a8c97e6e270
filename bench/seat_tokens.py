"""How hopeless guessing a web seat's token is, and what a hello costs the server.

Prints (1) the wrong tokens one address gets checked in a day under the guard
(web.people.TokenGuard, the passcode guard's lockouts), and the chance that a botnet of many
addresses finds one seat's 144-bit token in a year; (2) the time the hub spends on a hello's
token check (the guard and the seat lookup in the database), for a game with 7 seats, half
the tokens wrong, from 62,500 addresses, on this machine under its current load.

    .venv/bin/python bench/seat_tokens.py
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

# bench/ holds server.py and protocol.py: the project's packages must come first.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from diplomat.server.guard import most_checked
from diplomat.server.settings import IAM_FREE_GUESSES, IAM_LOCKOUT, IAM_LOCKOUT_CAP
from diplomat.web.people import TokenGuard
from diplomat.web.seats import SeatBook

TOKEN_BITS = 18 * 8  # secrets.token_urlsafe(18)
DAY = 24 * 3600.0


def guesses() -> None:
    per_day = most_checked(DAY, IAM_FREE_GUESSES, IAM_LOCKOUT, IAM_LOCKOUT_CAP)
    print(f"wrong tokens checked per address per day: {per_day}")
    for addresses in (1, 10**6, 2**32):
        year = per_day * 365 * addresses
        print(f"  {addresses:>10} addresses for a year: chance to find one seat's token "
              f"{year / 2**TOKEN_BITS:.1e}")  # fmt: skip


def hello_cost(rounds: int = 20_000) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        book = SeatBook(str(Path(tmp) / "bench.sqlite"))
        seats = [book.add(1, p, {}) for p in ("AUS", "ENG", "FRA", "GER", "ITA", "RUS", "TUR")]
        guard = TokenGuard()
        start = time.perf_counter()
        for i in range(rounds):
            peer = f"10.{i % 250}.{i // 250 % 250}.1:5000"
            token = seats[i % 7].token if i % 2 else "wrong-token-of-24-chars!"  # half wrong
            if guard.wait(1, peer) == 0 and book.find(1, token) is None:
                guard.failed(1, peer)
        took = time.perf_counter() - start
        book.close()
    load = os.getloadavg()[0]
    print(f"a hello's token check: {took / rounds * 1e6:.0f} us "
          f"({rounds} hellos, load average {load:.1f})")  # fmt: skip


if __name__ == "__main__":
    guesses()
    hello_cost()
