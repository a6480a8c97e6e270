"""How far each map's drawing keeps its geography, drawn from the adjacencies alone and from
the provinces' places on the map's picture (figures only, no assertions).

    .venv/bin/python bench/map_likeness.py [MAP ...] [--markdown]

For each bundled map with a ``picture`` (default: all of them): Kendall's tau between the
picture's places and the drawn provinces' centres, along x and along y (1: every pair of
provinces in the picture's order; ``mapdraw.likeness``), for the drawing from the adjacencies
alone (the map with its picture taken out) and for the drawing the map gets (from its picture;
the standard board from its own latitude and longitude positions), with the wall and CPU
seconds of each cold drawing. The machine's load average is printed first and last: the wall
times are taken on a shared machine. ``tests/mapdraw/test_picture.py`` asserts the floor.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from diplomat.engine.map import GameMap, bundled_maps, load_map
from diplomat.mapdraw.geometry import drawing_source, geometry
from diplomat.mapdraw.likeness import picture_order


def _timed(gmap: GameMap, picture: GameMap) -> tuple[float, float, float, float]:
    """tau x, tau y of ``gmap``'s drawing against ``picture``'s places; wall and CPU s."""
    wall, cpu = time.perf_counter(), time.process_time()
    geo = geometry(gmap)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    tau_x, tau_y = picture_order(picture, geo)
    return tau_x, tau_y, wall, cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("maps", nargs="*", help="maps to measure (default: every one with a picture)")
    ap.add_argument("--markdown", action="store_true", help="print a Markdown table")
    args = ap.parse_args()
    names = args.maps or [n for n in bundled_maps() if load_map(n).picture]
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores", flush=True)
    head = [
        "map", "provinces", "drawn from", "adjacencies: tau x", "tau y", "s", "CPU s",
        "as drawn: tau x", "tau y", "s", "CPU s",
    ]  # fmt: skip
    print("| " + " | ".join(head) + " |" if args.markdown else "  ".join(head))
    if args.markdown:
        print("|" + "---|" * len(head))
    for name in names:
        gmap = load_map(name)
        data = {k: v for k, v in gmap.to_dict().items() if k not in ("picture", "positions")}
        data.pop("base", None)  # (else the drawing would borrow the base map's positions)
        bare = GameMap.from_dict(data)
        before = _timed(bare, gmap)
        after = _timed(gmap, gmap)
        source = "positions" if drawing_source(gmap) is not None else "picture"
        cells = [name, str(len(gmap.provinces)), source]
        for tau_x, tau_y, wall, cpu in (before, after):
            cells += [f"{tau_x:.3f}", f"{tau_y:.3f}", f"{wall:.2f}", f"{cpu:.2f}"]
        print("| " + " | ".join(cells) + " |" if args.markdown else "  ".join(cells), flush=True)
    print(f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
