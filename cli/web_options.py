"""``diplomat serve``'s web options: the page's port, and a game against bots made at start."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from random import Random
from typing import Any
from urllib.parse import urlsplit

from diplomat.bots.argtypes import count
from diplomat.bots.registry import BUNDLED, DEFAULT_BOT, NEGOTIATORS
from diplomat.cli.options import port_number

DEFAULT_WEB_PORT = 8080


def add_web_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("web page (playing in the browser)")
    g.add_argument(
        "--web-port",
        type=port_number,
        metavar="PORT",
        default=DEFAULT_WEB_PORT,
        help=f"port of the web page, on the same host (default {DEFAULT_WEB_PORT}; 0 = any free "
        "port)",
    )
    g.add_argument("--no-web", action="store_true", help="serve no web page")
    g.add_argument(
        "--web-max-games",
        type=int,
        default=None,
        metavar="N",
        help="web games (each with up to six bot processes) that may run at once "
        "(default: two per core)",
    )
    g.add_argument(
        "--web-games-per-address",
        type=count,
        default=None,
        metavar="N",
        help="web games one address (IPv6: one /64) may have running at once (default 2)",
    )
    g.add_argument(
        "--web-max-bots",
        type=count,
        default=None,
        metavar="N",
        help="bot processes the web games may hold at once; a game that would pass it is "
        "refused until another ends (default: six per core)",
    )
    g.add_argument(
        "--web-host",
        action="append",
        default=[],
        metavar="NAME",
        help="a DNS name the page is reached by (repeatable); IP addresses and localhost "
        "always work, any other name is refused (DNS rebinding)",
    )
    _add_people_options(g)


def _add_people_options(g: argparse._ArgumentGroup) -> None:
    """Who plays the page's games, and who reaches them: --public, --play, --against, and the
    address the seats' links carry."""
    g.add_argument(
        "--public",
        action="store_true",
        help="list every game on the page's games list (/games), where anyone may watch it; "
        "without it only the games their creators chose to list are there",
    )
    g.add_argument(
        "--play",
        metavar="POWER",
        action="append",
        help="create a game at start for a person playing POWER (or 'random') in the "
        "browser, and print its link; once per person (--play FRA --play GER: one private "
        "link each); the deadlines, --max-year and --level (0, gunboat, by default; 10, 20 "
        "or 30 for press) above apply",
    )
    g.add_argument(
        "--against",
        default=None,
        metavar="SEATS",
        help=f"the other powers' players, dealt at random: bundled bots by name "
        f"({', '.join(BUNDLED)}), NAME:K for K of them, 'NAME --negotiate' (or ':K' after it) "
        f"for {' or '.join(NEGOTIATORS)} talking at the game's --level, 'open' for a seat left "
        f"to a bot connecting over TCP (default {DEFAULT_BOT} for each)",
    )
    g.add_argument(
        "--public-url",
        metavar="URL",
        type=public_url,
        default=None,
        help="the address people reach the page by, if not the one it listens on (a reverse "
        "proxy's, e.g. https://diplomacy.example.org/): the seats' links carry it, and its "
        "name is answered to as --web-host's are",
    )
    g.add_argument(
        "--web-proxy",
        metavar="ADDRESS",
        type=proxy_address,
        action="append",
        default=[],
        help="the IP address of a reverse proxy in front of the page (repeatable): a request "
        "from it counts against the limits of the address its X-Forwarded-For names last",
    )


def parse_against(text: str) -> list[str]:
    """``dumbbot:3 randombot:2,open`` -> six seat names; an option after a name belongs to
    it, and may carry the count: ``bordeaux --negotiate:2`` -> two ``bordeaux --negotiate``."""
    groups: list[tuple[list[str], int]] = []
    for word in text.replace(",", " ").split():
        name, _, count = word.partition(":")
        try:
            k = int(count) if count else None
        except ValueError:
            raise ValueError(f"{word!r}: the count after ':' must be a number") from None
        if name.startswith("-"):
            if not groups:
                raise ValueError(f"{word!r}: an option must follow a bot's name")
            words, before = groups[-1]
            groups[-1] = ([*words, name.lower()], k if k is not None else before)
        else:
            groups.append(([name.strip().lower()], k if k is not None else 1))
    return [" ".join(words) for words, k in groups for _ in range(k)]


def public_url(text: str) -> str:
    """``--public-url``: an http(s) address with a host (and no query)."""
    url = urlsplit(text)
    if url.scheme not in ("http", "https") or not url.hostname or url.query or url.fragment:
        raise argparse.ArgumentTypeError(
            f"{text!r}: give the page's address as http(s)://NAME[:PORT][/PATH]"
        )
    return text.rstrip("/") + "/"


def proxy_address(text: str) -> str:
    """``--web-proxy``: an IP address (IPv6: its /64, as the limits count it)."""
    from diplomat.web.proxy import proxy_key

    try:
        return proxy_key(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an IP address") from None


def game_spec(args: argparse.Namespace, powers: Sequence[str], rng: Random) -> dict[str, Any]:
    """The web game ``--play`` asks for, in the form the page's API takes: for one person,
    their power and the opponents (the server deals them); for several, each power's seat
    (the people's, and ``--against`` dealt at random to the rest). ``random`` is one of the
    powers nobody else named. Raises ValueError for a power named twice or too many."""
    plays = [p.upper() for p in args.play]
    named = [p for p in plays if p != "RANDOM"]
    if len(set(named)) < len(named):
        raise ValueError(f"--play names a power twice: {' '.join(plays)}")
    if len(plays) > len(powers):
        raise ValueError(f"--play: {len(plays)} people for {len(powers)} powers")
    rest = len(powers) - len(plays)
    opponents = parse_against(args.against or f"{DEFAULT_BOT}:{rest}")
    spec = {
        "power": args.play[0],
        "opponents": opponents,
        "level": args.level,
        "pda": args.pda,
        "move_time": args.mtl,
        "retreat_time": args.rtl,
        "build_time": args.btl,
        "max_year": args.max_year,
    }
    if len(plays) == 1:
        return spec
    free = [p for p in powers if p not in named]
    rng.shuffle(free)
    people = [p if p != "RANDOM" else free.pop() for p in plays]
    others = [p for p in powers if p not in people]
    if len(opponents) != len(others):
        raise ValueError(f"--against: give {len(others)} players, not {len(opponents)}")
    rng.shuffle(others)  # (nobody learns from the terminal who plays whom)
    seats = {p: "person" for p in people} | dict(zip(others, opponents, strict=True))
    del spec["opponents"]
    return {**spec, "power": people[0], "seats": seats}


__all__ = [
    "DEFAULT_WEB_PORT",
    "add_web_options",
    "game_spec",
    "parse_against",
    "proxy_address",
    "public_url",
]
