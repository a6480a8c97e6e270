"""Bordeaux against a real server on 127.0.0.1: subprocess bots over TCP and over a pipe play a
whole (short) game with deadlines, and every Bordeaux decision comes in well before them."""

from __future__ import annotations

import re
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

import trio

from diplomat.bots.dumbbot import DumbBot
from diplomat.bots.session import Session
from diplomat.bots.transport import play_tcp
from diplomat.protocol.tokens import STANDARD
from diplomat.server.app import Server
from diplomat.server.settings import GameSettings

MakeServer = Callable[[GameSettings], Awaitable[Server]]
DECISION = re.compile(r"(\w\d{4}\w): (\d+) nodes in ([0-9.]+) s")


async def test_a_full_game_against_dumbbots(make_server: MakeServer, tmp_path: Path) -> None:
    # Deadlines of 4 s (2 s for retreats and builds) and a think time far above them: the bot
    # must cut its search to the deadline's share and still submit every phase.
    settings = GameSettings(
        max_year=1902, move_time=4, retreat_time=2, build_time=2, map="standard"
    )
    server = await make_server(settings)
    port = str(server.address[1])
    logs = [tmp_path / "tcp.log", tmp_path / "pipe.log"]
    common = ["--think", "30", "--nodes", "100000", "-v"]
    tcp = [sys.executable, "-m", "diplomat.bots.bordeaux", "--port", port, "--seed", "1", *common]
    pipe = [
        sys.executable,
        "-m",
        "diplomat.bots.bordeaux",
        "--stdio",
        "--seed",
        "2",
        "--power",
        "TUR",
    ]
    pipe += [*common, "--param", "unit=0.4", "--ally", "AUS"]
    codes: dict[str, int | None] = {}

    async def tcp_bot() -> None:
        with logs[0].open("w") as err:
            proc = await trio.run_process(tcp, check=False, stderr=err)
        codes["tcp"] = proc.returncode

    async def pipe_bot() -> None:
        with logs[1].open("w") as err:
            codes["pipe"] = await server.run_pipe_bot(pipe, stderr=err)

    sessions = [Session(DumbBot(), seed=i, table=STANDARD) for i in range(5)]

    async def dumb(s: Session) -> None:
        await play_tcp(s, *server.address)

    with trio.fail_after(120):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(tcp_bot)
            nursery.start_soon(pipe_bot)
            for s in sessions:
                nursery.start_soon(dumb, s)

    (row,) = server.store.games()
    assert row.status == "finished" and row.result is not None
    assert row.result["reason"] == "year limit"
    players = {p.power: p.name for p in server.store.players(row.id)}
    assert players["TUR"] == "TUR:Bordeaux"
    limits = {"M": 4.0, "R": 2.0, "A": 2.0}
    for name, log in zip(("tcp", "pipe"), logs, strict=True):
        text = log.read_text()
        assert codes[name] == 0, text
        assert "game over: SMR" in text, text
        assert "order refused" not in text and "Traceback" not in text, text
        decisions = DECISION.findall(text)
        assert any(phase == "F1902M" for phase, _, _ in decisions), text
        for phase, _, seconds in decisions:
            # The search stops at half the deadline; the whole deadline is the generous bound.
            assert float(seconds) < limits[phase[-1]], (phase, seconds)
