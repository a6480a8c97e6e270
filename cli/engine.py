"""``diplomat datc``, ``diplomat replay`` and ``diplomat demo``: the rules engine's commands."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from diplomat.engine.rules import RULE_SETS


def register(sub: Any) -> None:
    p = sub.add_parser(
        "datc",
        help="run DATC case files (jDip text format)",
        description="Run DATC test cases in the jDip text format (DAIDE or jDip/godip province "
        "names). Prints one line per case and 'N passed, M failed'; exit status 1 if any failed. "
        "Orders may end with a result marker ('=> bounces', '=> illegal NSU' ...), which is "
        "checked; a file without any marker (a standard DATC file) is judged on positions, "
        "and the orders the engine refused are listed as notes.",
    )
    p.add_argument("files", nargs="+", metavar="FILE")
    p.add_argument("-q", "--quiet", action="store_true", help="print only failures and the total")
    p.add_argument(
        "--map",
        default="standard",
        metavar="NAME",
        help="the map the cases are set on: a bundled map or a map file (default: standard)",
    )
    p.set_defaults(handler=_datc)
    register_demo(sub)
    register_replay(sub)


def _datc(args: argparse.Namespace) -> int:
    from diplomat.engine.datc import CaseFileError, has_markers, run_file
    from diplomat.engine.map import MapError, load_map

    try:
        gmap = load_map(args.map)
    except MapError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    passed = failed = 0
    for path in args.files:
        try:
            results = run_file(path, gmap)
        except CaseFileError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        if results and not has_markers([r.case for r in results]) and not args.quiet:
            print(
                f"{path}: no result markers: judged on positions; refused orders are notes",
                file=sys.stderr,
            )
        for r in results:
            if r.passed:
                passed += 1
                if not args.quiet:
                    print(f"PASS {r.case.name}")
            else:
                failed += 1
                print(f"FAIL {r.case.name} ({path}:{r.case.line}): {'; '.join(r.problems)}")
            if not args.quiet:
                for note in r.notes:
                    print(f"  note: {note}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


def register_demo(sub: Any) -> None:
    p = sub.add_parser(
        "demo",
        help="play one game of random legal orders and print each phase",
        description="Play a game of uniformly random legal orders with the rules engine and "
        "print each phase's centre counts (a quick look at the engine; no server involved).",
    )
    p.add_argument("--seed", type=int, default=1, metavar="N", help="random seed (default 1)")
    p.add_argument(
        "--max-year",
        type=int,
        metavar="YEAR",
        help="last year to play (default: the map's tenth, 1910 on the standard map)",
    )
    p.add_argument("--orders", action="store_true", help="also print every order and result")
    p.add_argument("--map", default="standard", metavar="NAME", help="map (default: standard)")
    p.set_defaults(handler=_demo)


def _demo(args: argparse.Namespace) -> int:
    from diplomat.engine.map import MapError, load_map
    from diplomat.engine.orders import Waive, order_power
    from diplomat.engine.simulate import random_game
    from diplomat.engine.state import initial_state

    try:
        gmap = load_map(args.map)
    except MapError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    max_year = args.max_year if args.max_year is not None else gmap.start_year + 9
    final = None
    for step in random_game(initial_state(gmap), args.seed, max_year):
        res = step.result
        counts = " ".join(f"{p}:{n}" for p, n in res.state.centre_counts().items())
        print(f"{res.phase.name:8} -> {res.state.phase.name:8} centres {counts}")
        if args.orders:
            for order, result in res.results:
                power = order_power(order)
                text = "waives a build" if isinstance(order, Waive) else str(order)
                print(f"    {power} {text}  {result}")
        final = res.state
    if final is not None:
        winner = final.winner()
        print(f"game over: {'solo by ' + winner if winner else 'no solo by ' + str(max_year)}")
    return 0


def register_replay(sub: Any) -> None:
    p = sub.add_parser(
        "replay",
        help="re-adjudicate a game saved by the diplomacy Python package",
        description="Re-adjudicate, phase by phase, a game saved by the 'diplomacy' Python "
        "package (its saved-game JSON) and compare each resulting position, and each order's "
        "result where both engines define it, with the saved ones. "
        "Prints the first phase that differs in full, one line per phase that differs only by "
        "a documented DATC 2.x-vs-3.0 rule choice, and 'N phases agree, M differ'. Exit status "
        "1 if any phase differs, 2 if the file cannot be read.",
    )
    p.add_argument("file", metavar="GAME.json")
    p.add_argument("--all", action="store_true", help="print every differing phase in full")
    p.add_argument("-v", "--verbose", action="store_true", help="also list agreeing phases")
    p.add_argument(
        "--map",
        metavar="NAME",
        help="the map to replay on (default: the game's, for the package's standard and "
        "standard_fleet_rome maps)",
    )
    p.add_argument(
        "--rules",
        choices=sorted(RULE_SETS),
        default="datc",
        help="the rule set to adjudicate by: datc (default; differences the package's own "
        "choices explain are reported as rule choices) or package (the package's choices, "
        "under which its games replay with no phase differing)",
    )
    p.set_defaults(handler=_replay)


def _replay(args: argparse.Namespace) -> int:
    from diplomat.replay.games import replay_file

    status, lines = replay_file(
        args.file,
        every_diff=args.all,
        verbose=args.verbose,
        map_name=args.map,
        rules=RULE_SETS[args.rules],
    )
    out = sys.stderr if status == 2 else sys.stdout
    for line in lines:
        print(line, file=out)
    return status
