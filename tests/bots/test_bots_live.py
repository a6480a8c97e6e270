"""Bots against a real server on 127.0.0.1: real subprocess bots over TCP and over pipes, and
in-process sessions over TCP for the longer games and the rejoin."""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

import trio

from diplomat.bots.base import Bot, View
from diplomat.bots.dumbbot import DumbBot
from diplomat.bots.holdbot import HoldBot
from diplomat.bots.randombot import RandomBot
from diplomat.bots.session import Session
from diplomat.bots.transport import play_tcp
from diplomat.engine.orders import Order
from diplomat.protocol.tokens import STANDARD
from diplomat.server.app import Server
from diplomat.server.settings import GameSettings

# The make_server fixture (conftest.py here) starts a real server for given settings.
MakeServer = Callable[[GameSettings], Awaitable[Server]]

# How long a whole game may take before the test fails: an outer limit for a machine under
# heavy load (seven Python processes starting at once), not the time a game takes (seconds).
GAME_PATIENCE = 600.0


def bot_command(name: str, *args: str) -> list[str]:
    return [sys.executable, "-m", f"diplomat.bots.{name}", "-v", *args]


async def test_seven_subprocess_bots_over_tcp_and_pipes(
    make_server: MakeServer, tmp_path: Path
) -> None:
    server = await make_server(GameSettings(max_year=1902, map="standard"))
    port = str(server.address[1])
    # (bot, transport, extra options): every bundled bot, both transports, a power request
    # and a bot that insists on the MDF.
    lineup = [
        ("dumbbot", "tcp", ["--seed", "1", "--power", "FRA"]),
        ("dumbbot", "pipe", ["--seed", "2"]),
        ("dumbbot", "tcp", ["--seed", "3", "--mdf"]),
        ("randombot", "pipe", ["--seed", "4"]),
        ("randombot", "tcp", ["--seed", "5"]),
        ("holdbot", "pipe", ["--name", "Statue"]),
        ("holdbot", "tcp", []),
    ]
    codes: dict[int, int | None] = {}
    logs = [tmp_path / f"bot{i}.log" for i in range(len(lineup))]

    async def tcp_bot(i: int, argv: list[str]) -> None:
        with logs[i].open("w") as err:
            proc = await trio.run_process(argv, check=False, stderr=err)
        codes[i] = proc.returncode

    async def pipe_bot(i: int, argv: list[str]) -> None:
        with logs[i].open("w") as err:
            codes[i] = await server.run_pipe_bot(argv, stderr=err)

    with trio.fail_after(GAME_PATIENCE):
        async with trio.open_nursery() as nursery:
            for i, (name, transport, extra) in enumerate(lineup):
                if transport == "tcp":
                    nursery.start_soon(tcp_bot, i, bot_command(name, "--port", port, *extra))
                else:
                    nursery.start_soon(pipe_bot, i, bot_command(name, "--stdio", *extra))

    texts = [log.read_text() for log in logs]
    for i, text in enumerate(texts):
        assert codes[i] == 0, f"bot {lineup[i]} exited {codes[i]}:\n{text}"
        assert "game over: SMR" in text, text
        assert "order refused" not in text and "Traceback" not in text, text
    assert "built from its MDF" in texts[2]
    (row,) = server.store.games()
    assert row.status == "finished" and row.result is not None
    assert row.result["reason"] == "year limit"
    players = {p.power: p.name for p in server.store.players(row.id)}
    assert players["FRA"] == "FRA:DumbBot"
    assert sorted(players.values()) == sorted(
        ["FRA:DumbBot", "DumbBot", "DumbBot", "RandomBot", "RandomBot", "Statue", "HoldBot"]
    )


async def play_all(server: Server, sessions: list[Session]) -> list[int]:
    codes: list[int] = [-1] * len(sessions)

    async def one(i: int) -> None:
        codes[i] = await play_tcp(sessions[i], *server.address)

    async with trio.open_nursery() as nursery:
        for i in range(len(sessions)):
            nursery.start_soon(one, i)
    return codes


async def test_a_longer_game_every_order_accepted(make_server: MakeServer) -> None:
    server = await make_server(GameSettings(max_year=1906, map="standard"))
    bots: list[Bot] = [DumbBot(), DumbBot(), DumbBot(collapse_ties=False), DumbBot()]
    bots += [RandomBot(), RandomBot(), HoldBot()]
    sessions = [Session(b, seed=i, table=STANDARD) for i, b in enumerate(bots)]
    with trio.fail_after(GAME_PATIENCE):
        codes = await play_all(server, sessions)
    assert codes == [0] * 7
    for s in sessions:
        assert s.summary is not None and s.game_over
        assert s.bad_notes == [], [str(t.order) for t in s.bad_notes]
    (row,) = server.store.games()
    assert row.status == "finished"
    final = sessions[0].state
    assert final is not None
    assert row.result is not None and row.result["centres"] == final.centre_counts()


class Leaver(HoldBot):
    """Holds, and tells the test when it is asked for Fall orders (the test then cuts it off)."""

    def __init__(self, asked: trio.Event) -> None:
        self.asked = asked

    def orders(self, view: View) -> list[Order]:
        if view.phase.season == "FAL":
            self.asked.set()
        return super().orders(view)


async def test_rejoin_with_iam_after_losing_the_connection(make_server: MakeServer) -> None:
    # DSD: the game waits for a player who owes orders and is away. The leaver's autumn orders
    # may or may not reach the server before it goes, so the game must last past that autumn
    # either way (with max_year=1902 it could end before the leaver came back).
    server = await make_server(GameSettings(max_year=1903, dsd=True, map="standard"))
    asked = trio.Event()
    leaver = Session(Leaver(asked), seed=0, table=STANDARD)
    others = [Session(HoldBot(), seed=i, table=STANDARD) for i in range(6)]
    rejoined: list[Session] = []

    async def leave_then_rejoin() -> None:
        with trio.CancelScope() as scope:

            async def cut() -> None:
                await asked.wait()
                scope.cancel()

            async with trio.open_nursery() as n:
                n.start_soon(cut)
                await play_tcp(leaver, *server.address)
        assert leaver.power is not None and leaver.passcode is not None
        back = Session(
            HoldBot(), power=leaver.power, passcode=leaver.passcode, seed=9, table=STANDARD
        )
        rejoined.append(back)
        assert await play_tcp(back, *server.address) == 0

    with trio.fail_after(GAME_PATIENCE):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(leave_then_rejoin)
            nursery.start_soon(play_all, server, others)
    (back,) = rejoined
    assert not leaver.game_over  # it really was gone mid-game
    assert back.joined and back.game_over and back.summary is not None
    assert back.power == leaver.power and back.map is not None
    (row,) = server.store.games()
    assert row.status == "finished"
