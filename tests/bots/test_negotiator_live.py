"""Negotiators in live games: a real server on 127.0.0.1 (port 0) at press level 30, the bots as
real subprocesses. Two negotiating Bordeaux ally and support each other among five silent
DumbBots; the README's example bot talks to a field that does not; nothing any of them sends
draws a HUH or a refusal from the server."""

from __future__ import annotations

import re
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

import trio

from diplomat.protocol import messages
from diplomat.protocol.codec import Codec
from diplomat.protocol.tokens import STANDARD
from diplomat.server.app import Server
from diplomat.server.settings import GameSettings

MakeServer = Callable[[GameSettings], Awaitable[Server]]
GAME_PATIENCE = 600.0  # an outer limit for a loaded machine, not how long a game takes


async def _play(server: Server, argvs: list[list[str]], logs: list[Path]) -> list[int | None]:
    codes: list[int | None] = [None] * len(argvs)

    async def one(i: int) -> None:
        with logs[i].open("w") as err:
            proc = await trio.run_process(argvs[i], check=False, stderr=err)
        codes[i] = proc.returncode

    with trio.fail_after(GAME_PATIENCE):
        async with trio.open_nursery() as nursery:
            for i in range(len(argvs)):
                nursery.start_soon(one, i)
    return codes


def _clean(log: Path) -> str:
    text = log.read_text()
    assert "Traceback" not in text, text
    assert "the server did not understand us" not in text, text
    assert "press refused" not in text and "not sent (press level" not in text, text
    return text


async def test_two_negotiators_ally_and_support_each_other(
    make_server: MakeServer, tmp_path: Path
) -> None:
    # No deadlines: the talk window alone bounds how long a phase waits on talk.
    server = await make_server(GameSettings(level=30, max_year=1905, map="standard"))
    port = str(server.address[1])
    talk = ["--negotiate", "--initiative", "1", "--think", "0.1", "-v"]
    argvs = [
        [
            sys.executable,
            "-m",
            "diplomat.bots.bordeaux",
            "--port",
            port,
            "--power",
            p,
            "--seed",
            str(i),
            *talk,
        ]
        for i, p in enumerate(("FRA", "GER"))
    ]
    argvs += [
        [sys.executable, "-m", "diplomat.bots.dumbbot", "--port", port, "--seed", str(10 + i)]
        for i in range(5)
    ]
    logs = [tmp_path / f"bot{i}.log" for i in range(len(argvs))]
    codes = await _play(server, argvs, logs)
    assert codes == [0] * len(argvs), [log.read_text()[-2000:] for log in logs]
    for log in logs[:2]:
        assert "negotiation summary" in _clean(log)

    (game,) = server.store.games()
    assert game.status == "finished"
    press = server.store.press(game.id)
    bodies = [(p.sender, p.recipients, p.body) for p in press]
    # An alliance proposed by one of the two and accepted by the other.
    aly = [b for s, r, b in bodies if s in ("FRA", "GER") and "ALY ( FRA GER )" in b]
    assert any(b.startswith("YES ( PRP ( ALY ( FRA GER )") for b in aly), bodies
    # Every proposal to a negotiator was answered by it.
    for p in press:
        if p.body.startswith("PRP") and set(p.recipients) <= {"FRA", "GER"}:
            echo = f"( {p.body} )"
            assert any(
                q.sender in p.recipients and echo in q.body and q.body[:3] in ("YES", "REJ", "BWX")
                for q in press
            ), p
    # They supported each other's units on the board.
    codec = Codec(STANDARD)
    helped: set[str] = set()
    for _, power, text in server.store.results(game.id):
        ord_ = codec.parse_text(text)
        assert isinstance(ord_, messages.Ord)
        order = ord_.order
        target = getattr(order, "target", None)
        pair = ("FRA", "GER")
        if power in pair and target is not None and target.power in pair and target.power != power:
            helped.add(power)
    assert helped, "neither supported the other"


async def test_the_readme_example_bot_talks(make_server: MakeServer, tmp_path: Path) -> None:
    server = await make_server(GameSettings(level=10, max_year=1902, map="standard"))
    port = str(server.address[1])
    example = [
        sys.executable,
        "-m",
        "diplomat.bots.examples.peacebot",
        "--port",
        port,
        "--power",
        "ITA",
    ]
    argvs = [[*example, "-v", "--seed", "1"]]
    argvs += [
        [sys.executable, "-m", "diplomat.bots.dumbbot", "--port", port, "--seed", str(i)]
        for i in range(2, 7)
    ]
    argvs += [
        [
            sys.executable,
            "-m",
            "diplomat.bots.dumbbot",
            "--port",
            port,
            "--negotiate",
            "--power",
            "AUS",
        ]
    ]
    logs = [tmp_path / f"bot{i}.log" for i in range(len(argvs))]
    codes = await _play(server, argvs, logs)
    assert codes == [0] * len(argvs), [log.read_text()[-2000:] for log in logs]
    _clean(logs[0])
    (game,) = server.store.games()
    press = server.store.press(game.id)
    asked = [p for p in press if p.sender == "ITA" and re.match(r"PRP \( PCE", p.body)]
    assert len(asked) == 6, press
    # The silent DumbBots say they do not understand; the negotiating one agrees.
    huh = {p.sender for p in press if p.body.startswith("HUH") and p.recipients == ("ITA",)}
    assert len(huh) == 5 and "AUS" not in huh, press
    assert any(p.sender == "AUS" and p.body == "YES ( PRP ( PCE ( AUS ITA ) ) )" for p in press)
