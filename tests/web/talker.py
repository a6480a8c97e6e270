"""A DAIDE test client that talks, for the press tests of the web page: it holds with every
unit (HoldBot's orders) and answers press by a fixed rule, so that a test knows what to expect.

    python -m tests.web.talker --port P [--propose-to FRA]

Answers to a proposal (sent to the proposer and every other recipient, as the convention
says): a draw or a solo is refused (``REJ``), an alliance declined (``BWX``, "not now"), a
choice (``ORR``) left unanswered (so that the proposer may cancel it), anything else accepted
(``YES``). Free text it cannot read, as any bundled bot: ``HUH``, then ``TRY``. With
``--propose-to POWER`` it proposes peace to that power
in the first movement phase; with ``--draw-from YEAR`` it votes for a draw (``DRW``) at the
start of every phase from that year on. It connects over TCP in DAIDE's binary form, like any bot.
"""

from __future__ import annotations

import argparse
import sys

import trio

from diplomat.bots.holdbot import HoldBot
from diplomat.bots.session import Session
from diplomat.bots.transport import play_tcp
from diplomat.protocol import messages
from diplomat.protocol.atoms import Atoms
from diplomat.protocol.tokens import STANDARD


def answer(press: messages.Prp) -> type[messages.Yes | messages.Rej | messages.Bwx] | None:
    arr = press.arrangement
    if isinstance(arr, messages.Orr):
        return None
    if isinstance(arr, messages.Drw | messages.Slo):
        return messages.Rej
    if isinstance(arr, messages.Aly):
        return messages.Bwx
    return messages.Yes


class Talker(Session):
    def __init__(self, propose_to: str | None, draw_from: int | None = None) -> None:
        super().__init__(HoldBot(), name="Talker", version="test", table=STANDARD)
        self.propose_to = propose_to
        self.draw_from = draw_from
        self.proposed = False

    def handle(self, msg: messages.Message, atoms: Atoms | None = None) -> list[messages.Message]:
        if isinstance(msg, messages.Frm) and not isinstance(msg.press, messages.FreeText):
            if msg.sender == self.power or not isinstance(msg.press, messages.Prp):
                return []
            reply = answer(msg.press)
            if reply is None:
                return []
            to = tuple(p for p in (msg.sender, *msg.recipients) if p != self.power)
            return [messages.Snd(to, reply(msg.press))]
        out = super().handle(msg, atoms)
        state = self.state
        if (
            isinstance(msg, messages.Now)
            and self.draw_from is not None
            and state is not None
            and state.phase.year >= self.draw_from
        ):
            out.append(messages.Drw())  # votes end with the phase: a vote at each
        if (
            isinstance(msg, messages.Now)
            and self.propose_to
            and not self.proposed
            and self.power is not None
            and state is not None
            and state.phase.kind == "movement"
        ):
            self.proposed = True
            out.append(
                messages.Snd(
                    (self.propose_to,), messages.Prp(messages.Pce((self.propose_to, self.power)))
                )
            )
        return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--propose-to", default=None)
    p.add_argument("--draw-from", type=int, default=None, metavar="YEAR")
    args = p.parse_args(argv)
    talker = Talker(args.propose_to, args.draw_from)
    return trio.run(play_tcp, talker, "127.0.0.1", args.port, 0)


if __name__ == "__main__":
    sys.exit(main())
