"""Raw clients for fuzzing the web port: HTTP requests as bytes (whole, truncated, or ended by
a TCP reset) and WebSocket sessions whose frames are written by hand, over plain blocking
sockets, so that nothing between the fuzzer and the server tidies the input. The suite's
fuzzer (``test_web_fuzz.py``) and ``bench/fuzz_web.py`` share them.
"""

from __future__ import annotations

import contextlib
import json
import socket
import struct
from dataclasses import dataclass, field
from typing import Any, Literal

import wsproto
import wsproto.events as wse
from wsproto.frame_protocol import Opcode

Close = Literal["half", "reset", "abrupt"]
READ_LIMIT = 30.0  # seconds: an outer limit on waiting for an answer, never a pacing
ROUTES = ["/", "/game/1", "/static/app.js", "/static/style.css", "/api/options", "/api/games",
          "/ws", "/api/", "/static/", "/nothing"]  # fmt: skip
METHODS = ["GET", "POST", "HEAD", "PUT", "DELETE", "OPTIONS", "PATCH"]
PAGE_KINDS = ["hello", "history", "start", "click", "select", "clear", "choose", "order", "ready",
              "press", "draw", "talk"]  # fmt: skip
PRESS_OPS = ["to", "add", "pick", "done", "abort", "drop", "send", "reply", "cancel"]


def request_bytes(
    method: str,
    path: str,
    port: int,
    body: bytes = b"",
    headers: dict[str, str] | None = None,
    *,
    host: str | None = None,
    length: int | None = None,
) -> bytes:
    """An HTTP/1.1 request; ``length`` overrides the Content-Length (a lie, to fuzz)."""
    head = {"Host": host if host is not None else f"127.0.0.1:{port}", **(headers or {})}
    if body or method == "POST":
        head.setdefault("Content-Type", "application/json")
        head["Content-Length"] = str(len(body) if length is None else length)
    lines = "".join(f"{k}: {v}\r\n" for k, v in head.items())
    return f"{method} {path} HTTP/1.1\r\n{lines}\r\n".encode("latin-1", "replace") + body


def _abort(sock: socket.socket) -> None:
    """Close with a TCP reset (SO_LINGER 0): the abortive close."""
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()


def exchange(port: int, data: bytes, close: Close = "half") -> bytes | None:
    """Send ``data`` on a new connection. ``half``: end the sending side and read the answer
    to the end (returned); ``reset``: close at once with a reset; ``abrupt``: close at once.
    None when nothing was read."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=READ_LIMIT)
    try:
        # (It may fail: the server answered and closed before reading everything.)
        with contextlib.suppress(OSError):
            sock.sendall(data)
        if close == "reset":
            _abort(sock)
            return None
        if close == "abrupt":
            sock.close()
            return None
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_WR)
        got = b""
        try:
            while chunk := sock.recv(65536):
                got += chunk
        except ConnectionResetError:
            pass
        return got
    finally:
        sock.close()


def status_of(answer: bytes | None) -> int | None:
    """The status code of an HTTP answer, or None if there is none."""
    if not answer or not answer.startswith(b"HTTP/1.1 "):
        return None
    try:
        return int(answer[9:12])
    except ValueError:
        return None


def http_json(port: int, method: str, path: str, body: Any = None) -> tuple[int, Any]:
    """A well-formed request and its JSON answer."""
    data = json.dumps(body).encode() if body is not None else b""
    answer = exchange(port, request_bytes(method, path, port, data)) or b""
    _, _, payload = answer.partition(b"\r\n\r\n")
    status = status_of(answer)
    assert status is not None, answer[:200]
    return status, json.loads(payload) if payload else None


@dataclass
class RawSocket:
    """A WebSocket client over a blocking socket: frames are sent as given (wsproto masks
    the well-formed ones; ``raw`` sends any bytes at all)."""

    port: int
    sock: socket.socket = field(init=False)
    conn: wsproto.WSConnection = field(init=False)
    buffered: list[wse.Event] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.sock = socket.create_connection(("127.0.0.1", self.port), timeout=READ_LIMIT)
        self.conn = wsproto.WSConnection(wsproto.ConnectionType.CLIENT)
        self.sock.sendall(self.conn.send(wse.Request(host=f"127.0.0.1:{self.port}", target="/ws")))
        while True:
            data = self.sock.recv(65536)
            if not data:
                raise ConnectionError("the server closed the WebSocket handshake")
            self.conn.receive_data(data)
            for event in self.conn.events():
                if isinstance(event, wse.AcceptConnection):
                    return
                if isinstance(event, wse.RejectConnection):
                    raise ConnectionError(f"upgrade refused: {event.status_code}")
                self.buffered.append(event)

    def send_text(self, text: str) -> None:
        self.sock.sendall(self.conn.send(wse.Message(data=text)))

    def send_json(self, **msg: Any) -> None:
        self.send_text(json.dumps(msg))

    def raw(self, data: bytes) -> None:
        self.sock.sendall(data)

    def receive(self) -> dict[str, Any] | None:
        """The next JSON message from the server, or None once it has closed."""
        parts: list[str] = []
        while True:
            for event in self.conn.events():
                if isinstance(event, wse.TextMessage):
                    parts.append(event.data)
                    if event.message_finished:
                        data: dict[str, Any] = json.loads("".join(parts))
                        return data
                elif isinstance(event, wse.CloseConnection):
                    return None
            try:
                data_in = self.sock.recv(65536)
            except (ConnectionResetError, TimeoutError):
                return None
            if not data_in:
                return None
            self.conn.receive_data(data_in)

    def close(self, how: Close = "half") -> None:
        if how == "reset":
            _abort(self.sock)
            return
        if how == "half":
            with contextlib.suppress(OSError, wsproto.utilities.LocalProtocolError):
                self.sock.sendall(self.conn.send(wse.CloseConnection(code=1000)))
        self.sock.close()


def masked_frame(opcode: int, payload: bytes, fin: bool = True, rsv: int = 0) -> bytes:
    """A client frame built by hand: any opcode, reserved bits, fragments (mask of zeros,
    which leaves the payload as it is)."""
    first = (0x80 if fin else 0) | (rsv & 0x7) << 4 | (opcode & 0xF)
    n = len(payload)
    if n < 126:
        head = struct.pack("!BB", first, 0x80 | n)
    elif n < 1 << 16:
        head = struct.pack("!BBH", first, 0x80 | 126, n)
    else:
        head = struct.pack("!BBQ", first, 0x80 | 127, n)
    return head + b"\0\0\0\0" + payload


OPCODES = [int(o) for o in Opcode] + [3, 4, 5, 6, 7, 11, 12, 13, 14, 15]


def page_game(port: int, **spec: Any) -> dict[str, Any]:
    """A web game against HoldBots without deadlines (the person's Ready ends each phase)."""
    body = {"power": "FRA", "opponents": ["holdbot"] * 6, "move_time": None, **spec}
    status, data = http_json(port, "POST", "/api/games", body)
    assert status == 201, data
    return dict(data)


def play_a_phase(port: int, game: dict[str, Any]) -> tuple[str, str]:
    """Open the game's page, say Ready, and wait for the next phase: (before, after)."""
    ws = RawSocket(port)
    try:
        ws.send_json(t="hello", game=game["game"], token=game["token"])
        first = None
        while True:
            msg = ws.receive()
            assert msg is not None, "the page was closed"
            if msg.get("t") != "view" or msg.get("stage") != "playing":
                continue
            if first is None:
                first = msg["phase"]
                ws.send_json(t="ready", on=True, phase=first)
            elif msg["phase"] != first:
                return first, msg["phase"]
    finally:
        ws.close()


__all__ = [
    "METHODS",
    "OPCODES",
    "PAGE_KINDS",
    "PRESS_OPS",
    "ROUTES",
    "RawSocket",
    "exchange",
    "http_json",
    "masked_frame",
    "page_game",
    "play_a_phase",
    "request_bytes",
    "status_of",
]
