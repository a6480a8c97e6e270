"""How well, and how fast, every bundled map is drawn (figures only, no assertions).

    .venv/bin/python bench/mapdraw.py [MAP ...] [--markdown]

For each map (default: all bundled maps): provinces; whether it is drawn from display
positions, computed from its places on a picture, or computed from its adjacencies alone; the
share of neighbouring province pairs whose drawn shapes touch (goal >= 90 %) and of the other
pairs that touch all the same (goal <= 5 %); name overlaps, coast-target overlaps and spots
outside their province (goals 0; see ``mapdraw.quality``); the time to compute the drawing once
(the cold cost of the first render of a map, which the server then caches), in wall and CPU
seconds, and the time of one warm render of the starting position. The machine's load average
is printed first and last: the wall times are taken on a shared machine.
``tests/mapdraw/test_variants.py`` asserts the goals (not the times).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from diplomat.engine.map import bundled_maps, load_map
from diplomat.engine.state import initial_state
from diplomat.mapdraw.geometry import geometry
from diplomat.mapdraw.quality import measure
from diplomat.mapdraw.svg import render_map


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("maps", nargs="*", help="maps to measure (default: every bundled map)")
    ap.add_argument("--markdown", action="store_true", help="print a Markdown table")
    args = ap.parse_args()
    names = args.maps or list(bundled_maps())
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores", flush=True)
    head = (
        "map",
        "powers",
        "provinces",
        "drawing",
        "adjacent touching",
        "non-adjacent touching",
        "name overlaps",
        "coast overlaps",
        "outside",
        "first draw s",
        "first draw CPU s",
        "render ms",
    )
    if args.markdown:
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
    else:
        print(
            f"{'map':18} {'pow':>3} {'prov':>4} {'drawing':8} {'adj touch':>14} "
            f"{'non-adj touch':>15} {'names':>5} {'coasts':>6} {'out':>3} {'first s':>7} "
            f"{'cpu s':>6} {'render ms':>9}"
        )
    for name in names:
        gmap = load_map(name)
        t0, c0 = time.perf_counter(), time.process_time()
        geometry(gmap)
        first, first_cpu = time.perf_counter() - t0, time.process_time() - c0
        q = measure(gmap)
        state = initial_state(gmap)
        t0 = time.perf_counter()
        render_map(gmap, state)
        render_ms = (time.perf_counter() - t0) * 1000
        kind = ("picture" if gmap.picture else "adjacencies") if q.computed else "positions"
        adj = f"{q.adjacent_share:.1%} ({q.adjacent_touching}/{q.adjacent})"
        non = f"{q.non_adjacent_share:.2%} ({q.non_adjacent_touching})"
        row = (
            name,
            str(len(gmap.powers)),
            str(q.provinces),
            kind,
            adj,
            non,
            str(q.label_overlaps),
            str(q.coast_overlaps),
            str(q.outside),
            f"{first:.2f}",
            f"{first_cpu:.2f}",
            f"{render_ms:.0f}",
        )
        if args.markdown:
            print("| " + " | ".join(row) + " |", flush=True)
        else:
            print(
                f"{row[0]:18} {row[1]:>3} {row[2]:>4} {row[3]:8} {row[4]:>14} {row[5]:>15} "
                f"{row[6]:>5} {row[7]:>6} {row[8]:>3} {row[9]:>7} {row[10]:>6} {row[11]:>9}",
                flush=True,
            )
    print(f"load average {os.getloadavg()[0]:.2f} at the end", flush=True)


if __name__ == "__main__":
    main()
