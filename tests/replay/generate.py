"""Regenerate the sample games in this folder with the ``diplomacy`` package.

Not part of the project and never imported by it: run it with a scratch virtual environment
that has the package, e.g.::

    python3 -m venv /tmp/dipvenv && /tmp/dipvenv/bin/pip install diplomacy
    /tmp/dipvenv/bin/python tests/replay/generate.py tests/replay

Each game is written by the package's own ``to_saved_game_format`` (one JSON line per game).
Random games pick, for every unit, one of the package's possible orders, then often make a
chosen support or convoy real (the supported unit makes that move, the convoyed army moves
"VIA" and other fleets join the convoy), so that dislodgements, retreats and convoys happen;
sometimes a power gives no orders or too few removals, so civil disorder happens too.
Scenario games start from a position set on the board and play scripted orders that hit the
package's DATC 2.x choices and its deviations one phase at a time.
"""

from __future__ import annotations

import gzip
import json
import os
import random
import sys
from typing import Any

from diplomacy import Game  # type: ignore[import-not-found, import-untyped, unused-ignore]
from diplomacy.utils.export import to_saved_game_format  # type: ignore[import-not-found, import-untyped, unused-ignore]


def random_game(
    seed: int, phases: int, rules: list[str] | None = None, map_name: str = "standard"
) -> Any:
    game = Game(rules=rules, map_name=map_name) if rules else Game(map_name=map_name)
    rng = random.Random(seed)
    for _ in range(phases):
        if game.is_game_done:
            break
        possible = game.get_all_possible_orders()
        kind = game.get_current_phase()[-1]
        chosen: dict[str, str] = {}
        owner: dict[str, str] = {}
        for power in game.powers:
            if kind != "M" and rng.random() < 0.25:
                continue  # no orders: retreats disband, removals by civil disorder
            # Sorted: the package's lists come from sets, whose order varies between runs.
            for loc in sorted(game.get_orderable_locations(power)):
                if possible.get(loc):
                    chosen[loc] = rng.choice(sorted(possible[loc]))
                    owner[loc] = power
        if kind == "M":
            _coordinate(chosen, possible, rng)
        by_power: dict[str, list[str]] = {}
        for loc, order in chosen.items():
            by_power.setdefault(owner[loc], []).append(order)
        for power in game.powers:
            orders = by_power.get(power, [])
            if kind == "A" and orders and rng.random() < 0.2:
                orders = orders[: rng.randrange(len(orders))]
            game.set_orders(power, orders)
        game.process()
    return game


def _coordinate(chosen: dict[str, str], possible: dict[str, list[str]], rng: random.Random) -> None:
    for order in list(chosen.values()):
        words = order.split()
        if len(words) < 7 or words[2] not in ("S", "C") or words[5] != "-" or rng.random() > 0.85:
            continue
        target, move = words[4], f"{words[3]} {words[4]} - {words[6]}"
        if target not in chosen:
            continue
        options = sorted(o for o in possible.get(target, []) if o.startswith(move))
        if not options:
            continue
        chosen[target] = rng.choice(options)
        if words[2] == "C":
            convoy = f" C {move}"
            for loc, opts in sorted(possible.items()):
                if loc in chosen and rng.random() < 0.7:
                    for o in sorted(opts):
                        if o.endswith(convoy):
                            chosen[loc] = o


def scripted_game(
    units: dict[str, list[str]], centres: dict[str, list[str]], turns: list[dict[str, list[str]]]
) -> Any:
    game = Game()
    game.clear_units()
    game.clear_centers()
    for power, us in units.items():
        game.set_units(power, us)
    for power, cs in centres.items():
        game.set_centers(power, cs)
    for orders in turns:
        for power, os_ in orders.items():
            game.set_orders(power, os_)
        game.process()
    return game


# One phase for each of the package's documented rule choices, then a plain retreat.
CHOICES_UNITS = {
    "FRANCE": ["F POR", "F MAO", "F NWG", "F NTH", "A BEL"],
    "AUSTRIA": ["F LYO", "F WES"],
    "ENGLAND": ["A NWY", "F DEN", "F FIN"],
    "GERMANY": ["F SKA", "A HOL"],
    "RUSSIA": ["A SWE", "F BAR", "A SEV"],
    "ITALY": ["A WAR", "A TUS"],
    "TURKEY": ["A ARM", "F BLA"],
}
CHOICES_CENTRES = {
    "FRANCE": ["POR", "BEL", "BRE", "PAR", "MAR"],
    "AUSTRIA": ["TUN", "TRI"],
    "ENGLAND": ["NWY", "DEN", "LON"],
    "GERMANY": ["HOL", "KIE"],
    "RUSSIA": ["SWE", "SEV", "MOS"],
    "ITALY": ["WAR"],
    "TURKEY": ["ANK", "CON"],
}
CHOICES_TURNS = [
    # S1901M, DATC 6.B.9: a support naming the wrong coast (void in 3.0, counted by the
    # package). The package saves the support without its coast, so the phase agrees.
    {
        "FRANCE": ["F POR S F MAO - SPA/NC", "F MAO - SPA/SC"],
        "AUSTRIA": ["F LYO S F WES - SPA/SC", "F WES - SPA/SC"],
    },
    # F1901M, DATC 6.G.10: Sweden is dislodged by a convoyed army; may it retreat to Norway?
    {
        "ENGLAND": ["A NWY - SWE VIA", "F DEN S A NWY - SWE", "F FIN S A NWY - SWE"],
        "GERMANY": ["F SKA C A NWY - SWE"],
        "RUSSIA": ["A SWE - NWY", "F BAR S A SWE - NWY"],
        "FRANCE": ["F NWG - NWY", "F NTH S F NWG - NWY"],
    },
    # F1901R: the package offers Norway.
    {"RUSSIA": ["A SWE R NWY"]},
    # W1901A, DATC 6.J.11: Italy owns only Warsaw and removes nothing.
    {},
    # S1902M, DATC 6.G.8: a move via convoy with no convoy ordered; and a plain dislodgement.
    {
        "FRANCE": ["A BEL - HOL VIA", "F NTH - HEL"],
        "GERMANY": ["A HOL - KIE"],
        "TURKEY": ["A ARM - SEV", "F BLA S A ARM - SEV"],
    },
    # S1902R
    {"RUSSIA": ["A SEV R UKR"]},
]

# France takes an 18th centre in the Fall: the package ends the game (COMPLETED).
SOLO_UNITS = {
    "FRANCE": [
        "A PAR", "A MAR", "F BRE", "A POR", "A BEL", "A HOL", "A MUN", "A KIE", "A BER",
        "A DEN", "A NWY", "A SWE", "A LON", "A LVP", "A EDI", "A VEN", "A ROM", "A NAF",
    ],
    "ITALY": ["A NAP"],
}  # fmt: skip
SOLO_CENTRES = {
    "FRANCE": [
        "PAR", "MAR", "BRE", "POR", "BEL", "HOL", "MUN", "KIE", "BER", "DEN", "NWY", "SWE",
        "LON", "LVP", "EDI", "VEN", "ROM",
    ],
    "ITALY": ["NAP"],
}  # fmt: skip
SOLO_TURNS: list[dict[str, list[str]]] = [{}, {"FRANCE": ["A NAF - TUN"]}]

# The package lets a supporter of the defender's own power help a convoyed army dislodge it
# (DATC 3.0 does not count that support): England's own support dislodges its F YOR.
DEVIATION_UNITS = {
    "FRANCE": ["A BEL"],
    "GERMANY": ["F NTH"],
    "ENGLAND": ["F YOR", "F EDI"],
}
DEVIATION_CENTRES = {"FRANCE": ["BEL"], "ENGLAND": ["EDI"]}
DEVIATION_TURNS = [
    {
        "FRANCE": ["A BEL - YOR VIA"],
        "GERMANY": ["F NTH C A BEL - YOR"],
        "ENGLAND": ["F YOR H", "F EDI S A BEL - YOR"],
    }
]


# Positions on which the package's rules differ from DATC 3.0 beyond its documented choices,
# one game each (replayed with no difference under ``--rules package``).
PACKAGE_RULE_GAMES: list[
    tuple[dict[str, list[str]], dict[str, list[str]], list[dict[str, list[str]]]]
] = [
    # DATC 6.G.6-like: Turkey convoys its own army to an adjacent province without "VIA"; the
    # convoy is disrupted and the package moves the army over land (DATC 3.0: it fails).
    (
        {"TURKEY": ["A ANK", "F BLA"], "RUSSIA": ["F SEV", "F RUM"]},
        {"TURKEY": ["ANK"], "RUSSIA": ["SEV", "RUM"]},
        [
            {
                "TURKEY": ["A ANK - ARM", "F BLA C A ANK - ARM"],
                "RUSSIA": ["F SEV - BLA", "F RUM S F SEV - BLA"],
            }
        ],
    ),
    # A head-to-head battle in which each side has a support from the other side's power:
    # the package counts neither (DATC 3.0 counts Russia's for Turkey's defence: a standoff).
    (
        {"RUSSIA": ["F SEV", "A UKR"], "TURKEY": ["A RUM", "F BUL/EC"], "AUSTRIA": ["A GAL"]},
        {"RUSSIA": ["SEV"], "TURKEY": ["RUM"], "AUSTRIA": ["VIE"]},
        [
            {
                "RUSSIA": ["F SEV - RUM", "A UKR S A RUM - SEV"],
                "TURKEY": ["A RUM - SEV", "F BUL S F SEV - RUM"],
                "AUSTRIA": ["A GAL S F SEV - RUM"],
            }
        ],
    ),
    # DATC 6.G.10 with a standoff: the package lets the unit dislodged by a convoyed army
    # retreat into the province left empty by a standoff (Norway).
    (
        {"ENGLAND": ["A NWY", "F SKA", "F DEN", "F NTH"], "RUSSIA": ["A SWE", "F BAR"]},
        {"ENGLAND": ["NWY", "DEN"], "RUSSIA": ["SWE"]},
        [
            {
                "ENGLAND": [
                    "A NWY - SWE VIA",
                    "F SKA C A NWY - SWE",
                    "F DEN S A NWY - SWE",
                    "F NTH - NWY",
                ],
                "RUSSIA": ["A SWE H", "F BAR - NWY"],
            },
            {"RUSSIA": ["A SWE R NWY"]},
        ],
    ),
]


def random_corpus(path: str, games: int = 40, phases: int = 12) -> None:
    """Random games of a few years each, one JSON line per game, gzipped (``diplomat
    replay`` reads it so): one in five on Fleet Rome, one in seven keeping empty phases
    (``DONT_SKIP_PHASES``)."""
    lines = []
    for seed in range(100, 100 + games):
        rules = ["DONT_SKIP_PHASES"] if seed % 7 == 0 else None
        map_name = "standard_fleet_rome" if seed % 5 == 0 else "standard"
        game = random_game(seed, phases, rules, map_name)
        lines.append(json.dumps(to_saved_game_format(game)) + "\n")
    # mtime 0: the same games give the same bytes
    with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as out:
        out.write("".join(lines).encode())
    print(path, games, "games")


def save(game: Any, path: str) -> None:
    if os.path.exists(path):
        os.remove(path)  # the package appends
    to_saved_game_format(game, output_path=path)
    print(path, [p.name for p in game.get_phase_history()] + [game.get_current_phase()])


def main(folder: str) -> None:
    save(random_game(18, 24), os.path.join(folder, "random_18.json"))
    save(random_game(39, 24), os.path.join(folder, "random_39.json"))
    save(random_game(5, 12, ["DONT_SKIP_PHASES"]), os.path.join(folder, "dont_skip_5.json"))
    # A variant both projects ship: Fleet Rome (the standard map, Italy's army in Rome a fleet).
    save(
        random_game(7, 24, map_name="standard_fleet_rome"),
        os.path.join(folder, "fleet_rome_7.json"),
    )
    save(
        scripted_game(CHOICES_UNITS, CHOICES_CENTRES, CHOICES_TURNS),
        os.path.join(folder, "rule_choices.json"),
    )
    save(scripted_game(SOLO_UNITS, SOLO_CENTRES, SOLO_TURNS), os.path.join(folder, "solo.json"))
    save(
        scripted_game(DEVIATION_UNITS, DEVIATION_CENTRES, DEVIATION_TURNS),
        os.path.join(folder, "package_deviation.json"),
    )
    rules_path = os.path.join(folder, "package_rules.jsonl")
    if os.path.exists(rules_path):
        os.remove(rules_path)
    for units, centres, turns in PACKAGE_RULE_GAMES:
        to_saved_game_format(scripted_game(units, centres, turns), output_path=rules_path)
    random_corpus(os.path.join(folder, "corpus.jsonl.gz"))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(__file__))
