"""A stored game for the tests of the commands that read the database (``render``,
``show``): random legal orders from the standard opening, recorded phase by phase as the game
master records them."""

from __future__ import annotations

from pathlib import Path

from diplomat.engine.orders import Move, Order, Result, order_power
from diplomat.engine.simulate import random_game
from diplomat.engine.state import GameState, Phase
from diplomat.protocol import messages
from diplomat.protocol.codec import render_text
from diplomat.protocol.tokens import STANDARD
from diplomat.server.store import Store
from tests.boards import STANDARD_START


def _ord_text(phase: Phase, order: Order, result: Result, state: GameState) -> str:
    if isinstance(order, Move) and order.convoy and order.via is None:
        # DAIDE's CTO names its route; random games leave it out.
        return render_text(
            messages.Ord(
                phase,
                order._replace(via=state.map.seas_near[order.unit.province][:1]),
                result,
            ),
            STANDARD,
        )
    return render_text(messages.Ord(phase, order, result), STANDARD)


def store_random_game(path: Path, max_year: int = 1903) -> Path:
    """Game 1 in a new database at ``path``, played to ``max_year``."""
    store = Store(path)
    game = store.create_game({}, name="random one")
    for k, step in enumerate(random_game(STANDARD_START, 1, max_year=max_year)):
        if k == 0:
            store.start(game, step.state.phase.name, step.state.to_json())
        ords = [
            (
                order_power(o),
                _ord_text(step.state.phase, o, r, step.state),
            )
            for o, r in step.result.results
        ]
        store.record_phase(
            game,
            step.state.phase.name,
            ords,
            step.result.state.phase.name,
            step.result.state.to_json(),
        )
    store.close()
    return path
