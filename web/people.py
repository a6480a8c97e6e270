"""Games with several people: who plays which power, the creator's seat, filling a seat
nobody took with a bot, and the guard on seat tokens.

A game made with ``seats`` (a kind per power: ``person``, a bundled bot's name, or ``open``)
gets one web seat per person, each with its own secret token (its link); the creator's is
the first, and only the creator's pages are shown the other seats' links (to share) and who
has joined. Optionally a seat no person has taken after ``fill_after`` seconds is given to a
bundled bot (``fill_bot``) so that friends who never come do not hold up the game.

Seat tokens are 144 random bits (:mod:`web.seats`), so guessing one is hopeless; the
:class:`TokenGuard` still limits wrong ones per address exactly as the passcode guard does
(:func:`server.guard.lockout_after`), so that a guesser is refused without any lookup while
the seats' rightful holders, whose addresses opened a seat of the game before, go on.
"""

from __future__ import annotations

import hmac
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from diplomat.engine.map import GameMap
from diplomat.server.guard import lockout_after, peer_key
from diplomat.server.settings import IAM_FREE_GUESSES, IAM_LOCKOUT, IAM_LOCKOUT_CAP, IAM_TRUSTED_CAP
from diplomat.web.seats import open_tables

PERSON = "person"  # a seat kind: a person, who opens the seat's link

_SCHEMA = """
CREATE TABLE IF NOT EXISTS web_hosts (
    game_id INTEGER PRIMARY KEY,
    token TEXT NOT NULL,               -- the creator's seat
    fill_bot TEXT,                     -- gives an untaken person's seat to this bot ...
    fill_after INTEGER                 -- ... after this many seconds of forming
);
"""


class SeatsError(ValueError):
    """A line-up of seats that cannot be made (the message says why)."""


@dataclass(frozen=True)
class Lineup:
    """Who plays each power of a game with people, checked against its map."""

    host: str  # the creator's power
    people: tuple[str, ...]  # the other people's powers, in the map's order
    others: dict[str, str]  # every power but the host's -> PERSON, a bot, or "open"


def read_lineup(
    seats: Any, gmap: GameMap, host: str | None, bots: Sequence[str], open_kind: str
) -> Lineup:
    """A ``seats`` request (power -> kind) for ``gmap``: every power named once, each kind
    a person, one of ``bots`` or ``open_kind``; ``host`` (or, if None, the first person in
    the map's order) must be a person."""
    if not isinstance(seats, Mapping):
        raise SeatsError("seats: expected an object naming each power's seat")
    kinds: dict[str, str] = {}
    for power, kind in seats.items():
        name = str(power).upper()
        if name not in gmap.powers:
            raise SeatsError(f"seats: no power {name} on {gmap.name}")
        text = " ".join(str(kind).lower().split())
        if text != PERSON and text != open_kind and text not in bots:
            raise SeatsError(
                f"seats: {name} is {text!r}: choose {PERSON}, {open_kind} or a bot "
                f"({', '.join(bots)})"
            )
        kinds[name] = text
    absent = [p for p in gmap.powers if p not in kinds]
    if absent:
        raise SeatsError(f"seats: say who plays {', '.join(absent)}")
    people = [p for p in gmap.powers if kinds[p] == PERSON]
    if not people:
        raise SeatsError("seats: at least one power must be played by a person")
    if host is None:
        host = people[0]
    if kinds.get(host) != PERSON:
        raise SeatsError(f"seats: your power {host} must be a person's seat")
    others = {p: k for p, k in kinds.items() if p != host}
    return Lineup(host, tuple(p for p in people if p != host), others)


def seat_lineup(lineup: Lineup, power: str) -> dict[str, str]:
    """The line-up as seen from ``power``'s seat: every other power's kind."""
    everyone = {lineup.host: PERSON, **lineup.others}
    return {p: k for p, k in everyone.items() if p != power}


def people_of(power: str, lineup: Mapping[str, str]) -> list[str]:
    """The powers people play in a game, from one seat's power and line-up."""
    return [power, *(p for p, k in lineup.items() if k == PERSON)]


@dataclass
class Host:
    game_id: int
    token: str
    fill_bot: str | None
    fill_after: int | None

    def holds(self, token: str) -> bool:
        return hmac.compare_digest(self.token.encode(), token.encode())


class HostBook:
    """Each game with people's creator seat and its fill-with-a-bot choice, in the server's
    database (so that a restart knows them)."""

    def __init__(self, path: str) -> None:
        self._db = open_tables(path, _SCHEMA)

    def close(self) -> None:
        self._db.close()

    def add(self, host: Host) -> None:
        self._db.execute(
            "INSERT OR REPLACE INTO web_hosts VALUES (?, ?, ?, ?)",
            (host.game_id, host.token, host.fill_bot, host.fill_after),
        )

    def get(self, game_id: int) -> Host | None:
        row = self._db.execute(
            "SELECT game_id, token, fill_bot, fill_after FROM web_hosts WHERE game_id=?",
            (game_id,),
        ).fetchone()
        return None if row is None else Host(*row)

    def is_host(self, game_id: int, token: str) -> bool:
        """Whether ``token`` is the game's creator's seat (a game made for one person has
        no record: its only seat is its creator's)."""
        host = self.get(game_id)
        return host is None or host.holds(token)


def waiting_people(
    people: Sequence[tuple[str, str]],
    gmap: GameMap,
    joined: set[str | None],
    link: Callable[[str], str] | None,
) -> list[dict[str, Any]]:
    """Who the game waits for, for a forming game's view: each person's power, whether they
    have joined, and (``link``, for the creator's pages only) the seat's link to share."""
    out = []
    for power, token in people:
        row: dict[str, Any] = {
            "power": power,
            "name": gmap.power_info[power].name,
            "joined": power in joined,
        }
        if link is not None and token:  # (no token: the seat went to a bot)
            row["link"] = link(token)
        out.append(row)
    return out


@dataclass
class _Record:
    misses: int = 0
    until: float = 0.0
    last: float = 0.0


@dataclass
class TokenGuard:
    """Wrong seat tokens, per address (IPv6: per /64), limited as the passcode guard limits
    wrong passcodes: ``free`` wrong ones, then a lockout doubling up to ``cap`` during which
    the address's hellos are refused unread. An address that has opened a seat of a game is
    trusted for that game: its own wrong tokens there count on a record of its own (capped
    at ``trusted_cap``), so a guesser elsewhere never locks the game's players out."""

    free: int = IAM_FREE_GUESSES
    lockout: float = IAM_LOCKOUT
    cap: float = IAM_LOCKOUT_CAP
    trusted_cap: float = IAM_TRUSTED_CAP
    clock: Callable[[], float] = time.monotonic
    peers: dict[str, _Record] = field(default_factory=dict)
    trusted: dict[tuple[int, str], _Record] = field(default_factory=dict)
    checked: int = 0  # tokens actually looked up (for tests and logs)

    def wait(self, game: int, peer: str) -> float:
        """Seconds until a hello for ``game`` from ``peer`` may be checked (0: now)."""
        key = peer_key(peer)
        record = self.trusted.get((game, key)) or self.peers.get(key)
        left = 0.0 if record is None else record.until - self.clock()
        if left <= 0:
            self.checked += 1
        return max(0.0, left)

    def failed(self, game: int, peer: str) -> float:
        """A checked token was wrong: the lockout it earned (0 while some are still free)."""
        key = peer_key(peer)
        trusted = (game, key) in self.trusted
        record = self.trusted[(game, key)] if trusted else self.peers.setdefault(key, _Record())
        now = self.clock()
        record.misses += 1
        record.last = now
        delay = lockout_after(
            record.misses, self.free, self.lockout, self.trusted_cap if trusted else self.cap
        )
        record.until = now + delay
        if len(self.peers) > 10_000:  # forget the quiet ones
            for k in [k for k, r in self.peers.items() if now - r.last > 24 * 3600.0]:
                del self.peers[k]
        return delay

    def succeeded(self, game: int, peer: str) -> None:
        """``peer`` opened a seat of ``game``: trusted there, its slate clean."""
        self.trusted[(game, peer_key(peer))] = _Record()


__all__ = [
    "PERSON",
    "Host",
    "HostBook",
    "Lineup",
    "SeatsError",
    "TokenGuard",
    "people_of",
    "read_lineup",
    "seat_lineup",
    "waiting_people",
]
