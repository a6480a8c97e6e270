"""A press flood against a game of RandomBots: how many phases the game still plays.

    python bench/press_flood.py                 # 8 s quiet, then 8 s flooded
    python bench/press_flood.py --seconds 5 --bot randombot

A real server (in this process) hosts one game at press level 8000 without deadlines: six
subprocess bots on pipes and one player of ours on TCP, who orders holds each phase. For
``--seconds`` from its start the player only plays; then, in a new game with the same seeds,
it also sends free-text press to
the six others as fast as the server reads it (its budget: 100 messages a second, a press
message costing one per recipient) to the powers still in the game, reading everything it is
sent. Printed for each half: phases played, the flood's messages sent, and the press the bots
sent back (every bot answers press it does not understand with HUH and TRY; it must not
multiply a flood).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import trio

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from diplomat.engine.orders import Hold
from diplomat.engine.state import Unit
from diplomat.protocol import messages
from diplomat.server.app import Server
from diplomat.server.settings import GameSettings
from diplomat.server.store import Store
from tests.server.daide_client import WireClient


class Player:
    def __init__(self, client: WireClient) -> None:
        self.client = client
        self.power = ""
        self.phases = 0
        self.sent = 0
        self.received_press = 0
        self.flooding = False
        self.others: tuple[str, ...] = ()  # the other powers that own centres (SCO)
        self._sending = trio.Lock()  # (the flood and the orders share the stream)

    async def send(self, msg: messages.Message) -> None:
        async with self._sending:
            await self.client.send(msg)

    async def play(self) -> None:
        while True:
            msg = await self.client.event()
            if isinstance(msg, messages.Hlo):
                self.power = msg.power or ""
            elif isinstance(msg, messages.Now) and msg.turn is not None:
                self.phases += 1
                ours = [u for u in msg.units if isinstance(u, Unit) and u.power == self.power]
                if msg.turn.kind == "movement":
                    await self.send(messages.Sub(tuple(Hold(u) for u in ours)))
            elif isinstance(msg, messages.Sco):
                owners = {owner for owner, _ in msg.owners}
                self.others = tuple(sorted(owners - {"UNO", self.power}))
            elif isinstance(msg, messages.Frm):
                self.received_press += 1

            elif isinstance(msg, (messages.Off, messages.Smr)):
                return

    async def flood(self, budget: float) -> None:
        """Press to the others while :attr:`flooding`, at the most the server's ``budget``
        (messages a second) reads: faster, the flood would only queue in our own socket, and
        our own orders behind it."""
        start, sent = trio.current_time(), 0
        while True:
            if not self.flooding:
                start, sent = trio.current_time(), 0
                await trio.sleep(0.05)
                continue
            others = self.others
            rate = budget / max(1, len(others))  # a press message costs one per recipient
            due = (trio.current_time() - start) * rate
            if sent >= due or not others:
                await trio.sleep((sent + 1 - due) / rate)
                continue
            await self.send(messages.Snd(others, messages.FreeText(f"flood {self.sent}")))
            self.sent += 1
            sent += 1


async def one_game(seconds: float, bot: str, flooding: bool) -> tuple[int, int, int, float]:
    """A fresh game (the same seeds each time) played for ``seconds`` from its start, with or
    without the flood: (phases played, flood messages sent, press received, seconds)."""
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp) / "db.sqlite")
        server = Server(store, GameSettings(level=8000, map="standard"), port=0, seed=1)
        async with trio.open_nursery() as nursery:
            await nursery.start(server.run)
            runner = server.open_game
            assert runner is not None
            cmd = [sys.executable, "-m", f"diplomat.bots.{bot}", "--stdio", "--seed", "1"]
            for _ in range(6):
                nursery.start_soon(server.run_pipe_bot, cmd, (runner, None, None))
            client = await WireClient.connect(server.address[1], text=False)
            await client.join("flooder")
            player = Player(client)
            player.flooding = flooding
            nursery.start_soon(player.play)
            while not player.phases:
                await trio.sleep(0.05)
            nursery.start_soon(player.flood, server.message_rate)
            t0 = time.time()
            await trio.sleep(seconds)
            row = (player.phases, player.sent, player.received_press, time.time() - t0)
            nursery.cancel_scope.cancel()
        store.close()
    return row


async def main(seconds: float, bot: str) -> None:
    for flooding in (False, True):
        phases, sent, back, took = await one_game(seconds, bot, flooding)
        print(
            f"{'flooded' if flooding else 'quiet':8} {phases:4} phases in {took:.1f} s; "
            f"flood messages sent {sent:,}; press the bots sent back {back:,}; "
            f"load {os.getloadavg()[0]:.1f}"
        )


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seconds", type=float, default=8.0)
    p.add_argument("--bot", default="randombot")
    args = p.parse_args()
    trio.run(main, args.seconds, args.bot)
