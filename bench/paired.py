"""Compare two runs of ``bench/strength.py`` game by game (a paired comparison).

    python bench/paired.py BASE.jsonl CHANGED.jsonl [--label bx] [--line N]

Two runs with one ``--seed`` in databases with one secret (the same ``--db``, or a copy of
its secret) play the same seat seeds and powers game by game, so the difference of a seat's
Sum-of-Squares share can be taken per game: its interval is narrower than either score's when
the games' scores correlate. Prints both means, the paired difference with its 95 % interval,
the correlation, solos and mean centres, and the difference power by power. Games are paired
by their index in the run; both runs must have played the same powers in each.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

# The project's packages first: this folder's tournament.py would shadow the package.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from diplomat.tournament.scoring import Estimate


def seat_of(game: dict[str, Any], label: str) -> dict[str, Any]:
    """The one seat of ``label`` in a game's raw result."""
    seats = [s for s in game["seats"] if s["label"] == label]
    if len(seats) != 1:
        raise SystemExit(f"game {game['index']}: {len(seats)} seats labelled {label!r}, not 1")
    return seats[0]


def correlation(a: list[float], b: list[float]) -> float:
    ma, mb = sum(a) / len(a), sum(b) / len(b)
    cov = sum((x - ma) * (y - mb) for x, y in zip(a, b, strict=True))
    va = sum((x - ma) ** 2 for x in a)
    vb = sum((y - mb) ** 2 for y in b)
    return cov / math.sqrt(va * vb) if va > 0 and vb > 0 else 0.0


def load(path: Path, line: int) -> dict[str, Any]:
    """The ``line``-th run (a JSON line) of a ``--json`` file of ``bench/strength.py``."""
    try:
        rows = [r for r in path.read_text().splitlines() if r.strip()]
    except OSError as e:
        raise SystemExit(f"{path}: cannot read it ({e.strerror})") from None
    if not rows:
        raise SystemExit(f"{path}: no run in it")
    if not 0 <= line < len(rows):
        raise SystemExit(f"{path}: has {len(rows)} runs, no line {line}")
    try:
        run = json.loads(rows[line])
    except json.JSONDecodeError as e:
        raise SystemExit(f"{path}: line {line + 1} is not JSON ({e.msg})") from None
    if not isinstance(run, dict) or not isinstance(run.get("games"), list):
        raise SystemExit(f"{path}: line {line + 1} is not a run of bench/strength.py")
    return run


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("base", type=Path)
    p.add_argument("changed", type=Path)
    p.add_argument("--label", default="bx", help="the seat compared (default bx)")
    p.add_argument("--line", type=int, default=0, help="which run of each file (default the first)")
    args = p.parse_args(argv)
    base, changed = load(args.base, args.line), load(args.changed, args.line)
    if base.get("seed") != changed.get("seed"):
        print(
            f"warning: seeds differ ({base.get('seed')} v {changed.get('seed')})", file=sys.stderr
        )
    games = {g["index"]: g for g in base["games"]}
    a: list[float] = []
    b: list[float] = []
    centres: list[tuple[int, int]] = []
    solos = [0, 0]
    by_power: dict[str, list[float]] = defaultdict(list)
    for g in changed["games"]:
        other = games.get(g["index"])
        if other is None:
            continue
        s0, s1 = seat_of(other, args.label), seat_of(g, args.label)
        if s0["power"] != s1["power"]:
            raise SystemExit(f"game {g['index']}: {s0['power']} v {s1['power']}: not paired runs")
        a.append(s0["sos"])
        b.append(s1["sos"])
        centres.append((s0["centres"], s1["centres"]))
        solos[0] += other["winner"] == s0["power"]
        solos[1] += g["winner"] == s1["power"]
        by_power[s0["power"]].append(s1["sos"] - s0["sos"])
    if len(a) < 2:
        raise SystemExit("fewer than two games in both runs")
    n = len(a)
    ea, eb = Estimate.of(a), Estimate.of(b)
    ed = Estimate.of([y - x for x, y in zip(a, b, strict=True)])
    print(f"{n} paired games, seat {args.label!r}")
    print(f"  base     {ea.mean:.3f} ± {ea.ci95:.3f}, {solos[0]} solos, "
          f"{sum(c for c, _ in centres) / n:.2f} centres  ({args.base.name})")  # fmt: skip
    print(f"  changed  {eb.mean:.3f} ± {eb.ci95:.3f}, {solos[1]} solos, "
          f"{sum(c for _, c in centres) / n:.2f} centres  ({args.changed.name})")  # fmt: skip
    print(
        f"  paired difference {ed.mean:+.3f} ± {ed.ci95:.3f} (correlation {correlation(a, b):.2f})"
    )
    for power in sorted(by_power):
        e = Estimate.of(by_power[power])
        print(f"    {power}: {e.mean:+.3f} ± {e.ci95:.3f} over {len(by_power[power])} games")
    return 0


if __name__ == "__main__":
    sys.exit(main())
