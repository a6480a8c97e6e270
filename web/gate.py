"""The web port's door: how many connections it holds, and an accept loop that survives
running out of descriptors.

Every connection counts against a total and against its address (an IPv6 client by its /64,
as the passcode guard counts them); beyond either it gets a short HTTP refusal (503 for the
total, 429 for the address) and is closed, so that one visitor cannot take every descriptor
the process has and everyone else is told why rather than left waiting. When ``accept``
fails for want of descriptors all the same (other ports, bots' pipes), the loop logs one line,
waits, longer each time up to a few seconds, and tries again: no busy loop, no log flood.
"""

from __future__ import annotations

import errno
import json
import resource
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import trio

from diplomat.server.faults import describe
from diplomat.server.guard import peer_key

PAUSE_FIRST = 0.1  # seconds before accept is tried again after EMFILE ...
PAUSE_MOST = 5.0  # ... doubling up to this
REFUSAL_LINGER = 0.5  # seconds a refused client has to read its answer
# One free-text message (press level 8000), in characters: a letter, not a book.
FREE_TEXT_MOST = 2000

Handler = Callable[[trio.SocketStream], Awaitable[None]]


class Bucket:
    """A token bucket: ``burst`` at once, then one per ``every`` seconds."""

    def __init__(self, burst: float, every: float) -> None:
        self.burst = float(burst)
        self.every = every
        self.allowance = self.burst
        self.when: float | None = None

    def take(self, now: float) -> float:
        """Take one: 0.0 if there was one, else the seconds until there is (nothing taken)."""
        if self.when is not None:
            self.allowance = min(self.burst, self.allowance + (now - self.when) / self.every)
        self.when = now
        if self.allowance < 1:
            return (1 - self.allowance) * self.every
        self.allowance -= 1
        return 0.0

    def full(self, now: float) -> bool:
        """Whether it has refilled (and so need not be remembered)."""
        return self.when is None or now - self.when >= self.every * self.burst


def default_max_connections() -> int:
    """A quarter of the descriptors the process may open (at most 512): the rest stay for
    the DAIDE port, bots' pipes and the database."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return 512
    return max(8, min(512, soft // 4))


def default_per_address(total: int) -> int:
    """Connections one address may hold: a browser's page keeps a WebSocket and up to six
    HTTP connections, and a person may have a few tabs open."""
    return max(1, min(32, total // 2))


def peer_of(stream: trio.SocketStream) -> str:
    try:
        return "{}:{}".format(*stream.socket.getpeername()[:2])
    except OSError:
        return "?"


def refusal_bytes(status: int, message: str) -> bytes:
    """A whole HTTP answer that closes the connection (written without h11: no request has
    been read)."""
    reason = {429: "Too Many Requests", 503: "Service Unavailable"}.get(status, "Refused")
    body = json.dumps({"error": message}).encode()
    head = (
        f"HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\n"
        f"content-length: {len(body)}\r\nretry-after: 10\r\nconnection: close\r\n\r\n"
    )
    return head.encode() + body


class ConnectionGate:
    """Counts the web port's open connections, in total and per address."""

    def __init__(self, total: int | None = None, per_address: int | None = None) -> None:
        self.total = total if total is not None else default_max_connections()
        self.per_address = (
            per_address if per_address is not None else default_per_address(self.total)
        )
        self.open = 0
        self.by_address: dict[str, int] = {}
        # Refusals being written at once: as many as the connections served, so that the web
        # port holds at most half the descriptors; beyond, a connection is just closed.
        self.refusing = 0
        self.refused = 0  # connections refused since the start (for logs and benches)

    def admit(self, peer: str) -> tuple[int, str] | None:
        """Count a new connection, or why it is refused: (HTTP status, message)."""
        key = peer_key(peer)
        if self.open >= self.total:
            return 503, (
                f"The server is serving {self.open} connections, the most it allows: "
                "try again in a moment."
            )
        if self.by_address.get(key, 0) >= self.per_address:
            return 429, (
                f"Your address has {self.per_address} connections open to this server, the "
                "most it allows: close some pages and try again."
            )
        self.open += 1
        self.by_address[key] = self.by_address.get(key, 0) + 1
        return None

    def release(self, peer: str) -> None:
        key = peer_key(peer)
        self.open -= 1
        left = self.by_address.get(key, 1) - 1
        if left > 0:
            self.by_address[key] = left
        else:
            self.by_address.pop(key, None)

    async def refuse(self, stream: trio.SocketStream, status: int, message: str) -> None:
        """Tell a refused client why, briefly, then close (beyond ``total`` refusals in
        flight, close at once: a flood must not hold descriptors in refusals either)."""
        self.refused += 1
        if self.refusing >= self.total:
            await trio.aclose_forcefully(stream)
            return
        self.refusing += 1
        try:
            with trio.move_on_after(REFUSAL_LINGER):
                await stream.send_all(refusal_bytes(status, message))
                await linger(stream)
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            pass
        finally:
            self.refusing -= 1
            await trio.aclose_forcefully(stream)


async def linger(stream: trio.SocketStream, most: int = 1 << 20) -> None:
    """After a last answer: end our side and read what the client still sends (up to
    ``most`` bytes), so that closing does not reset the connection before the client has
    read the answer (the caller bounds the time)."""
    await stream.send_eof()
    while most > 0 and (data := await stream.receive_some(65536)):
        most -= len(data)


async def serve_gated(
    listeners: Sequence[trio.SocketListener], handler: Handler, gate: ConnectionGate, log: Any
) -> None:
    """Accept on every listener forever; each connection runs ``handler`` once admitted by
    ``gate``, and whatever it raises is logged (one line) and ends only that connection."""

    async def one(stream: trio.SocketStream) -> None:
        peer = peer_of(stream)
        refused = gate.admit(peer)
        if refused is not None:
            await gate.refuse(stream, *refused)
            return
        try:
            await handler(stream)
        except Exception as exc:  # the boundary: one connection's fault ends only it
            log.error("web connection failed", peer=peer, **describe(exc))
        finally:
            gate.release(peer)
            await trio.aclose_forcefully(stream)

    async with trio.open_nursery() as nursery:
        for listener in listeners:
            nursery.start_soon(_accept_loop, listener, nursery, one, log)


async def _accept_loop(
    listener: trio.SocketListener, nursery: trio.Nursery, one: Handler, log: Any
) -> None:
    pause = 0.0
    async with listener:
        while True:
            try:
                stream = await listener.accept()
            except OSError as exc:
                if pause == 0.0:  # one line for the whole shortage, not one per attempt
                    log.error(
                        "web port cannot accept; retrying",
                        error=f"{errno.errorcode.get(exc.errno or 0, exc.errno)}: {exc.strerror}",
                    )
                pause = min(PAUSE_MOST, max(PAUSE_FIRST, pause * 2))
                await trio.sleep(pause)
                continue
            if pause:
                log.warning("web port accepting again")
                pause = 0.0
            nursery.start_soon(one, stream)


__all__ = [
    "Bucket",
    "ConnectionGate",
    "default_max_connections",
    "default_per_address",
    "linger",
    "peer_of",
    "refusal_bytes",
    "serve_gated",
]
