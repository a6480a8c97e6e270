"""HTTP and WebSocket for the browser on one port, over trio streams.

h11 reads requests and writes responses, wsproto speaks WebSocket: both are sans-I/O state
machines, as the DAIDE side is, so this module is only the thin loop that moves bytes between
a socket and them. It serves the page's static files, a small JSON API, and upgrades ``/ws`` to
a WebSocket that it hands to the hub.
"""

from __future__ import annotations

import contextlib
import ipaddress
import json
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import h11
import trio
import wsproto
import wsproto.events as wse
from wsproto.utilities import LocalProtocolError as WsLocalError
from wsproto.utilities import RemoteProtocolError as WsRemoteError

from diplomat.server.faults import describe
from diplomat.server.logs import get_logger
from diplomat.web.gate import linger, peer_of
from diplomat.web.payloads import MAX_JSON, read_json

STATIC = Path(__file__).parent / "static"
_log = get_logger(web=True)
READ_SIZE = 65536
MAX_BODY = MAX_JSON
MAX_MESSAGE = MAX_JSON  # a page's requests are a few hundred bytes
BROKEN = (trio.BrokenResourceError, trio.ClosedResourceError, OSError)
LINGER = 2.0  # seconds a client refused mid-request has to read why
IDLE_TIMEOUT = 120.0  # seconds an HTTP connection may sit between requests
CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".json": "application/json",
}
# Everything the page uses comes from this server; inline styles are the map's own <style>.
SECURITY_HEADERS = [
    (
        b"content-security-policy",
        b"default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
        b"connect-src 'self'; frame-ancestors 'none'",
    ),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
]


@dataclass(frozen=True)
class Request:
    method: str
    path: str
    query: dict[str, str]
    body: bytes
    peer: str
    headers: dict[str, str] = field(default_factory=dict)  # lower-case names

    def json(self) -> Any:
        """The body as JSON, bounded (see :func:`web.payloads.read_json`)."""
        return read_json(self.body) if self.body else {}


@dataclass(frozen=True)
class Response:
    status: int
    body: bytes
    content_type: str = "application/json"
    headers: tuple[tuple[bytes, bytes], ...] = ()

    @classmethod
    def of_json(cls, data: Any, status: int = 200) -> Response:
        return cls(status, json.dumps(data).encode("utf-8"))

    @classmethod
    def error(cls, status: int, message: str) -> Response:
        return cls.of_json({"error": message}, status)


Api = Callable[[Request], Awaitable[Response]]
OnSocket = Callable[["WebSocket", Request], Awaitable[None]]


class WebSocket:
    """One WebSocket, text messages only. ``receive`` and ``send`` may run in different
    tasks; writes are serialised because a trio stream allows one sender at a time."""

    def __init__(self, stream: trio.abc.Stream, conn: wsproto.WSConnection, peer: str) -> None:
        self.stream = stream
        self.conn = conn
        self.peer = peer
        self.closed = False
        self._inbox: deque[str] = deque()
        self._parts: list[str] = []
        self._size = 0
        self._lock = trio.Lock()

    async def _write(self, data: bytes) -> None:
        if not data:
            return
        async with self._lock:
            try:
                await self.stream.send_all(data)
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                self.closed = True

    async def send(self, text: str) -> None:
        if self.closed:
            return
        try:
            data = self.conn.send(wse.Message(data=text))
        except WsLocalError:
            self.closed = True
            return
        await self._write(data)

    async def receive(self) -> str | None:
        """The next text message, or None once the socket is closed."""
        while not self._inbox:
            if self.closed:
                return None
            try:
                data = await self.stream.receive_some(READ_SIZE)
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                data = b""
            try:
                self.conn.receive_data(bytes(data) or None)
                await self._events()
            except WsRemoteError:
                await self.close(1002)
            if not data:
                self.closed = True
        return self._inbox.popleft()

    async def _events(self) -> None:
        for event in self.conn.events():
            if isinstance(event, wse.TextMessage):
                self._parts.append(event.data)
                self._size += len(event.data)
                if self._size > MAX_MESSAGE:
                    await self.close(1009)
                    return
                if event.message_finished:
                    self._inbox.append("".join(self._parts))
                    self._parts, self._size = [], 0
            elif isinstance(event, wse.Ping):
                await self._write(self.conn.send(event.response()))
            elif isinstance(event, wse.CloseConnection):
                with contextlib.suppress(WsLocalError):
                    await self._write(self.conn.send(event.response()))
                self.closed = True
                with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
                    await self.stream.aclose()

    async def close(self, code: int = 1000) -> None:
        if self.closed:
            return
        with contextlib.suppress(WsLocalError):
            await self._write(self.conn.send(wse.CloseConnection(code=code)))
        self.closed = True
        with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            await self.stream.aclose()


def static_file(path: str) -> Response:
    """A file of ``static/``; the page itself for ``/``, ``/game/N``, ``/games`` (the server's
    games) and ``/watch/N`` (a spectator's)."""
    if path in ("/", "/games") or path.startswith(("/game/", "/watch/")):
        name = "index.html"
    elif path.startswith("/static/"):
        name = path[len("/static/") :]
    else:
        return Response.error(404, "not found")
    try:
        target = (STATIC / name).resolve()
        if STATIC.resolve() not in target.parents or not target.is_file():
            return Response.error(404, "not found")
    except (OSError, ValueError):  # a name too long, a NUL in it: no such file either
        return Response.error(404, "not found")
    kind = CONTENT_TYPES.get(target.suffix, "application/octet-stream")
    # The page is small and changes with the server: always revalidate.
    return Response(200, target.read_bytes(), kind, ((b"cache-control", b"no-cache"),))


def refusal(req: Request, hosts: frozenset[str] = frozenset()) -> Response | None:
    """Why a request must be refused before it reaches the page's API, or None.

    - ``Host`` must name this server: an IP address, ``localhost``, or one of ``hosts``
      (the names it was told it answers to). A page reached through another DNS name is a
      DNS-rebinding attack: another site's name made to point at this machine.
    - A request that changes anything (POST) or opens a WebSocket, if it carries an
      ``Origin`` (every browser sends one), must come from this page's own origin
      (``http://`` and the ``Host``): any web site the user visits could send it otherwise.
    - A POST must be ``Content-Type: application/json``: a cross-site form or a "simple"
      request cannot send that type without the browser asking first.
    """
    host = req.headers.get("host", "")
    if not host:
        return Response.error(400, "a Host header is required")
    if not host_allowed(host, hosts):
        return Response.error(403, f"this server does not answer to the name {host!r}")
    changes = req.method not in ("GET", "HEAD") or is_websocket(req)
    origin = req.headers.get("origin")
    # (https: the page behind a reverse proxy that ends TLS and passes the Host on.)
    same = (f"http://{host}".lower(), f"https://{host}".lower())
    if changes and origin is not None and origin.lower() not in same:
        return Response.error(403, f"requests from {origin} are not accepted here")
    if req.method == "POST":
        kind = req.headers.get("content-type", "").split(";")[0].strip().lower()
        if kind != "application/json":
            return Response.error(415, "send the request as application/json")
    return None


def host_allowed(host: str, names: frozenset[str] = frozenset()) -> bool:
    """Whether a ``Host`` header names this server (see :func:`refusal`)."""
    name = host.strip().lower()
    if name.startswith("["):  # [v6]:port
        name = name[1:].partition("]")[0]
    elif name.count(":") == 1:
        name = name.partition(":")[0]
    if not name:
        return False
    if name == "localhost" or name in names:
        return True
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def is_websocket(req: Request) -> bool:
    return req.headers.get("upgrade", "").lower() == "websocket"


async def serve_http(
    stream: trio.SocketStream,
    api: Api,
    on_socket: OnSocket,
    *,
    idle: float = IDLE_TIMEOUT,
    hosts: frozenset[str] = frozenset(),
    through: Callable[[Request], Request] | None = None,
) -> None:
    """One HTTP connection: requests until it closes, or a WebSocket. Requests that
    :func:`refusal` refuses get its answer (and a refused WebSocket is never opened).
    ``through``: the request as from the visitor behind a trusted proxy (web.proxy)."""
    peer = peer_of(stream)
    conn = h11.Connection(h11.SERVER)
    methods: list[bytes] = []  # of the requests read: a HEAD's error answer has no body
    try:
        while True:
            request = await _read_request(stream, conn, idle, peer, methods)
            if request is None:
                return
            head, req = request
            if through is not None:
                req = through(req)
            refused = refusal(req, hosts)
            if refused is not None:
                await _respond(stream, conn, refused, head_only=req.method == "HEAD", close=True)
                return
            if req.path == "/ws" and is_upgrade(head):
                ws = await accept_websocket(stream, conn, head, peer)
                if ws is not None:
                    try:
                        await on_socket(ws, req)
                    finally:
                        await ws.close()
                return
            response = await answer(req, api)
            await _respond(stream, conn, response, head_only=req.method == "HEAD")
            if conn.our_state is h11.MUST_CLOSE or conn.their_state is h11.MUST_CLOSE:
                return
            conn.start_next_cycle()
    except h11.RemoteProtocolError as exc:
        with contextlib.suppress(h11.LocalProtocolError, *BROKEN):
            refused = Response.error(exc.error_status_hint, f"bad request: {exc}")
            await _respond(stream, conn, refused, head_only=methods[-1:] == [b"HEAD"])
            with trio.move_on_after(LINGER):
                await linger(stream)
    except h11.LocalProtocolError:
        pass
    except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
        pass
    finally:
        with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            await stream.aclose()


async def answer(req: Request, api: Api) -> Response:
    """The response to one request. The boundary of a request: whatever its handler raises
    becomes a 500 for this client and one log line, never more."""
    try:
        if req.method == "GET" or req.method == "HEAD":
            return await api(req) if req.path.startswith("/api/") else static_file(req.path)
        if req.method == "POST" and req.path.startswith("/api/"):
            return await api(req)
        return Response.error(405, "method not allowed")
    except Exception as exc:
        _log.error(
            "web request failed",
            peer=req.peer,
            method=req.method,
            path=req.path[:200],
            **describe(exc),
        )
        return Response.error(500, f"The server failed on this request ({type(exc).__name__}).")


async def _read_request(
    stream: trio.SocketStream, conn: h11.Connection, idle: float, peer: str, methods: list[bytes]
) -> tuple[h11.Request, Request] | None:
    head: h11.Request | None = None
    body = bytearray()
    while True:
        event = conn.next_event()
        if event is h11.NEED_DATA:
            data = b""
            with trio.move_on_after(idle):
                data = await stream.receive_some(READ_SIZE)
            conn.receive_data(data)
            if not data and conn.their_state is h11.IDLE:
                return None
            continue
        if isinstance(event, h11.Request):
            head = event
            methods.append(event.method)
            if is_upgrade(event):
                break
            declared = dict(event.headers).get(b"content-length", b"0")
            if len(declared) > 12 or int(declared) > MAX_BODY:  # refused before it is read
                raise h11.RemoteProtocolError(f"the body is larger than {MAX_BODY} bytes", 413)
        elif isinstance(event, h11.Data):
            body += event.data
            if len(body) > MAX_BODY:
                raise h11.RemoteProtocolError(f"the body is larger than {MAX_BODY} bytes", 413)
        elif isinstance(event, h11.EndOfMessage) or event is h11.PAUSED:
            break
        elif isinstance(event, h11.ConnectionClosed):
            return None
    assert head is not None
    try:
        url = urlsplit(head.target.decode("latin-1"))
        query = {k: v[0] for k, v in parse_qs(url.query, max_num_fields=32).items()}
    except ValueError as exc:
        raise h11.RemoteProtocolError(f"the request's target cannot be read: {exc}", 400) from None
    headers: dict[str, str] = {}
    for name, value in head.headers:
        key = name.decode("latin-1").lower()
        text = value.decode("latin-1")
        headers[key] = f"{headers[key]}, {text}" if key in headers else text
    return head, Request(head.method.decode(), url.path, query, bytes(body), peer, headers)


def is_upgrade(head: h11.Request) -> bool:
    """Does this request ask to become a WebSocket?"""
    return any(name == b"upgrade" and value.lower() == b"websocket" for name, value in head.headers)


async def accept_websocket(
    stream: trio.SocketStream, conn: h11.Connection, head: h11.Request, peer: str
) -> WebSocket | None:
    """Hand the upgrade request to wsproto (re-serialised: h11 has consumed its bytes) and
    accept it."""
    ws = wsproto.WSConnection(wsproto.ConnectionType.SERVER)
    raw = h11.Connection(h11.CLIENT).send(head) or b""
    try:
        ws.receive_data(raw + conn.trailing_data[0])
        for event in ws.events():
            if isinstance(event, wse.Request):
                await stream.send_all(ws.send(wse.AcceptConnection()))
                return WebSocket(stream, ws, peer)
            if isinstance(event, wse.RejectConnection):
                break
    except (WsRemoteError, WsLocalError):  # a handshake wsproto cannot accept
        pass
    await stream.send_all(
        b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
    )
    return None


async def _respond(
    stream: trio.SocketStream,
    conn: h11.Connection,
    response: Response,
    head_only: bool = False,
    close: bool = False,
) -> None:
    headers = [
        (b"content-type", response.content_type.encode()),
        (b"content-length", str(len(response.body)).encode()),
        *SECURITY_HEADERS,
        *response.headers,
    ]
    if close:
        headers.append((b"connection", b"close"))
    data = conn.send(h11.Response(status_code=response.status, headers=headers)) or b""
    if not head_only:
        data += conn.send(h11.Data(data=response.body)) or b""
    data += conn.send(h11.EndOfMessage()) or b""
    await stream.send_all(data)


__all__ = [
    "Api",
    "OnSocket",
    "Request",
    "Response",
    "WebSocket",
    "answer",
    "host_allowed",
    "refusal",
    "serve_http",
    "static_file",
]
