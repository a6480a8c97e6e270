"""Passcode guesses: which IAMs are checked at all, so that a power cannot be taken by guessing.

DAIDE passcodes are small integers (1-8191, as the AiServer's), so a loop of fresh connections
could try them all in seconds, and an attacker may hold many addresses (a botnet; one machine
with an IPv6 /48 holds 65,536 /64 networks). Three rules, per power of each game:

* **The address a power was played from is trusted for it.** The server tells the guard
  (:meth:`PasscodeGuard.trust`) when a game starts and when a player comes back with IAM, and
  keeps those addresses in its database for a restart; the rightful
  player returning from there is checked at once, however many guesses others make.
  Wrong guesses from a trusted address count on a record of that address for that power
  alone: after ``free`` of them a lockout starts, ``lockout`` seconds doubling up to
  ``trusted_cap`` (5 minutes), so that a wrong-guessing client on the player's own host or
  NAT delays the player by that much at most once it stops, never for good.
* **Every other address shares one budget per power.** A wrong guess from an untrusted
  address costs the power's shared record; after ``free`` of them a lockout starts,
  ``lockout`` seconds doubling up to ``cap`` (30 minutes), during which no untrusted IAM for
  the power is checked, from whatever address it comes. How many guesses an attacker gets
  therefore does not depend on how many addresses it has: :func:`most_checked` counts them,
  and :func:`chance_to_find` turns the count into the probability of finding the passcode.
  With the defaults, 24 hours of guessing get 60 checked guesses: a chance of 60 / 8191 =
  0.73 %, under the 1 % asked for (computed from these constants; a test holds it).
* **An untrusted address also has a record of its own** (the same capped lockout), which
  stops one address from guessing at many powers and games at once.

A guess is only ever *checked* (compared with a passcode, and counted) when the rules let
it; a refused one costs nothing and teaches nothing. IPv6 peers count by their /64 network,
which one machine usually owns whole. The clock is injected (``time.monotonic`` in service, a
fake one in tests) so that a day of guessing can be simulated.
"""

from __future__ import annotations

import ipaddress
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from diplomat.server.seating import MAX_PASSCODE
from diplomat.server.settings import IAM_FREE_GUESSES, IAM_LOCKOUT, IAM_LOCKOUT_CAP, IAM_TRUSTED_CAP

FORGET_AFTER = 24 * 3600.0  # seconds after which a quiet untrusted address is forgotten
TRUSTED_PER_POWER = 4  # addresses remembered per power (the most recent)


@dataclass
class _Record:
    """Wrong guesses on record and the lockout they earned."""

    misses: int = 0
    until: float = 0.0  # locked out until then
    last: float = 0.0


@dataclass
class _Power:
    """One power of one game: its shared budget and its trusted addresses."""

    shared: _Record = field(default_factory=_Record)
    trusted: dict[str, _Record] = field(default_factory=dict)  # oldest first


def lockout_after(misses: int, free: int, lockout: float, cap: float) -> float:
    """Seconds of lockout after ``misses`` wrong guesses (0 while some are still free)."""
    over = misses - free
    if over < 0:
        return 0.0
    return min(cap, lockout * 2.0 ** min(over, 60))


def most_checked(
    seconds: float,
    free: int = IAM_FREE_GUESSES,
    lockout: float = IAM_LOCKOUT,
    cap: float = IAM_LOCKOUT_CAP,
) -> int:
    """The most wrong guesses one budget lets be checked within ``seconds``, for an attacker
    who guesses at every moment it may, from as many addresses as it likes."""
    t, misses = 0.0, 0
    while t <= seconds:
        misses += 1
        t += lockout_after(misses, free, lockout, cap)
    return misses


def chance_to_find(seconds: float, **limits: Any) -> float:
    """The probability that an attacker finds a passcode (uniform in 1..MAX_PASSCODE) within
    ``seconds``: it gets :func:`most_checked` distinct guesses at most, so at most that many
    of the MAX_PASSCODE values."""
    return min(1.0, most_checked(seconds, **limits) / MAX_PASSCODE)


class PasscodeGuard:
    def __init__(
        self,
        *,
        free: int = IAM_FREE_GUESSES,
        lockout: float = IAM_LOCKOUT,
        cap: float = IAM_LOCKOUT_CAP,
        trusted_cap: float = IAM_TRUSTED_CAP,
        clock: Callable[[], float] = time.monotonic,
        log: Any = None,
    ) -> None:
        self.free = free
        self.lockout = lockout
        self.cap = cap
        self.trusted_cap = trusted_cap
        self.clock = clock
        self.log = log
        self.powers: dict[tuple[int, str], _Power] = {}  # (game, power)
        self.peers: dict[str, _Record] = {}  # untrusted addresses with a wrong guess
        self.checked = 0  # guesses actually compared with a passcode (for tests and logs)

    # -- what the server tells the guard ------------------------------------------------------

    def trust(self, game: int, power: str, peer: str) -> None:
        """``power`` of ``game`` was played from ``peer``: trust its address for that power
        (the most recent few addresses are kept)."""
        key = peer_key(peer)
        trusted = self.powers.setdefault((game, power), _Power()).trusted
        record = trusted.pop(key, None) or _Record()
        trusted[key] = record  # (now the most recent)
        while len(trusted) > TRUSTED_PER_POWER:
            del trusted[next(iter(trusted))]

    def may_try(self, game: int, power: str, peer: str) -> bool:
        """Whether an IAM for ``power`` of ``game`` from ``peer`` may be checked now."""
        now = self.clock()
        key = peer_key(peer)
        entry = self.powers.get((game, power))
        if entry is not None and key in entry.trusted:
            allowed = now >= entry.trusted[key].until
        else:
            who = self.peers.get(key)
            allowed = (who is None or now >= who.until) and (
                entry is None or now >= entry.shared.until
            )
        if allowed:
            self.checked += 1
        return allowed

    def failed(self, games: Iterable[int], power: str, peer: str) -> None:
        """A checked guess was wrong (for ``power`` in each of ``games``)."""
        now = self.clock()
        key = peer_key(peer)
        untrusted = False
        for game in games:
            entry = self.powers.setdefault((game, power), _Power())
            if key in entry.trusted:
                what = f"{power} of game {game} from its player's address {key}"
                self._miss(entry.trusted[key], now, self.trusted_cap, what)
            else:
                untrusted = True
                self._miss(entry.shared, now, self.cap, f"{power} of game {game}")
        if untrusted:
            self._miss(self.peers.setdefault(key, _Record()), now, self.cap, f"peer {key}")
            if len(self.peers) > 10_000:
                self._forget(now)

    def succeeded(self, game: int, power: str, peer: str) -> None:
        """The passcode was right: ``peer`` plays ``power`` now (trusted, its slate clean)."""
        self.trust(game, power, peer)
        self.powers[(game, power)].trusted[peer_key(peer)] = _Record()

    def forget_game(self, game: int) -> None:
        """The game is over: nothing of it is needed any more."""
        for key in [k for k in self.powers if k[0] == game]:
            del self.powers[key]

    def locked_until(self, game: int, power: str, peer: str | None = None) -> float:
        """Until when IAMs for the power wait: from ``peer`` (None: from an untrusted
        address, leaving aside the address's own record); 0 when they do not."""
        entry = self.powers.get((game, power))
        if entry is None:
            return 0.0
        if peer is not None and peer_key(peer) in entry.trusted:
            return entry.trusted[peer_key(peer)].until
        return entry.shared.until

    # -- the records --------------------------------------------------------------------------

    def _miss(self, rec: _Record, now: float, cap: float, what: str) -> None:
        rec.misses += 1
        rec.last = now
        delay = lockout_after(rec.misses, self.free, self.lockout, cap)
        if delay > 0:
            rec.until = now + delay
            if self.log is not None:
                self.log.warning(
                    "IAM lockout", target=what, wrong_guesses=rec.misses, seconds=delay
                )

    def _forget(self, now: float) -> None:
        for key in [k for k, r in self.peers.items() if now - r.last > FORGET_AFTER]:
            del self.peers[key]


def peer_key(peer: str) -> str:
    """The address part of ``host:port`` (IPv6: its /64 network; IPv4 mapped into IPv6: the
    IPv4 address); a key is its own key."""
    if "/" in peer:
        return peer
    host = peer.rsplit(":", 1)[0] if peer.count(":") == 1 else peer
    if peer.count(":") > 1:
        host = peer.rsplit(":", 1)[0].strip("[]")
    try:
        addr = ipaddress.ip_address(host)
    except ValueError:
        return host
    if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
        return str(addr.ipv4_mapped)  # an IPv4 client of a dual-stack listener
    if addr.version == 6:
        return str(ipaddress.ip_network(f"{addr}/64", strict=False))
    return str(addr)


__all__ = ["PasscodeGuard", "chance_to_find", "lockout_after", "most_checked", "peer_key"]
