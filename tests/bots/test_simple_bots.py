"""HoldBot and RandomBot, and the order helpers every bot shares."""

from __future__ import annotations

import random
from typing import Any

from diplomat.bots.base import View, complete_orders, convoy_route, daide_orders, default_orders
from diplomat.bots.holdbot import HoldBot
from diplomat.bots.randombot import RandomBot
from diplomat.engine.legal import legal_orders
from diplomat.engine.map import load_map
from diplomat.engine.orders import Build, Disband, Hold, Move, Remove, Retreat, Waive, order_key
from diplomat.engine.orderset import OrderSet
from diplomat.engine.simulate import random_game
from diplomat.engine.state import Dislodged, Phase, initial_state, make_state, parse_unit
from diplomat.protocol import messages
from diplomat.protocol.codec import render_text
from diplomat.protocol.tokens import STANDARD
from tests.boards import STANDARD_START

G = load_map("standard")
HOMES = dict(initial_state(load_map("standard")).centres)


def test_holdbot() -> None:
    bot = HoldBot()
    rng = random.Random(0)
    start = initial_state(load_map("standard"))
    assert {type(o) for o in bot.orders(View(start, "ENG", rng))} == {Hold}
    a = parse_unit("FRA A BUR", G)
    retreat = make_state(G, Phase.parse("S1901R"), [], HOMES, [Dislodged(a, "MUN", ("PAR",))])
    assert bot.orders(View(retreat, "FRA", rng)) == [Disband(a)]
    units = [parse_unit(u, G) for u in ("FRA A PAR", "FRA A BUR", "FRA A GAS", "FRA F MAO")]
    winter = make_state(G, Phase.parse("W1901A"), units, HOMES)
    assert bot.orders(View(winter, "FRA", rng)) == [Remove(units[1])]  # location order
    assert bot.orders(View(winter, "ENG", rng)) == [Waive("ENG")] * 3


def test_randombot_draws_every_kind_of_legal_order_and_all_are_accepted() -> None:
    bot = RandomBot()
    rng = random.Random(3)
    kinds: set[str] = set()
    for step in random_game(STANDARD_START, 8, max_year=1912):
        state = step.state
        for power in G.powers:
            orders = bot.orders(View(state, power, rng))
            full = daide_orders(state, complete_orders(state, power, orders))
            if full:
                render_text(
                    messages.Sub(tuple(full), state.phase), STANDARD
                )  # every order is DAIDE
            book = OrderSet(state)
            for o in full:
                assert book.submit(power, o).note.accepted, (state.phase.name, str(o))
            assert book.complete(power)
            kinds.update(
                type(o).__name__ + ("+via" if getattr(o, "via", None) else "") for o in orders
            )
    assert {"Hold", "Move", "SupportHold", "SupportMove", "Convoy", "Move+via"} <= kinds
    assert {"Retreat", "Build", "Remove"} <= kinds


def test_randombot_is_uniform_over_a_units_orders() -> None:
    state = initial_state(load_map("standard"))
    counts: dict[str, int] = {}
    rng = random.Random(1)
    for _ in range(3000):
        (order,) = [o for o in RandomBot().orders(View(state, "ITA", rng)) if order_key(o) == "ROM"]
        counts[str(order)] = counts.get(str(order), 0) + 1
    options = legal_orders(state, "ITA")["ROM"]
    assert len(counts) == len(options)
    assert max(counts.values()) < 2 * min(counts.values())


def test_convoy_moves_get_a_route() -> None:
    state = make_state(
        G,
        Phase.parse("S1901M"),
        [parse_unit(u, G) for u in ("ENG A LON", "ENG F NTH", "ENG F NWG")],
        HOMES,
    )
    assert convoy_route(state, "LON", "NWY") == ("NTH",)
    assert convoy_route(state, "LON", "BEL") == ("NTH",)
    assert convoy_route(state, "LON", "BAR") is None  # Barents is sea, not a landing
    army = parse_unit("ENG A LON", G)
    # A plain move to a province the army cannot walk to becomes a CTO with its route.
    assert daide_orders(state, [Move(army, "NWY")]) == [Move(army, "NWY", True, ("NTH",))]
    assert daide_orders(state, [Move(army, "WAL")]) == [Move(army, "WAL")]
    assert daide_orders(state, [Move(army, "TUN")]) == []  # impossible: dropped


def test_defaults_and_completion() -> None:
    a = parse_unit("FRA A BUR", G)
    state = make_state(G, Phase.parse("S1901R"), [], HOMES, [Dislodged(a, "MUN", ("PAR",))])
    assert default_orders(state, "FRA") == [Disband(a)]
    assert complete_orders(state, "FRA", [Retreat(a, "PAR")]) == [Retreat(a, "PAR")]
    winter = make_state(G, Phase.parse("W1901A"), [parse_unit("ENG F LON", G)], HOMES)
    site = parse_unit("ENG F EDI", G)
    assert complete_orders(winter, "ENG", [Build(site)]) == [Build(site), Waive("ENG")]
    # Removals: the unit farthest from an owned centre goes first.
    units = [parse_unit(u, G) for u in ("TUR A CON", "TUR A SMY", "TUR F ANK", "TUR F NAO")]
    state = make_state(G, Phase.parse("W1901A"), units, HOMES)
    assert default_orders(state, "TUR") == [Remove(units[3])]


def test_the_readme_example_bot_plays() -> None:
    from pathlib import Path

    from diplomat import bots

    text = (Path(bots.__file__).parent / "README.md").read_text()
    code = text.split("```python\n")[1].split("```")[0]
    assert len(code.splitlines()) <= 40  # "a 20-line affair" (plus imports and main)
    namespace: dict[str, Any] = {"__name__": "example"}
    exec(compile(code, "README.md", "exec"), namespace)
    grabber = namespace["Grabber"]()
    rng = random.Random(0)
    start = initial_state(load_map("standard"))
    orders = grabber.orders(View(start, "TUR", rng))
    assert {str(o) for o in orders} >= {"A CON - BUL"}
    for step in random_game(STANDARD_START, 2, max_year=1903):
        for power in G.powers:
            given = grabber.orders(View(step.state, power, rng))
            book = OrderSet(step.state)
            for o in daide_orders(step.state, complete_orders(step.state, power, given)):
                assert book.submit(power, o).note.accepted


def test_every_bundled_bot_describes_itself_in_whole_sentences() -> None:
    """--help gives the module docstring's first paragraph, never a line cut mid-sentence."""
    from diplomat.bots.commandline import build_parser
    from diplomat.bots.registry import REGISTRY

    for bundled in REGISTRY.values():
        description = build_parser(bundled.bot_class()).description
        assert description is not None and description.endswith((".", ")")), bundled.name
