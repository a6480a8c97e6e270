"""A press flood against a game of RandomBots: how many phases the game still plays.

    python bench/press_flood.py                 # 8 s quiet, then 8 s flooded
    python bench/press_flood.py --seconds 5 --bot randombot

A real server (in this process) hosts one game at press level 8000 without deadlines: six
subprocess bots on pipes and one player of ours on TCP, who orders holds each phase. For
``--seconds`` the player only plays; then, for as long again, it also sends free-text press to
the six others as fast as the server reads it (its message and byte budgets decide), reading
everything it is sent. Printed for each half: phases played, the flood's messages sent, and
the press the bots sent back (every bot answers press it does not understand with HUH and TRY;
it must not multiply a flood).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import trio

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.orders import Hold
from engine.state import Unit
from protocol import messages as m
from server.app import Server
from server.settings import GameSettings
from server.store import Store
from tests.server.daide_client import WireClient


class Player:
    def __init__(self, client: WireClient) -> None:
        self.client = client
        self.power = ""
        self.phases = 0
        self.sent = 0
        self.received_press = 0
        self.flooding = False
        self._sending = trio.Lock()  # (the flood and the orders share the stream)

    async def send(self, msg: m.Message) -> None:
        async with self._sending:
            await self.client.send(msg)

    async def play(self) -> None:
        while True:
            msg = await self.client.event()
            if isinstance(msg, m.Hlo):
                self.power = msg.power or ""
            elif isinstance(msg, m.Now) and msg.turn is not None:
                self.phases += 1
                ours = [u for u in msg.units if isinstance(u, Unit) and u.power == self.power]
                if msg.turn.kind == "movement":
                    await self.send(m.Sub(tuple(Hold(u) for u in ours)))
            elif isinstance(msg, m.Frm):
                self.received_press += 1
            elif isinstance(msg, (m.Off, m.Smr)):
                return

    async def flood(self, others: tuple[str, ...]) -> None:
        while True:
            if self.flooding:
                await self.send(m.Snd(others, m.FreeText(f"flood {self.sent}")))
                self.sent += 1
            else:
                await trio.sleep(0.05)


async def main(seconds: float, bot: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp) / "db.sqlite")
        server = Server(store, GameSettings(level=8000), port=0, seed=1)
        async with trio.open_nursery() as nursery:
            await nursery.start(server.run)
            runner = server.open_game
            assert runner is not None
            cmd = [sys.executable, "-m", f"bots.{bot}", "--stdio", "--seed", "1"]
            for _ in range(6):
                nursery.start_soon(server.run_pipe_bot, cmd, (runner, None, None))
            client = await WireClient.connect(server.address[1], text=False)
            await client.join("flooder")
            player = Player(client)
            nursery.start_soon(player.play)
            while not player.phases:
                await trio.sleep(0.05)
            others = tuple(p for p in runner.master.map.powers if p != player.power)
            nursery.start_soon(player.flood, others)
            rows = []
            for flooding in (False, True):
                player.flooding = flooding
                p0, s0, r0, t0 = player.phases, player.sent, player.received_press, time.time()
                await trio.sleep(seconds)
                rows.append(
                    (
                        "flooded" if flooding else "quiet",
                        player.phases - p0,
                        player.sent - s0,
                        player.received_press - r0,
                        time.time() - t0,
                    )
                )
            nursery.cancel_scope.cancel()
        store.close()
    for name, phases, sent, back, took in rows:
        print(
            f"{name:8} {phases:4} phases in {took:.1f} s; flood messages sent {sent:,}; "
            f"press the bots sent back {back:,}"
        )


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seconds", type=float, default=8.0)
    p.add_argument("--bot", default="randombot")
    args = p.parse_args()
    trio.run(main, args.seconds, args.bot)
