"""What talking is worth: negotiating bots against silent ones, seats rotated, 95 % intervals.

    python bench/press.py                                   # every figure, 7 games each
    python bench/press.py --figures pair,ceiling --games 140 --think 0.25
    python bench/press.py --figures pool --games 28 --json press.jsonl

Figures (press level 30, games to --max-year, every Bordeaux with the same budget a decision:
``--think`` seconds, or ``--nodes``, the same search whatever the load):

* ``pair``: two negotiating Bordeaux (``talk``) and five silent ones (``bx``): each talker's
  Sum-of-Squares share against the silent seats' (the issue's bar: 1.5 times);
* ``ceiling``: the same with the two told at the start that they are allies (``--pact``: both
  propose an alliance to every power in the first phase, so the two find each other at once);
* ``one``: one negotiator among six silent Bordeaux: talking to nobody should cost nothing
  (an equal share is 1/7);
* ``liar``: an honest negotiator, a liar (``--honesty 0``) and five silent Bordeaux: the honest
  one should keep at least 0.9 of a silent seat's share;
* ``pool``: a field of different diplomats (``--pool``): both cores, several personalities,
  silent Bordeaux and DumbBots, seven drawn a game.

Per figure it prints each label's games, solos, mean centres and Sum-of-Squares (95 %
interval), the talk per game (proposals sent and agreed, messages per movement phase, seconds
of talk per movement phase, from the negotiators' logs and the game's press), the agreements
its seats were party to and how many were kept, and broken by them, judged from the game's
record (its press, states and results) by the law of agreements (``protocol.agreements``,
the same verdicts the page shows), and every HUH or refusal the server gave a negotiator's
press (there should be none), with the machine's load before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import trio

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from collections.abc import Sequence

from diplomat.engine.map import load_map
from diplomat.engine.orders import Order
from diplomat.engine.state import GameState, Phase
from diplomat.protocol import messages
from diplomat.protocol.agreements import Verdict
from diplomat.protocol.codec import codec_for
from diplomat.protocol.mdf import table_for_map
from diplomat.protocol.pressbook import PressItem, agreements, outcomes
from diplomat.protocol.tokens import TokenTable
from diplomat.server.logs import configure_logging
from diplomat.server.settings import GameSettings
from diplomat.server.store import Store
from diplomat.tournament.runner import Tournament, parse_lineup
from diplomat.tournament.scoring import GameResult, scored, summarise
from diplomat.web.press import stored_items

FIGURES = ("pair", "ceiling", "one", "liar", "pool")
SUMMARY = re.compile(r"negotiation summary (\{.*\})")
PRESS_TROUBLE = re.compile(r"the server did not understand us|press refused|not sent \(press level")


def seats_for(figure: str, budget: str) -> tuple[list[str], bool]:
    """The seat words of a figure, every Bordeaux with ``budget`` (``--think S`` or
    ``--nodes N``), and whether they are a pool."""
    bx = f"bordeaux {budget}"
    talk = f"bordeaux -v --negotiate {budget}"
    if figure == "pair":
        return [f"talk={talk}:2", f"bx={bx}:5"], False
    if figure == "ceiling":
        return [f"pact={talk} --pact:2", f"bx={bx}:5"], False
    if figure == "one":
        return [f"talk={talk}", f"bx={bx}:6"], False
    if figure == "liar":
        return [f"honest={talk}", f"liar={talk} --honesty 0", f"bx={bx}:5"], False
    return [
        f"talk={talk}",
        f"liar={talk} --honesty 0",
        f"trusting={talk} --trust 0.9 --forgiveness 0.5 --initiative 0.9",
        f"wary={talk} --trust 0.5 --forgiveness 0 --generosity 0.1",
        "dtalk=dumbbot -v --negotiate",
        "dliar=dumbbot -v --negotiate --honesty 0",
        f"bx={bx}",
        "dumbbot",
    ], True


@dataclass
class Talk:
    """What the negotiators of one label did, summed over their seats."""

    seats: int = 0
    movement_phases: int = 0
    proposals_sent: int = 0
    proposals_agreed: int = 0
    checked: int = 0  # agreement-phases its seats were party to (by the law)
    kept: int = 0  # of them, kept by everyone bound
    broke: int = 0  # of them, broken by its seats (by the law)
    broken_by_us: int = 0  # the negotiators' own count of phases they chose to break
    betrayals_seen: int = 0
    talk_seconds: float = 0.0
    messages: int = 0
    trouble: list[str] = field(default_factory=list)


def phase_verdicts(
    items: Sequence[PressItem], before: GameState, orders: Sequence[Order], table: TokenTable
) -> list[Verdict]:
    """The law's verdict on every agreement that bound the phase played from ``before``
    (the press up to that phase, the orders as its results list them)."""
    said = [i for i in items if not before.phase < Phase.parse(i.phase)]
    return outcomes(agreements(said, before.phase.name, table), before, orders)


def game_verdicts(store: Store, game_id: int) -> list[Verdict]:
    """Every agreement-phase of a stored game, judged by the law from its record."""
    gmap = load_map(store.game(game_id).settings.get("map", "standard"))
    table = table_for_map(gmap)
    codec = codec_for(table)
    items = stored_items(store.press(game_id), codec)
    given: dict[str, list[Order]] = {}
    for phase, _power, text in store.results(game_id):
        ord_ = codec.parse_text(text)
        if isinstance(ord_, messages.Ord) and ord_.order is not None:
            given.setdefault(phase, []).append(ord_.order)
    out: list[Verdict] = []
    for phase, data in store.states(game_id):
        if phase in given:
            state = GameState.from_json(data, gmap)
            out += phase_verdicts(items, state, given[phase], table)
    return out


def talk_of(games: list[GameResult], store: Store) -> dict[str, Talk]:
    out: dict[str, Talk] = {}
    for g in games:
        press = store.press(g.game_id)
        phases = {p for p, _ in store.states(g.game_id) if p.endswith("M")}
        verdicts = game_verdicts(store, g.game_id)
        for seat in g.seats:
            if seat.log is None or not Path(seat.log).exists():
                continue
            text = Path(seat.log).read_text(errors="replace")
            found = SUMMARY.search(text)
            if found is None:
                continue
            stats = json.loads(found.group(1))
            t = out.setdefault(seat.label, Talk())
            t.seats += 1
            t.movement_phases += len(phases)
            t.proposals_sent += stats["proposals_sent"]
            t.proposals_agreed += stats["proposals_agreed"]
            ours = [v for v in verdicts if seat.power in v.agreement.parties]
            t.checked += len(ours)
            t.kept += sum(v.kept for v in ours)
            t.broke += sum(seat.power in v.breakers for v in ours)
            t.broken_by_us += stats["broken_by_us"]
            t.betrayals_seen += sum(len(v) for v in stats["betrayals"].values())
            t.talk_seconds += stats["talk_seconds"]
            t.messages += sum(1 for p in press if p.sender == seat.power)
            t.trouble += [line for line in text.splitlines() if PRESS_TROUBLE.search(line)]
    return out


def run_figure(figure: str, args: argparse.Namespace) -> None:
    budget = f"--nodes {args.nodes}" if args.nodes else f"--think {args.think}"
    words, pool = seats_for(figure, budget)
    seats = parse_lineup(words, pool=pool)
    settings = GameSettings(
        level=30,
        max_year=args.max_year,
        move_time=args.mtl,
        retreat_time=args.rtl,
        build_time=args.rtl,
        map="standard",
    )
    load_before = os.getloadavg()[0]
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as d:
        store = Store(Path(d) / "press.sqlite")
        logs = Path(d) / "tournament"
        t = Tournament(store, seats, settings, games=args.games, parallel=args.parallel,
                       seed=args.seed, folder=logs, pool=pool)  # fmt: skip
        trio.run(t.run)
        everything = t.results()
        # Games that lost a player before they started (after their replays) are left out.
        results = scored(everything)
        talk = talk_of(results, store)
        store.close()
    minutes = (time.perf_counter() - start) / 60
    load_after = os.getloadavg()[0]
    labels = list(dict.fromkeys(s.label for s in seats))
    bots = {b.label: b for b in summarise(results, labels)}
    print(f"{figure}: {len(results)} games to {args.max_year} in {minutes:.1f} min, every "
          f"Bordeaux {budget}, load {load_before:.1f} -> {load_after:.1f} on {os.cpu_count()} "
          "cores")  # fmt: skip
    print(f"  incomplete games left out: {len(everything) - len(results)} "
          f"({t.stats.replays} played again)")  # fmt: skip
    record: dict[str, object] = {"command": " ".join(["python", *sys.argv]), "figure": figure,
                                 "games": len(results), "budget": budget,
                                 "incomplete": len(everything) - len(results),
                                 "load": [load_before, load_after]}  # fmt: skip
    per_bot: dict[str, object] = {}
    record["bots"] = per_bot
    for label in labels:
        b = bots[label]
        sos = b.estimate("sos")
        line = (f"  {label:9} seats {b.games:4}  solos {b.solos:3}  centres {b.mean_centres:5.1f}"
                f"  SoS {sos.mean:.3f} ± {sos.ci95:.3f}  crashed {b.crashes}")  # fmt: skip
        entry: dict[str, object] = {"seats": b.games, "sos": sos.mean, "ci95": sos.ci95,
                                    "centres": b.mean_centres, "solos": b.solos}  # fmt: skip
        tk = talk.get(label)
        if tk is not None and tk.seats:
            per_game = tk.seats
            phases = max(tk.movement_phases, 1)
            kept = f"{100 * tk.kept / tk.checked:.0f} %" if tk.checked else "-"
            line += (f"\n            per game: {tk.proposals_sent / per_game:.1f} proposals, "
                     f"{tk.proposals_agreed / per_game:.1f} agreed; by the law {kept} kept of "
                     f"{tk.checked / per_game:.1f} agreement-phases, {tk.broke / per_game:.2f} "
                     f"broken by it (chose to {tk.broken_by_us / per_game:.2f}); betrayals seen "
                     f"{tk.betrayals_seen / per_game:.2f}; {tk.messages / phases:.2f} messages "
                     f"and {tk.talk_seconds / phases:.2f} s of talk per movement phase; "
                     f"server HUH/refusals {len(tk.trouble)}")  # fmt: skip
            entry["talk"] = tk.__dict__ | {"trouble": len(tk.trouble)}
            for trouble in tk.trouble[:3]:
                line += f"\n            ! {trouble}"
        per_bot[label] = entry
        print(line)
    silent = bots.get("bx")
    if silent is not None and figure != "pool":
        base = silent.estimate("sos").mean
        for label in labels:
            if label != "bx" and base > 0:
                ratio = bots[label].estimate("sos").mean / base
                print(f"  {label} / silent seat: {ratio:.2f}")
    reasons = Counter(g.reason for g in results)
    print(f"  endings: {dict(reasons)}")
    if args.json:
        with open(args.json, "a") as out:
            out.write(json.dumps(record) + "\n")
    sys.stdout.flush()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--games", type=int, default=7, help="games per figure (a multiple of 7)")
    p.add_argument("--figures", default=",".join(FIGURES), help=f"from {', '.join(FIGURES)}")
    p.add_argument("--max-year", type=int, default=1910)
    p.add_argument("--parallel", type=int, default=os.cpu_count() or 1)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--think", type=float, default=0.25, help="Bordeaux's seconds per decision")
    p.add_argument("--nodes", type=int, default=None,
                   help="Bordeaux's node budget per decision instead of --think: the same "
                   "search for talkers and silent seats however the CPU is shared (a talker "
                   "orders after its talk window, when the silent seats have stopped "
                   "thinking, so a wall-clock budget gives it more of the machine)")  # fmt: skip
    p.add_argument("--mtl", type=int, default=30, help="movement deadline (s)")
    p.add_argument("--rtl", type=int, default=15, help="retreat and build deadlines (s)")
    p.add_argument("--json", default=None, help="append each figure's results here (JSON lines)")
    args = p.parse_args()
    figures = [x.strip() for x in args.figures.split(",") if x.strip()]
    unknown = [x for x in figures if x not in FIGURES]
    if unknown:
        p.error(f"unknown figure {', '.join(unknown)}; choose from {', '.join(FIGURES)}")
    configure_logging("error")
    for figure in figures:
        run_figure(figure, args)


if __name__ == "__main__":
    main()
