"""``diplomat games`` and ``diplomat show``: the stored games, for people and for tools."""

from __future__ import annotations

import argparse
import json
from typing import Any

from cli.options import add_db_option, open_game, open_store


def register(sub: Any) -> None:
    p = sub.add_parser("games", help="list stored games", description="List the stored games.")
    add_db_option(p)
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler=_games)

    p = sub.add_parser(
        "show",
        help="print a stored game's history",
        description="Print a stored game: players, and per phase the orders with their "
        "results and the supply centres.",
    )
    p.add_argument("game", type=int, help="game id (see diplomat games)")
    add_db_option(p)
    p.add_argument("--json", action="store_true", help="print JSON for tools")
    p.set_defaults(handler=_show)

def _games(args: argparse.Namespace) -> int:
    store = open_store(args, must_exist=True)
    if store is None:
        return 2
    rows = store.games()
    if args.json:
        print(json.dumps([_game_json(store, r) for r in rows], indent=1))
        return 0
    if not rows:
        print("no games")
        return 0
    print(f"{'id':>5}  {'status':9} {'phase':7} {'result':30} name")
    for r in rows:
        print(f"{r.id:>5}  {r.status:9} {r.phase or '-':7} {_result_text(r.result):30} {r.name}")
    return 0


def _result_text(result: dict[str, Any] | None) -> str:
    if not result:
        return "-"
    if result["kind"] == "solo":
        return f"solo {result['powers'][0]} {result['year']}"
    return f"draw {' '.join(result['powers'])}"[:30]


def _game_json(store: Any, row: Any) -> dict[str, Any]:
    return {
        "id": row.id,
        "name": row.name,
        "status": row.status,
        "phase": row.phase,
        "tournament": row.tournament,
        "settings": row.settings,
        "result": row.result,
        "players": [
            {
                "power": p.power,
                "name": p.name,
                "version": p.version,
                "label": p.label,
                "status": p.status,
                "eliminated": p.eliminated,
            }
            for p in store.players(row.id)
        ],
    }


def _show(args: argparse.Namespace) -> int:
    opened = open_game(args)
    if opened is None:
        return 2
    store, row = opened
    states = store.states(row.id)
    results = store.results(row.id)
    by_phase: dict[str, list[tuple[str, str]]] = {}
    for phase, power, text in results:
        by_phase.setdefault(phase, []).append((power, text))
    press = store.press(row.id)
    if args.json:
        data = _game_json(store, row)
        data["phases"] = [
            {
                "phase": phase,
                "state": state,
                "results": [{"power": p, "ord": t} for p, t in by_phase.get(phase, [])],
            }
            for phase, state in states
        ]
        data["press"] = [
            {
                "phase": p.phase,
                "from": p.sender,
                "to": list(p.recipients),
                "message": p.body,
            }
            for p in press
        ]
        print(json.dumps(data, indent=1))
        return 0
    print(f"game {row.id} ({row.name}): {row.status}, {_result_text(row.result)}")
    settings = ", ".join(f"{k}={v}" for k, v in row.settings.items() if v not in (None, False))
    print(f"settings: {settings}")
    for p in store.players(row.id):
        label = f" [{p.label}]" if p.label else ""
        out = f", eliminated {p.eliminated}" if p.eliminated else ""
        print(f"  {p.power}: {p.name} {p.version}{label} ({p.status}{out})")
    for phase, state in states:
        centres = " ".join(f"{pw}:{len(cs)}" for pw, cs in state["centres"].items() if cs)
        print(f"\n{phase}  centres {centres}")
        for _power, text in by_phase.get(phase, []):
            print(f"  {text}")
        for p in press:
            if p.phase == phase:
                print(f"  press {p.sender} -> {' '.join(p.recipients)}: {p.body}")
    return 0
