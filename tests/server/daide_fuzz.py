"""Fuzzed input for the DAIDE port, and a real server to send it to (the suite's fuzz test and
``bench/fuzz_daide.py`` share both).

:func:`fuzz_input` draws one input from a ``random.Random`` (hypothesis passes one it controls,
so its examples shrink; the bench passes a seeded one): deep, huge, non-finite, malformed or
valid-but-hostile DAIDE, in the text form or binary frames, sometimes cut off part-way and closed
with a TCP reset. :func:`exchange` sends inputs on one connection each, all at once, and reports
how the server answered. :class:`ServerThread` runs a real :class:`~server.app.Server` on
127.0.0.1 port 0 in a thread of its own, with a well-behaved player in a game of its own that
keeps playing (its phases are counted), so a test can ask whether the server still serves
and the game still plays.
"""

from __future__ import annotations

import contextlib
import random
import selectors
import socket
import struct
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trio

from diplomat.engine.orders import Disband, Hold, Waive
from diplomat.engine.state import Dislodged, Phase, Unit
from diplomat.protocol import messages
from diplomat.protocol.atoms import EncodeError, payload_from_atoms
from diplomat.protocol.codec import codec_for
from diplomat.protocol.connection import ClientConnection, Received, Unparsed
from diplomat.protocol.frames import dm_frame, frame, im_frame
from diplomat.protocol.lines import TextConnection
from diplomat.protocol.tokens import STANDARD, STANDARD_POWERS, STANDARD_PROVINCES, is_reserved
from diplomat.server.app import Server
from diplomat.server.settings import GameSettings
from diplomat.server.store import Store

CODEC = codec_for(STANDARD)
POWERS = [n for n, _ in STANDARD_POWERS]
PROVINCES = [n for n, _ in STANDARD_PROVINCES]
# Words a message may be made of: every mnemonic the parser knows, powers and provinces.
WORDS = sorted(n for n in STANDARD.value_of if n.isalpha() and n.isupper() and len(n) == 3)
PRESS_HEADS = ["PRP", "NOT", "NAR", "CCL", "FCT", "INS", "QRY", "SUG", "THK", "IDK", "YES", "REJ"]
ARRANGEMENTS = [
    "PCE (FRA ENG)",
    "ALY (FRA ENG) VSS (GER)",
    "DRW",
    "SLO (FRA)",
    "XDO ((ENG FLT LON) MTO NTH)",
    "DMZ (FRA GER) (BUR)",
    "SCD (FRA PAR MAR) (ENG LON)",
    "OCC (ENG UNT BEL)",
    "XOY (FRA) (ENG)",
    "ROF",
]
HOSTILE = [
    "NME ('{name}') ('v')",
    "NME ('FRA:{name}') ('1')",
    "OBS",
    "IAM ({power}) ({n})",
    "MAP",
    "MDF",
    "HLO",
    "NOW",
    "SCO",
    "HST (SPR {year})",
    "ORD",
    "TME",
    "TME ({n})",
    "NOT (TME ({n}))",
    "GOF",
    "NOT (GOF)",
    "NOT (NOT (GOF))",
    "DRW",
    "DRW ({power} {power})",
    "NOT (DRW)",
    "MIS",
    "SUB (({power} AMY {prov}) MTO {prov})",
    "SUB (({power} FLT {prov}) SUP ({power} AMY {prov}) MTO {prov})",
    "NOT (SUB)",
    "SND ({power}) ('{name}')",
    "SND ({power} {power}) (PRP ({arr}))",
    "SND (SPR {year}) ({power}) (PRP ({arr}))",
    "SND ({power}) (FRM ({power}) ({power}) (PRP ({arr})))",
    "SND ({power}) (TRY (PRP PCE ALY VSS {word}))",
    "ADM ('{name}') ('{name}')",
    "SVE ('{name}')",
    "LOD ('{name}')",
    "YES (MAP ('{name}'))",
    "REJ (MAP ('standard'))",
    "YES (SVE ('{name}'))",
    "HUH (ERR {word})",
    "PRN ({word}",
    "OFF",
    "SMR",
    "CCD ({power})",
]
TOKENS = sorted(v for v in set(STANDARD.value_of.values()) if not is_reserved(v))
SENTINEL_YEAR = 1066
NON_FINITE = ["1e999", "-1e999", "inf", "nan", "-nan", "1e-999", "0.0", "99999999999999999999"]


@dataclass(frozen=True)
class Input:
    """One connection's input: its bytes, the wire form, and whether it is cut off and closed
    with a reset (no answer expected)."""

    kinds: list[str]
    messages: int  # how many messages (the way in included) its data holds
    data: bytes
    binary: bool
    abortive: bool


def _word(rng: random.Random) -> str:
    return rng.choice(WORDS)


def _fill(rng: random.Random, template: str) -> str:
    return template.format(
        name=rng.choice(["", "x", "bot", "a b", "it's", "é", "\\t", "_" * rng.randint(1, 300)]),
        power=rng.choice(POWERS),
        prov=rng.choice(PROVINCES),
        n=rng.choice([0, 1, -1, 8191, 8192, -8193, 60, rng.randint(-99999, 99999)]),
        year=rng.choice([1900, 1901, 1999, 8191, -1, rng.randint(SENTINEL_YEAR + 1, 9000)]),
        arr=rng.choice(ARRANGEMENTS),
        word=_word(rng),
    )


def _deep(rng: random.Random) -> str:
    depth = rng.choice([rng.randint(30, 80), rng.randint(80, 600), rng.randint(600, 6000)])
    head = rng.choice(["SND (FRA) (PRP (", "PRP (", "SND (ENG) (", "NOT (", "("])
    inner = "".join(f"{rng.choice(PRESS_HEADS)} (" for _ in range(depth))
    tail = ")" * (depth + head.count("(") - rng.choice([0, 0, 0, 1, -1]))
    return head + inner + rng.choice(ARRANGEMENTS) + tail


def _huge(rng: random.Random) -> str:
    size = rng.choice([4_000, 20_000, 42_000, 70_000])
    shape = rng.randrange(4)
    if shape == 0:  # a multipart proposal of thousands of parts
        part = f"({rng.choice(ARRANGEMENTS)}) "
        return f"SND (FRA) (PRP (AND {part * (size // len(part))}))"
    if shape == 1:  # one enormous string
        return f"SND (FRA) ('{'x' * size}')"
    if shape == 2:  # a SUB of thousands of orders
        order = f"(({rng.choice(POWERS)} AMY {rng.choice(PROVINCES)}) HLD) "
        return "SUB " + order * (size // len(order))
    return " ".join(_word(rng) for _ in range(size // 4))  # token soup


def _non_finite(rng: random.Random) -> str:
    x = rng.choice(NON_FINITE)
    return rng.choice(
        [
            f"SND (FRA) (PRP (ULB (FRA {x})))",
            f"SND (FRA) (PRP (UUB (ENG {x})))",
            f"TME ({x})",
            f"HST (SPR {x})",
            f"IAM (FRA) ({x})",
            f"SUB (SPR {x}) ((FRA AMY PAR) HLD)",
        ]
    )


def _malformed_text(rng: random.Random) -> str:
    shape = rng.randrange(4)
    if shape == 0:
        return " ".join(rng.choice([*WORDS[:40], "(", ")", "'", "x", "-1"]) for _ in range(30))
    if shape == 1:  # unbalanced
        return rng.choice(["(" * rng.randint(1, 50), ")" * rng.randint(1, 50), "SND ((FRA) (PRP"])
    if shape == 2:  # bytes that are not UTF-8, control characters
        return (
            bytes(rng.randrange(1, 256) for _ in range(rng.randint(1, 200)))
            .decode("latin-1")
            .replace("\n", " ")
        )
    return "'" + "x" * rng.randint(0, 50)  # a string never closed


def _hostile(rng: random.Random) -> str:
    return _fill(rng, rng.choice(HOSTILE))


# Each kind of message and how to draw one.
KINDS: dict[str, Callable[[random.Random], str]] = {
    "deep": _deep,
    "huge": _huge,
    "non-finite": _non_finite,
    "malformed": _malformed_text,
    "hostile": _hostile,
}
SUITE_MIX = {"deep": 1, "huge": 1, "non-finite": 1, "malformed": 1, "hostile": 2}


def _binary_frames(rng: random.Random, text: str) -> bytes:
    """``text`` as a DM, or (when it has no binary spelling) a DM of random tokens: mostly
    tokens of the map, now and then a reserved one (EM 0x0E)."""
    try:
        return dm_frame(payload_from_atoms(CODEC.text_atoms(text)))
    except (EncodeError, struct.error, ValueError):
        n = rng.randint(1, 2000)
        known = TOKENS if rng.random() < 0.98 else list(range(0x10000))
        return dm_frame(struct.pack(f">{n}H", *(rng.choice(known) for _ in range(n))))


def _bad_frame(rng: random.Random) -> bytes:
    """Frames that break the binary protocol: unknown types, odd or huge lengths, a second IM,
    an RM or EM from the client, a reserved token."""
    ftype = rng.choice([0, 1, 2, 2, 3, 4, 5, 255])
    payload = bytes(rng.randrange(256) for _ in range(rng.choice([0, 1, 2, 3, 7, 64])))
    if rng.random() < 0.3:  # a header that promises more than comes
        return struct.pack(">BxH", ftype, rng.randint(len(payload) + 1, 0xFFFF)) + payload
    if rng.random() < 0.3:
        return dm_frame(struct.pack(">H", rng.randrange(0x5800, 0x6000)))
    return frame(ftype, payload)


def fuzz_input(
    rng: random.Random, count: tuple[int, int] = (1, 4), mix: dict[str, int] = SUITE_MIX
) -> Input:
    """One connection's input: a way in (nothing, OBS or NME), then ``count`` (at least, at
    most) fuzzed messages of the kinds in ``mix`` (by weight); cut off and reset one time in
    five."""
    binary = rng.random() < 0.5
    lead = rng.choice(["", "OBS", "OBS", "NME ('fuzz') ('1')"])
    texts: list[str] = [lead] if lead else []
    names, weights = list(mix), list(mix.values())
    kinds = []
    for kind in rng.choices(names, weights, k=rng.randint(*count)):
        kinds.append(kind)
        texts.append(KINDS[kind](rng))
    if binary:
        data = im_frame() + b"".join(_binary_frames(rng, t) for t in texts)
        if rng.random() < 0.15:
            kinds.append("bad frame")
            data += _bad_frame(rng)
    else:
        data = b"".join(t.encode("utf-8", "surrogateescape") + b"\n" for t in texts)
    abortive = rng.random() < 0.2
    if abortive:
        data = data[: rng.randint(0, len(data))]
    return Input(kinds, len(texts), data, binary, abortive)


# -- sending ---------------------------------------------------------------------------------

# Sent after each input: answered REJ (HST (SPR 1066)) in a game or out of one (no game has that
# turn, and the fuzzed input never asks for it), so its answer means "all read, and alive".
SENTINEL = messages.Hst(Phase("SPR", SENTINEL_YEAR))
SENTINEL_ANSWER = messages.Rej(SENTINEL)


@dataclass
class Outcome:
    """How the server answered one connection: the kinds of message it sent (HUH, REJ, ...),
    whether the sentinel's answer came, and how the connection ended."""

    answers: dict[str, int] = field(default_factory=dict)
    sentinel: bool = False
    closed_by_server: bool = False
    em: int | None = None
    abortive: bool = False

    @property
    def answered(self) -> bool:
        """The server answered it all (the sentinel), or closed it itself."""
        return self.abortive or self.sentinel or self.closed_by_server


class _Reader:
    def __init__(self, inp: Input) -> None:
        self.conn: ClientConnection | TextConnection = (
            ClientConnection() if inp.binary else TextConnection(STANDARD)
        )
        self.outcome = Outcome(abortive=inp.abortive)

    def feed(self, data: bytes) -> None:
        if not data:
            self.outcome.closed_by_server = True
            return
        for ev in self.conn.receive_bytes(data):
            if isinstance(ev, Received):
                name = type(ev.message).__name__.upper()
                self.outcome.answers[name] = self.outcome.answers.get(name, 0) + 1
                if ev.message == SENTINEL_ANSWER:
                    self.outcome.sentinel = True
            elif isinstance(ev, Unparsed):
                self.outcome.answers["UNPARSED"] = self.outcome.answers.get("UNPARSED", 0) + 1
            elif type(ev).__name__ == "Closed":
                self.outcome.em = getattr(ev, "error", None)
                self.outcome.closed_by_server = True


def sentinel(binary: bool) -> bytes:
    """The sentinel request in a wire form."""
    if binary:
        return dm_frame(CODEC.payload(SENTINEL))
    return (CODEC.text(SENTINEL) + "\n").encode()


def exchange(
    port: int, inputs: list[Input], patience: float, source: str = "127.0.0.1"
) -> list[Outcome]:
    """Send each input on a connection of its own, all at once (then the sentinel, unless it
    is abortive: then a reset), and read until each is answered or closed, or ``patience``
    seconds have passed."""
    sel = selectors.DefaultSelector()
    readers: list[_Reader] = []
    try:
        for inp in inputs:
            sock = socket.create_connection(("127.0.0.1", port), source_address=(source, 0))
            reader = _Reader(inp)
            readers.append(reader)
            if inp.abortive:
                with contextlib.suppress(OSError):
                    sock.sendall(inp.data)
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                sock.close()
                continue
            with contextlib.suppress(OSError):  # (the server may close it before all is sent)
                sock.sendall(inp.data + sentinel(inp.binary))
            sock.setblocking(False)
            sel.register(sock, selectors.EVENT_READ, reader)
        end = time.monotonic() + patience
        while sel.get_map() and time.monotonic() < end:
            for key, _ in sel.select(timeout=0.5):
                reader = key.data
                try:
                    data = key.fileobj.recv(65536)  # type: ignore[union-attr]
                except BlockingIOError:
                    continue
                except OSError:
                    data = b""
                reader.feed(data)
                if reader.outcome.answered:
                    sel.unregister(key.fileobj)
                    key.fileobj.close()  # type: ignore[union-attr]
    finally:
        for key in list(sel.get_map().values()):
            key.fileobj.close()  # type: ignore[union-attr]
        sel.close()
    return [r.outcome for r in readers]


# -- a real server, and a game that keeps playing -------------------------------------------


class ServerThread:
    """A real server on 127.0.0.1 port 0, in a thread with its own trio loop, and a player
    that plays one power of a started game (the six others in civil disorder) phase after
    phase: :attr:`phases` counts the phases it has been asked for."""

    def __init__(self, db: Path, **server_options: Any) -> None:
        self.db = db
        self.options = server_options
        self.port = 0
        self.phases = 0
        self.server: Server | None = None
        self.error: BaseException | None = None
        self._ready = threading.Event()
        self._token: trio.lowlevel.TrioToken | None = None
        self._cancel: trio.CancelScope | None = None
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> ServerThread:
        self._thread.start()
        if not self._ready.wait(120) or self.error is not None:
            raise RuntimeError(f"the server did not start: {self.error!r}")
        return self

    def __exit__(self, *exc: object) -> None:
        if self._token is not None and self._cancel is not None:
            with contextlib.suppress(trio.RunFinishedError):
                trio.from_thread.run_sync(self._cancel.cancel, trio_token=self._token)
        self._thread.join(30)

    @property
    def alive(self) -> bool:
        return self._thread.is_alive() and self.error is None

    def wait_for_phases(self, n: int, patience: float) -> bool:
        """Wait until the player has been asked for ``n`` more phases (False after
        ``patience`` seconds without)."""
        goal = self.phases + n
        end = time.monotonic() + patience
        while self.phases < goal and time.monotonic() < end and self.alive:
            time.sleep(0.01)
        return self.phases >= goal

    def call(self, fn: Callable[[], Any]) -> Any:
        """Run ``fn`` in the server's thread (to read its state safely)."""
        assert self._token is not None
        return trio.from_thread.run_sync(fn, trio_token=self._token)

    def _run(self) -> None:
        try:
            trio.run(self._main)
        except BaseException as exc:  # reported to the test through .error / .alive
            self.error = exc
            self._ready.set()

    async def _main(self) -> None:
        self._token = trio.lowlevel.current_trio_token()
        store = Store(self.db)
        try:
            with trio.CancelScope() as cancel:
                self._cancel = cancel
                async with trio.open_nursery() as nursery:
                    settings = GameSettings(
                        level=8000, map="standard"
                    )  # (no end: it plays as long as we look)
                    server = Server(store, settings, port=0, seed=1, **self.options)
                    self.server = server
                    await nursery.start(server.run)
                    self.port = server.address[1]
                    await self._player(nursery, server)
                    self._ready.set()
        finally:
            store.close()

    async def _player(self, nursery: trio.Nursery, server: Server) -> None:
        """Join the open game, start it with the six other seats in civil disorder, and play
        in the background (holds; disbands; waives or removals)."""
        from .daide_client import WireClient

        client = await WireClient.connect(self.port, text=False)
        await client.join("steady")
        runner = server.open_game
        assert runner is not None
        while None not in runner.joined():  # its YES (MAP) is on its way to the game
            await trio.sleep(0.01)
        runner.start_without([(p, None) for p in POWERS if p != "FRA"])
        nursery.start_soon(self._play, client)

    async def _play(self, client: Any) -> None:
        while True:
            msg = await client.expect(messages.Now)
            self.phases += 1
            orders = _steady_orders(msg)
            await client.send(messages.Sub(tuple(orders)) if orders else messages.Gof())
            await trio.sleep(0.05)  # a steady player, not a flood


def _steady_orders(now: messages.Now) -> list[Any]:
    assert now.turn is not None
    ours = [u for u in now.units if (u.unit if isinstance(u, Dislodged) else u).power == "FRA"]
    if now.turn.kind == "movement":
        return [Hold(u) for u in ours if isinstance(u, Unit)]
    if now.turn.kind == "retreat":
        return [Disband(u.unit) for u in ours if isinstance(u, Dislodged)]
    return [Waive("FRA")]
