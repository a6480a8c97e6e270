"""A reverse proxy the page is served through: whom a request really comes from.

Behind a proxy every request reaches the server from the proxy's address, so the limits kept
per address (games created and held, wrong seat links) would count every visitor together,
and one guesser would lock out everyone. For a proxy the server is told to trust
(``serve --web-proxy ADDRESS``), the visitor is the last address of ``X-Forwarded-For``
(the one that proxy added; earlier ones are the client's own say and may be forged). From any
other peer the header is ignored: anyone could send it.
"""

from __future__ import annotations

import dataclasses
import ipaddress

from diplomat.server.guard import peer_key
from diplomat.web.http import Request


def visitor(req: Request, proxies: frozenset[str]) -> Request:
    """``req`` with ``peer`` the visitor's address if it came through a trusted proxy (the
    port is unknown: 0), else as it is."""
    if not proxies or peer_key(req.peer) not in proxies:
        return req
    hops = req.headers.get("x-forwarded-for", "").split(",")
    last = hops[-1].strip().strip("[]")
    try:
        address = ipaddress.ip_address(last)
    except ValueError:
        return req  # no address (or not one): the proxy's own
    return dataclasses.replace(req, peer=f"{address}:0")


def proxy_key(text: str) -> str:
    """A ``--web-proxy`` address as the limits key it (an IPv6 one by its /64); ValueError if
    it is not an IP address."""
    return peer_key(f"{ipaddress.ip_address(text.strip('[]'))}:0")


__all__ = ["proxy_key", "visitor"]
