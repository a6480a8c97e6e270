"""The package's WebSocket on a port of its own: its client connects to ``ws://host:port``
(any path), so the upgrade is taken here rather than through the web page's ``/ws`` route;
the socket itself, its message limit and the connection gate are the web page's
(:class:`web.http.WebSocket`, :mod:`web.gate`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import h11
import trio

from diplomat.web.gate import peer_of
from diplomat.web.http import WebSocket, accept_websocket, is_upgrade

HANDSHAKE_TIMEOUT = 30.0  # seconds a client has to send its upgrade request
MAX_HEAD = 16 * 1024  # bytes of request head read before the upgrade is refused

OnSocket = Callable[[WebSocket], Awaitable[None]]


async def accept(stream: trio.SocketStream) -> WebSocket | None:
    """Read the HTTP upgrade request and accept it as the web page accepts its own
    (:func:`web.http.accept_websocket`); a request that is no WebSocket upgrade gets a 400 and
    None."""
    conn = h11.Connection(h11.SERVER, max_incomplete_event_size=MAX_HEAD)
    head: h11.Request | None = None
    with trio.move_on_after(HANDSHAKE_TIMEOUT):
        while head is None:
            try:
                event = conn.next_event()
            except h11.RemoteProtocolError:
                break
            if event is h11.NEED_DATA:
                data = await stream.receive_some(65536)
                if not data:
                    return None
                conn.receive_data(data)
            elif isinstance(event, h11.Request):
                head = event
            else:
                break
    if head is not None and is_upgrade(head):
        return await accept_websocket(stream, conn, head, peer_of(stream))
    body = b"this port speaks the diplomacy package's WebSocket protocol\n"
    await stream.send_all(
        b"HTTP/1.1 400 Bad Request\r\ncontent-type: text/plain\r\n"
        + f"content-length: {len(body)}\r\nconnection: close\r\n\r\n".encode()
        + body
    )
    return None
