"""Passcode guesses: how many wrong IAMs a power and a peer address may cost before IAM waits.

DAIDE passcodes are small integers (the AiServer's are 1-8191), so a loop of fresh connections
could try them all in seconds. The server counts wrong guesses per power (across every
connection) and per peer address. After ``free`` wrong guesses a lockout starts: its delay is
``lockout`` seconds and doubles with each further wrong guess. While a peer address is locked
out, its IAMs are refused without being checked. While a power is locked out, IAMs for it are
refused without being checked unless they come from an address with no wrong guess on record:
the rightful player, who knows the passcode, gets back in at once even while someone else is
guessing, and an attacker gets one checked guess per fresh address at most. (IPv6 peers count
by their /64 network, which one machine usually owns whole.)

The clock is injected (``time.monotonic`` in service, a fake one in tests) so that minutes of
guessing can be simulated.
"""

from __future__ import annotations

import ipaddress
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, TypeVar

from server.settings import IAM_FREE_GUESSES, IAM_LOCKOUT

FORGET_AFTER = 24 * 3600.0  # seconds after which a quiet record is forgotten
K = TypeVar("K")


@dataclass
class _Record:
    misses: int = 0
    until: float = 0.0  # locked out until then
    last: float = 0.0


class PasscodeGuard:
    def __init__(
        self,
        *,
        free: int = IAM_FREE_GUESSES,
        lockout: float = IAM_LOCKOUT,
        clock: Callable[[], float] = time.monotonic,
        log: Any = None,
    ) -> None:
        self.free = free
        self.lockout = lockout
        self.clock = clock
        self.log = log
        self.powers: dict[tuple[int, str], _Record] = {}  # (game, power)
        self.peers: dict[str, _Record] = {}
        self.checked = 0  # guesses actually compared with a passcode (for tests and logs)

    def may_try(self, game: int, power: str, peer: str) -> bool:
        """Whether an IAM for ``power`` of ``game`` from ``peer`` may be checked now."""
        now = self.clock()
        who = self.peers.get(peer_key(peer))
        if who is not None and now < who.until:
            return False
        rec = self.powers.get((game, power))
        if rec is not None and now < rec.until:
            clean = who is None or who.misses == 0
            if not clean:
                return False
        self.checked += 1
        return True

    def failed(self, games: Iterable[int], power: str, peer: str) -> None:
        """A checked guess was wrong (for ``power`` in each of ``games``): one miss for the
        power in each game, one for the peer address."""
        now = self.clock()
        for game in games:
            record = self.powers.setdefault((game, power), _Record())
            self._miss(record, now, f"{power} of game {game}")
        self._miss(self.peers.setdefault(peer_key(peer), _Record()), now, f"peer {peer_key(peer)}")
        if len(self.peers) > 10_000:
            self._forget(now)

    def succeeded(self, game: int, power: str) -> None:
        self.powers.pop((game, power), None)

    def _miss(self, rec: _Record, now: float, what: str) -> None:
        rec.misses += 1
        rec.last = now
        over = rec.misses - self.free
        if over >= 0:
            delay = self.lockout * (2 ** min(over, 30))
            rec.until = now + delay
            if self.log is not None:
                self.log.warning(
                    "IAM lockout", target=what, wrong_guesses=rec.misses, seconds=delay
                )

    def _forget(self, now: float) -> None:
        _forget_quiet(self.peers, now)
        _forget_quiet(self.powers, now)


def _forget_quiet(table: dict[K, _Record], now: float) -> None:
    """Drop the records with no guess for :data:`FORGET_AFTER` seconds."""
    for key in [k for k, r in table.items() if now - r.last > FORGET_AFTER]:
        del table[key]


def peer_key(peer: str) -> str:
    """The address part of ``host:port`` (IPv6: its /64 network)."""
    host = peer.rsplit(":", 1)[0] if peer.count(":") == 1 else peer
    if peer.count(":") > 1:
        host = peer.rsplit(":", 1)[0].strip("[]")
    try:
        addr = ipaddress.ip_address(host)
    except ValueError:
        return host
    if addr.version == 6:
        return str(ipaddress.ip_network(f"{addr}/64", strict=False))
    return str(addr)


__all__ = ["PasscodeGuard", "peer_key"]
