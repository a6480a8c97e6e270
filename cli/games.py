"""``diplomat games`` and ``diplomat show``: the stored games, for people and for tools."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from diplomat.cli.options import add_db_option, open_game, open_store
from diplomat.server.settings import default_db_path
from diplomat.server.store import centre_counts

HIDDEN = "abandoned"  # games a tournament or server gave up on: listed with --all only


def register(sub: Any) -> None:
    p = sub.add_parser("games", help="list stored games", description="List the stored games.")
    add_db_option(p)
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--all", action="store_true", help=f"also list {HIDDEN} games")
    p.set_defaults(handler=_games)

    p = sub.add_parser(
        "show",
        help="print a stored game's history",
        description="Print a stored game: its players, then per phase the orders with what "
        "became of them, and the supply centres each power held at the end of each year.",
    )
    p.add_argument("game", type=int, help="game id (see diplomat games)")
    add_db_option(p)
    form = p.add_mutually_exclusive_group()
    form.add_argument("--json", action="store_true", help="print JSON for tools")
    form.add_argument(
        "--daide", action="store_true", help="print the orders and results as DAIDE ORD messages"
    )
    form.add_argument(
        "--format",
        choices=["diplomacy"],
        help="print the game as the diplomacy Python package saves games (its saved-game JSON)",
    )
    p.add_argument(
        "--press",
        action="store_true",
        help="print only the game's press, by phase, as English sentences (with --daide: as DAIDE)",
    )
    p.set_defaults(handler=_show)


def _games(args: argparse.Namespace) -> int:
    if not Path(args.db or default_db_path()).exists():
        print("[]" if args.json else "no games yet")
        return 0
    store = open_store(args, must_exist=True)
    if store is None:
        return 2
    every = store.games()
    rows = every if args.all else [r for r in every if r.status != HIDDEN]
    if args.json:
        print(json.dumps([_game_json(store, r) for r in rows], indent=1))
        return 0
    hidden = len(every) - len(rows)
    if not rows:
        print("no games yet" if not every else "no games")
    else:
        for line in _table(rows):
            print(line)
    if hidden:
        print(f"({hidden} {HIDDEN} game{'s' if hidden != 1 else ''} not listed: --all lists them)")
    return 0


def _table(rows: list[Any]) -> list[str]:
    """One line per game, every column as wide as its widest cell (nothing is cut); the
    result, the longest, last."""
    head = ("id", "status", "phase", "name", "result")
    cells = [(str(r.id), r.status, r.phase or "-", r.name, _result_text(r.result)) for r in rows]
    widths = [max(len(c[k]) for c in [head, *cells]) for k in range(len(head) - 1)]
    out = []
    for c in [head, *cells]:
        first = c[0].rjust(widths[0])
        middle = [c[k].ljust(widths[k]) for k in range(1, len(widths))]
        out.append("  ".join([first, *middle, c[-1]]).rstrip())
    return out


def _result_text(result: dict[str, Any] | None) -> str:
    if not result:
        return "-"
    if result["kind"] == "solo":
        return f"solo {result['powers'][0]} {result['year']}"
    return f"draw {' '.join(result['powers'])}"


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


def _player_status(status: str, eliminated: int | None) -> str:
    """``eliminated 1906``, ``crashed, eliminated 1906``, ``playing``."""
    if not eliminated:
        return status
    if status == "eliminated":
        return f"eliminated {eliminated}"
    return f"{status}, eliminated {eliminated}"


def _show(args: argparse.Namespace) -> int:
    opened = open_game(args)
    if opened is None:
        return 2
    store, row = opened
    if args.format == "diplomacy":
        return _show_package(store, row.id, row.settings.get("map", "standard"))
    states = store.states(row.id)
    results = store.results(row.id)
    by_phase: dict[str, list[tuple[str, str]]] = {}
    for phase, power, text in results:
        by_phase.setdefault(phase, []).append((power, text))
    press = store.press(row.id)
    if args.press and not args.json:
        _show_press(row, states, press, args.daide)
        return 0
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
        print(
            f"  {p.power}: {p.name} {p.version}{label} ({_player_status(p.status, p.eliminated)})"
        )
    if args.daide:
        _show_daide(states, by_phase, press)
    else:
        _show_readable(
            states, by_phase, press, _PressReader(row), row.settings.get("map", "standard")
        )
    return 0


def _show_package(store: Any, game_id: int, map_name: str) -> int:
    from diplomat.dipnet.stored import ExportError, stored_saved_game

    try:
        data = stored_saved_game(store, game_id, map_name)
    except ExportError as exc:
        print(f"diplomat show: {exc}", file=sys.stderr)
        return 1
    print(json.dumps(data))
    return 0


def _show_daide(
    states: list[tuple[str, dict[str, Any]]],
    by_phase: dict[str, list[tuple[str, str]]],
    press: list[Any],
) -> None:
    """Per phase: the centres held, each ORD message as stored, the press."""
    for phase, state in states:
        centres = " ".join(f"{pw}:{n}" for pw, n in centre_counts(state).items() if n)
        print(f"\n{phase}  centres {centres}")
        for _power, text in by_phase.get(phase, []):
            print(f"  {text}")
        _print_press(press, phase)


def _show_readable(
    states: list[tuple[str, dict[str, Any]]],
    by_phase: dict[str, list[tuple[str, str]]],
    press: list[Any],
    reader: _PressReader,
    map_name: str = "standard",
) -> None:
    """Per phase its name as players say it and the orders by power (``A BUD - SER``) with
    what became of them; after each year, the centres each power holds."""
    from diplomat.engine.map import MapError, load_map
    from diplomat.engine.notation import phase_title
    from diplomat.engine.orders import Waive
    from diplomat.engine.state import Phase
    from diplomat.protocol import messages
    from diplomat.protocol.codec import codec_for
    from diplomat.protocol.mdf import table_for_map
    from diplomat.protocol.tokens import STANDARD

    try:
        table = table_for_map(load_map(map_name))  # the game's map's names
    except MapError:
        table = STANDARD  # the map file is gone: what parses is still shown
    codec = codec_for(table)
    for k, (phase, _state) in enumerate(states):
        lines = by_phase.get(phase, [])
        if lines or k == len(states) - 1:
            print(f"\n{phase_title(Phase.parse(phase))} ({phase})")
        last_power = ""
        for power, text in lines:
            msg = codec.parse_text(text)
            if not isinstance(msg, messages.Ord) or msg.order is None:
                print(f"  {text}")
                continue
            outcome = _outcome_words(msg.result)
            shown = power if power != last_power else ""
            last_power = power
            order = "waives a build" if isinstance(msg.order, Waive) else str(msg.order)
            print(f"  {shown:3}  {order}" + (f"  ({outcome})" if outcome else ""))
        _print_press(press, phase, reader)
        nxt = states[k + 1][1] if k + 1 < len(states) else None
        year = Phase.parse(phase).year
        if nxt is not None and Phase.parse(states[k + 1][0]).year != year:
            print(f"\ncentres at the end of {year}: {_centre_counts(nxt)}")
    if len(states) > 1 and Phase.parse(states[-2][0]).year == Phase.parse(states[-1][0]).year:
        print(f"\ncentres now: {_centre_counts(states[-1][1])}")


def _centre_counts(state: dict[str, Any]) -> str:
    counts = sorted(
        ((pw, n) for pw, n in centre_counts(state).items() if n), key=lambda x: (-x[1], x[0])
    )
    return ", ".join(f"{pw} {n}" for pw, n in counts)


def _outcome_words(result: Any) -> str:
    """What became of an order: ``bounced``, ``cut, dislodged``, or nothing when it worked."""
    from diplomat.engine.orders import NOTE_TEXT, Outcome, Result

    words = {
        Outcome.SUC: "",
        Outcome.BNC: "bounced",
        Outcome.CUT: "cut",
        Outcome.DSR: "disrupted",
        Outcome.NSO: "void",
    }
    if isinstance(result, Result):
        said = [words.get(result.outcome, result.outcome.value)]
        dislodged = result.dislodged
    elif result is not None:
        said = [NOTE_TEXT.get(result.note, result.note.value)] if result.note is not None else []
        dislodged = result.retreat
    else:
        return ""
    if dislodged:
        said.append("dislodged")
    return ", ".join(w for w in said if w)


def _show_press(row: Any, states: list[tuple[str, Any]], press: list[Any], daide: bool) -> None:
    """The press alone, under each phase's name, as English sentences; the machine handshake
    (TRY, HUH) is left out and counted, unless ``daide``: then every message, each sentence
    followed by its DAIDE."""
    from diplomat.engine.notation import phase_title
    from diplomat.engine.state import Phase

    level = row.settings.get("level", 0)
    if not press:
        why = " (a gunboat game: press level 0)" if not level else ""
        print(f"no press in game {row.id}{why}")
        return
    reader = _PressReader(row)
    last = None
    hidden = 0
    for p in press:
        if not daide and reader.handshake(p):
            hidden += 1
            continue
        if p.phase != last:
            print(f"\n{phase_title(Phase.parse(p.phase))} ({p.phase})")
            last = p.phase
        print(f"  {reader.english(p)}")
        if daide:
            print(f"    FRM ( {p.sender} ) ( {' '.join(p.recipients)} ) ( {p.body} )")
    if hidden:
        print(
            f"\n({hidden} protocol message{'s' if hidden != 1 else ''} between bots left out: "
            "TRY and HUH; --daide shows them)"
        )


class _PressReader:
    """Stored press rows read with the game's own map and tokens: as sentences, and whether
    a row is the machine handshake."""

    def __init__(self, row: Any) -> None:
        from diplomat.engine.map import MapError, load_map
        from diplomat.protocol.codec import codec_for
        from diplomat.protocol.english import Names
        from diplomat.protocol.mdf import table_for_map
        from diplomat.protocol.tokens import STANDARD

        try:
            gmap = load_map(row.settings.get("map", "standard"))
        except MapError:  # the map file is gone: what parses is still shown, by its tokens
            self.codec = codec_for(STANDARD)
            self.names = Names(table=STANDARD)
            return
        self.codec = codec_for(table_for_map(gmap))
        self.names = Names.of_map(gmap)

    def _parse(self, p: Any) -> Any:
        from diplomat.protocol import messages
        from diplomat.protocol.syntax import ParseError

        try:
            msg = self.codec.parse_text(
                f"FRM ( {p.sender} ) ( {' '.join(p.recipients)} ) ( {p.body} )"
            )
        except ParseError:
            return None
        return msg if isinstance(msg, messages.Frm) else None

    def handshake(self, p: Any) -> bool:
        from diplomat.protocol.english import handshake

        msg = self._parse(p)
        return msg is not None and handshake(msg.press)

    def english(self, p: Any) -> str:
        from diplomat.protocol.english import sentence

        msg = self._parse(p)
        if msg is None:
            return f"{p.sender} to {' '.join(p.recipients)}: {p.body}"
        return sentence(msg.sender, msg.recipients, msg.press, self.names)


def _print_press(press: list[Any], phase: str, reader: _PressReader | None = None) -> None:
    """A phase's press: as sentences without the machine handshake (``reader``), or as
    stored."""
    for p in press:
        if p.phase == phase:
            if reader is not None:
                if not reader.handshake(p):
                    print(f"  press: {reader.english(p)}")
            else:
                print(f"  press {p.sender} -> {' '.join(p.recipients)}: {p.body}")
