"""Seats for agents written against the ``diplomacy`` package (a line-up entry whose command
has ``{diplomacy_port}``). A tournament with such a seat serves the package's network protocol
(:class:`dipnet.service.DipnetService`) on a loopback port of its own; each of its games with
such seats is *adopted* by that service, and each such seat gets a user name and a random
password made for that game alone: only that user can sign in (no account is made on first
sign-in here) and only it can take that power. The seat's client plays through the service's
in-process DAIDE seat, so the game sees it join, play, miss deadlines and leave like any DAIDE
player, and its power is recorded under the seat's label.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass

import trio

from diplomat.dipnet.accounts import Accounts
from diplomat.dipnet.service import FREE_TEXT_LEVEL, DipnetService, Reserved
from diplomat.replay.games import PACKAGE_MAPS
from diplomat.replay.package_notation import power_name
from diplomat.server.app import GameRunner, Server


@dataclass(frozen=True)
class PackageLogin:
    """What a package agent's command is given: where to connect and how to sign in."""

    port: int
    game_id: str
    power_name: str  # the package's name of the power: FRANCE
    user: str
    password: str

    def values(self) -> dict[str, object]:
        """The command template's placeholders (besides ``{host}``, ``{seed}`` and the rest)."""
        return {
            "diplomacy_port": self.port,
            "game_id": self.game_id,
            "power_name": self.power_name,
            "user": self.user,
            "password": self.password,
        }


def map_problem(map_name: str) -> str | None:
    """Why agents of the package cannot play on ``map_name`` (None if they can): the
    package's client loads a game's map from its own files, which have only its maps."""
    if map_name in PACKAGE_MAPS.values():
        return None
    known = ", ".join(sorted(PACKAGE_MAPS.values()))
    return (
        f"agents of the diplomacy package play only on the maps it has ({known}), not {map_name!r}"
    )


# What check_programs fills a package agent's template with, to see that it expands.
SAMPLE_LOGIN = PackageLogin(1, "1", "AUSTRIA", "seat1-game1", "password")


class PackageSeats:
    """The tournament's service for the package's clients, and its seats' accounts."""

    def __init__(self, server: Server) -> None:
        self.accounts = Accounts(create_on_sign_in=False)
        self.service = DipnetService(server, self.accounts)
        self._users: dict[int, list[str]] = {}  # game id -> the accounts made for it

    async def run(self, task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> None:
        """Serve the package's protocol on a free loopback port (the server's host)."""
        await self.service.run(0, task_status=task_status)

    def open_game(
        self, runner: GameRunner, seats: Sequence[tuple[int, str, str]]
    ) -> dict[str, PackageLogin]:
        """Adopt ``runner``'s game for its package seats, given as (seat number, power token,
        label): each gets an account of its own, and its login by power token."""
        rules = ["POWER_CHOICE"]
        if runner.settings.level < FREE_TEXT_LEVEL:
            rules.append("NO_PRESS")  # the package's messages are free text (level 8000)
        reserved: dict[str, Reserved] = {}
        passwords: dict[str, str] = {}
        for seat, power, label in seats:
            user = f"seat{seat}-game{runner.id}"
            # Hex: a password goes on the agent's command line, where one beginning with
            # "-" (one url-safe password in 64) reads as an option ("--password -x..."): the
            # agent failed to start now and then.
            passwords[power] = secrets.token_hex(16)
            self.accounts.add(user, passwords[power])
            self._users.setdefault(runner.id, []).append(user)
            reserved[power] = Reserved(user, label)
        game = self.service.adopt_game(runner, rules, reserved)
        return {
            power: PackageLogin(
                self.service.port,
                game.game_id,
                power_name(runner.map, power),
                r.user,
                passwords[power],
            )
            for power, r in reserved.items()
        }

    def release(self, runner: GameRunner, power: str) -> None:
        """The seat's program has ended: its power leaves the game (civil disorder)."""
        self.service.release(str(runner.id), power)

    def close_game(self, runner: GameRunner) -> None:
        """The game is over (or abandoned): forget it and its seats' accounts."""
        self.service.forget(str(runner.id))
        for user in self._users.pop(runner.id, []):
            self.accounts.remove(user)
