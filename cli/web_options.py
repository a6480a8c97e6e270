"""``diplomat serve``'s web options: the page's port, and a game against bots made at start."""

from __future__ import annotations

import argparse
from typing import Any

from bots.argtypes import count
from bots.registry import BUNDLED, DEFAULT_BOT, NEGOTIATORS
from cli.options import port_number

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
    g.add_argument(
        "--play",
        metavar="POWER",
        help="create a game at start for a person playing POWER (or 'random') in the "
        "browser, and print its link; the deadlines, --max-year and --level (0, gunboat, by "
        "default; 10, 20 or 30 for press) above apply",
    )
    g.add_argument(
        "--against",
        default=f"{DEFAULT_BOT}:6",
        metavar="SEATS",
        help=f"the six opponents of --play: bundled bots by name ({', '.join(BUNDLED)}), "
        f"NAME:K for K of them, 'NAME --negotiate' (or ':K' after it) for "
        f"{' or '.join(NEGOTIATORS)} talking at the game's --level, 'open' for a seat left to "
        f"a bot connecting over TCP (default {DEFAULT_BOT}:6)",
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


def game_spec(args: argparse.Namespace) -> dict[str, Any]:
    """The web game ``--play`` asks for, in the form the page's API takes."""
    return {
        "power": args.play,
        "opponents": parse_against(args.against),
        "level": args.level,
        "pda": args.pda,
        "move_time": args.mtl,
        "retreat_time": args.rtl,
        "build_time": args.btl,
        "max_year": args.max_year,
    }


__all__ = ["DEFAULT_WEB_PORT", "add_web_options", "game_spec", "parse_against"]
