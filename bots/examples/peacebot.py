"""PeaceBot: a DumbBot that asks everyone for peace and never attacks those who agree."""

import sys
from collections.abc import Sequence
from typing import Any

from diplomat.bots.base import View
from diplomat.bots.commandline import run
from diplomat.bots.dumbbot import DumbBot, evaluate, movement_orders, weights_for
from diplomat.bots.press import Incoming, Proposals, peace, propose, to
from diplomat.engine.orders import Order
from diplomat.protocol import messages


class PeaceBot(DumbBot):
    name = "PeaceBot"

    def __init__(self, **options: Any) -> None:  # DumbBot's options (--weights, --param ...)
        super().__init__(**options)
        self.friends: set[str] = set()
        self.asked: Proposals | None = None  # ties each YES or REJ to the proposal it answers

    def book(self, view: View) -> Proposals:
        if self.asked is None:  # the game's token table: a HUH echoes our words in it
            self.asked = Proposals(view.table, view.power)
        return self.asked

    def phase_start(self, view: View) -> Sequence[messages.Snd]:
        if view.phase.name != "S1901M":
            return []
        near = {u.power for u in view.state.units.values() if u.power != view.power}
        out = [to([p], propose(peace(view.power, p))) for p in sorted(near)]
        for snd in out:
            self.book(view).sent(snd, view.phase.name)
        return out

    def talk_time(self, view: View) -> float:
        return 2.0 if view.kind == "movement" else 0.0  # at most; sooner when ready()

    def ready(self, view: View) -> bool:
        return not any(self.book(view).waiting())

    def press(self, view: View, incoming: Incoming) -> Sequence[messages.Snd] | None:
        if incoming.is_reply:
            answered = self.book(view).reply(incoming, view.phase.name)
            if answered is not None and answered.agreed:
                self.friends |= set(answered.recipients)
            return []
        deal = incoming.proposal
        if isinstance(deal, messages.Pce) and view.power in deal.powers:
            self.friends |= set(deal.powers) - {view.power}
            return [incoming.yes(view.power)]
        if deal is not None:
            return [incoming.rej()]
        return None  # anything else: the library says HUH, then TRY

    def orders(self, view: View) -> list[Order]:
        if view.kind != "movement":
            return super().orders(view)
        state, me = view.state, view.power
        ev = evaluate(state, me, weights_for(state, me), friends=frozenset(self.friends))
        return movement_orders(state, me, ev, view.rng)


if __name__ == "__main__":
    sys.exit(run(PeaceBot))
