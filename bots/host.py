"""The bot host: bundled bots that start in milliseconds.

A Python bot process spends ~0.4 s of CPU importing before it sends NME; in a game of seven
bundled bots that was most of the game. The host pays it once:
``python -m diplomat.bots.forkserver`` (the host's side, :mod:`bots.forkserver`) imports
every bundled bot, then forks one child per
seat it is asked for. This module is the asker's side. Each child is a separate
process playing one game as a DAIDE client (binary form) on its own end of a Unix socket pair
whose other end the asker serves as the bot's link, so a crash or hang of one bot touches
nothing else, exactly as with a subprocess bot.

The asker (:class:`BotHost`, in a trio program) and the host talk over a ``SOCK_SEQPACKET``
socket: one JSON request per packet, carrying the bot's socket as ``SCM_RIGHTS``; one JSON reply
(``{"pid": N}`` or ``{"error": "..."}``). The host exits when that socket closes, and with
``PR_SET_PDEATHSIG`` when its parent dies, so a ``kill -9`` of the asker leaves no host behind;
a child whose link closes (its server is gone) ends its game at once, and it too gets
``SIGKILL`` when the host goes.
"""

from __future__ import annotations

import array
import contextlib
import ctypes
import json
import signal
import socket
import subprocess
import sys
from collections.abc import Sequence
from typing import Any

import trio

PR_SET_PDEATHSIG = 1
MAX_PACKET = 1 << 16
MAX_FDS = 64  # bots per start request


class HostError(RuntimeError):
    """The host cannot start a bot (unknown bot, bad arguments, host gone)."""


def die_with_parent() -> None:
    """SIGKILL this process when its parent exits (Linux; elsewhere a no-op)."""
    with contextlib.suppress(Exception):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


# -- the asker's side --------------------------------------------------------------------------


class HostProcess:
    """A running host (``python -m diplomat.bots.forkserver``) and the socket to ask it on.
    Synchronous, so that one host can outlive several ``trio.run`` (a Ray worker plays game
    after game)."""

    def __init__(self) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "diplomat.bots.forkserver"],
                stdin=theirs.fileno(),
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,  # each bot writes to its own log
                close_fds=True,
            )
        finally:
            theirs.close()
        self.sock = ours

    @property
    def pid(self) -> int:
        return self.proc.pid

    def alive(self) -> bool:
        return self.proc.poll() is None

    def close(self) -> None:
        """Close the socket (the host exits; its children play on until their games end)."""
        self.sock.close()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


class BotHost:
    """Asks a :class:`HostProcess` for bots, from one trio run."""

    def __init__(self, process: HostProcess) -> None:
        self.process = process
        self._sock: trio.socket.SocketType | None = None
        self._lock: trio.Lock | None = None

    async def _ask(self, request: dict[str, Any], fds: Sequence[int] = ()) -> dict[str, Any]:
        if self._sock is None or self._lock is None:
            self._sock = trio.socket.from_stdlib_socket(self.process.sock.dup())
            self._lock = trio.Lock()
        data = json.dumps(request).encode()
        ancillary = []
        if fds:
            ancillary.append((socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", list(fds))))
        async with self._lock:
            # One request, one reply: a cancellation in between would pair the next request
            # with this reply, so the exchange is shielded (the host answers in milliseconds).
            with trio.CancelScope(shield=True):
                try:
                    await self._sock.sendmsg([data], ancillary)
                    reply = await self._sock.recv(MAX_PACKET)
                except OSError as exc:
                    raise HostError(f"the bot host is gone ({exc})") from None
        if not reply:
            raise HostError("the bot host is gone")
        answer: dict[str, Any] = json.loads(reply)
        if "error" in answer:
            raise HostError(answer["error"])
        return answer

    async def check(self, name: str, argv: list[str]) -> None:
        """Raise :class:`HostError` if bot ``name`` does not take these arguments."""
        await self._ask({"op": "check", "bot": name, "argv": argv})

    async def start(
        self, name: str, argv: list[str], log: str | None = None
    ) -> tuple[trio.SocketStream, int]:
        """Fork bundled bot ``name`` with command-line ``argv`` (``--seed 7`` ...); its
        stdout and stderr go to the file ``log`` (appended) or nowhere. Returns the server's
        end of the bot's link and the bot's pid."""
        ((stream, pid),) = await self.start_many([(name, argv, log)])
        return stream, pid

    async def start_many(
        self, bots: list[tuple[str, list[str], str | None]]
    ) -> list[tuple[trio.SocketStream, int]]:
        """:meth:`start` for several bots in one request (one round trip)."""
        pairs = [socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM) for _ in bots]
        try:
            answer = await self._ask(
                {
                    "op": "start",
                    "bots": [{"bot": n, "argv": a, "log": g} for n, a, g in bots],
                },
                [theirs.fileno() for _, theirs in pairs],
            )
        except BaseException:
            for ours, _ in pairs:
                ours.close()
            raise
        finally:
            for _, theirs in pairs:
                theirs.close()
        return [
            (trio.SocketStream(trio.socket.from_stdlib_socket(ours)), int(pid))
            for (ours, _), pid in zip(pairs, answer["pids"], strict=True)
        ]

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None
