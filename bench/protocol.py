"""Benchmark of the DAIDE protocol layer (figures only, no assertions).

    .venv/bin/python bench/protocol.py [--seconds 0.3] [--repeat 3]

For each message of a realistic mix (a SUB of 17 orders, NOW with 34 units, one phase's ORD
results, SCO, press at level 20 and at level 130) it prints messages per second for

- parse binary: DM payload -> typed message (tokens decoded once, fed to Lark's LALR parser);
- parse text: a text line -> typed message;
- render binary: typed message -> DM payload;
- render text: typed message -> canonical text;

then the same over the whole mix (weighted as one movement phase of a 7-player game with
some press), where the time of a SUB parse goes (decoding tokens, the LALR parse with its
typed-value callbacks), and the memory a parse allocates (tracemalloc: peak while parsing,
and what the typed message keeps).
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

from diplomat.protocol.tokens import STANDARD

# This script has the name of the package it measures: keep its own folder off the path so
# that "protocol" is the package, and find the project from here if it is not installed.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]
sys.path.insert(0, str(_HERE.parent))

from diplomat.engine.map import load_map  # noqa: E402 (after the path fix above)
from diplomat.protocol.atoms import atoms_from_payload  # noqa: E402
from diplomat.protocol.codec import codec_for  # noqa: E402

CODEC = codec_for(STANDARD)

SUB_17 = (
    "SUB ( SPR 1902 ) "
    "( ( ENG FLT NTH ) MTO NWY ) ( ( ENG FLT NWG ) SUP ( ENG FLT NTH ) MTO NWY ) "
    "( ( ENG AMY YOR ) CTO NWY VIA ( NTH ) ) ( ( ENG FLT ECH ) CVY ( FRA AMY BRE ) CTO LON ) "
    "( ( FRA AMY BRE ) CTO LON VIA ( ECH ) ) ( ( FRA FLT MAO ) MTO ( SPA NCS ) ) "
    "( ( FRA AMY BUR ) SUP ( GER AMY MUN ) ) ( ( GER AMY MUN ) HLD ) "
    "( ( GER FLT KIE ) MTO DEN ) ( ( GER AMY BER ) MTO SIL ) "
    "( ( RUS FLT ( STP SCS ) ) MTO GOB ) ( ( RUS AMY WAR ) SUP ( RUS AMY MOS ) MTO UKR ) "
    "( ( RUS AMY MOS ) MTO UKR ) ( ( TUR FLT ANK ) MTO BLA ) ( ( TUR AMY CON ) MTO BUL ) "
    "( ( AUS AMY VIE ) MTO TRI ) ( ( ITA FLT NAP ) MTO ION )"
)

PRESS_20 = (
    "SND ( SPR 1901 ) ( GER ) ( PRP ( XDO ( ( GER AMY MUN ) SUP ( ITA AMY VEN ) MTO TYR ) ) )"
)
PRESS_130 = (
    "SND ( FAL 1903 ) ( ENG GER ) ( WHY ( PRP ( FOR ( ( SPR 1904 ) ( FAL 1905 ) ) "
    "( AND ( ALY ( ENG FRA ) VSS ( GER ) ) ( XDO ( ( FRA FLT BRE ) MTO ECH ) ) "
    "( DMZ ( ENG FRA ) ( ECH NTH BEL ) ) ( SCD ( ENG HOL DEN ) ( FRA BEL MUN ) ) ) ) ) )"
)


def now_34() -> str:
    """A crowded position: a unit in each of the 34 supply centres."""
    gmap = load_map("standard")
    powers = gmap.powers
    units = []
    for i, prov in enumerate(sorted(gmap.supply_centres)):
        info = gmap.provinces[prov]
        power = powers[i % len(powers)]
        if info.type == "coast" and i % 3 == 0:
            loc = f"( {prov} {('NCS', 'SCS')[i % 2]} )" if info.coasts else prov
            units.append(f"( {power} FLT {loc} )")
        else:
            units.append(f"( {power} AMY {prov} )")
    return "NOW ( FAL 1905 ) " + " ".join(units)


def ord_results() -> list[str]:
    """One movement phase's results: an ORD per unit of the 1901 start."""
    orders = [
        ("AUS AMY BUD", "MTO SER", "SUC"), ("AUS AMY VIE", "MTO GAL", "BNC"),
        ("AUS FLT TRI", "MTO ALB", "SUC"), ("ENG FLT EDI", "MTO NWG", "SUC"),
        ("ENG FLT LON", "MTO NTH", "SUC"), ("ENG AMY LVP", "MTO YOR", "SUC"),
        ("FRA FLT BRE", "MTO MAO", "SUC"), ("FRA AMY MAR", "SUP ( FRA AMY PAR ) MTO BUR", "CUT"),
        ("FRA AMY PAR", "MTO BUR", "BNC"), ("GER FLT KIE", "MTO DEN", "SUC"),
        ("GER AMY BER", "MTO KIE", "SUC"), ("GER AMY MUN", "MTO BUR", "BNC"),
        ("ITA FLT NAP", "MTO ION", "SUC"), ("ITA AMY ROM", "MTO APU", "SUC"),
        ("ITA AMY VEN", "HLD", "SUC RET"), ("RUS AMY WAR", "MTO GAL", "BNC"),
        ("RUS AMY MOS", "MTO UKR", "SUC"), ("RUS FLT SEV", "MTO BLA", "BNC"),
        ("RUS FLT ( STP SCS )", "MTO GOB", "SUC"), ("TUR FLT ANK", "MTO BLA", "BNC"),
        ("TUR AMY CON", "MTO BUL", "SUC"), ("TUR AMY SMY", "MTO ARM", "SUC"),
    ]  # fmt: skip
    return [f"ORD ( SPR 1901 ) ( ( {u} ) {o} ) ( {r} )" for u, o, r in orders]


SCO = (
    "SCO ( AUS BUD SER TRI VIE ) ( ENG EDI LON LVP NWY ) ( FRA BRE MAR PAR POR SPA ) "
    "( GER BER DEN HOL KIE MUN ) ( ITA NAP ROM TUN VEN ) ( RUS MOS SEV STP SWE WAR ) "
    "( TUR ANK BUL CON SMY ) ( UNO BEL GRE RUM )"
)

# (name, texts, weight in the mix: how many of them one phase with press brings)
KINDS: list[tuple[str, list[str], int]] = [
    ("SUB, 17 orders", [SUB_17], 1),
    ("NOW, 34 units", [now_34()], 1),
    ("ORD (22 results)", ord_results(), 1),
    ("SCO", [SCO], 1),
    ("press, level 20", [PRESS_20], 5),
    ("press, level 130", [PRESS_130], 2),
]


def rate(fn: Callable[[], Any], seconds: float, repeat: int) -> float:
    """Best calls per second of ``fn`` over ``repeat`` runs of about ``seconds`` each."""
    n = 1
    while True:
        start = time.perf_counter()
        for _ in range(n):
            fn()
        elapsed = time.perf_counter() - start
        if elapsed >= seconds / 4:
            break
        n *= 2
    best = elapsed
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(n):
            fn()
        best = min(best, time.perf_counter() - start)
    return n / best


def each(fn: Callable[[Any], Any], items: list[Any]) -> Callable[[], None]:
    def run() -> None:
        for item in items:
            fn(item)

    return run


def allocation(fn: Callable[[], Any]) -> tuple[int, int]:
    """(peak bytes allocated while ``fn`` runs, bytes still held by its result)."""
    fn()  # warm caches
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    tracemalloc.reset_peak()
    result = fn()
    current, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    del result
    return peak - base, current - base


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=0.3, help="time per measurement")
    ap.add_argument("--repeat", type=int, default=3, help="runs per measurement (best kept)")
    args = ap.parse_args(argv)

    print(f"python {sys.version.split()[0]}; best of {args.repeat} runs of ~{args.seconds}s\n")
    header = (
        f"{'message':<18} {'tokens':>6} {'parse bin':>10} {'parse text':>11} "
        f"{'render bin':>11} {'render text':>12}   {'parse alloc peak/kept':>21}"
    )
    print(header + "\n" + "-" * len(header) + "   (messages per second)")
    mix_messages = 0
    mix_time = dict.fromkeys(("parse bin", "parse text", "render bin", "render text"), 0.0)
    for name, texts, weight in KINDS:
        messages = [CODEC.parse_text(t) for t in texts]
        payloads = [CODEC.payload(msg) for msg in messages]
        canon = [CODEC.text(msg) for msg in messages]
        count = len(messages)
        tokens = sum(len(p) // 2 for p in payloads) // count
        rates = {
            "parse bin": rate(each(CODEC.parse_payload, payloads), args.seconds, args.repeat),
            "parse text": rate(each(CODEC.parse_text, canon), args.seconds, args.repeat),
            "render bin": rate(each(CODEC.payload, messages), args.seconds, args.repeat),
            "render text": rate(each(CODEC.text, messages), args.seconds, args.repeat),
        }
        first = payloads[0]
        peak, kept = allocation(lambda: CODEC.parse_payload(first))  # noqa: B023
        for key, calls in rates.items():
            mix_time[key] += weight / calls
        mix_messages += weight * count
        print(
            f"{name:<18} {tokens:>6} {rates['parse bin'] * count:>10,.0f} "
            f"{rates['parse text'] * count:>11,.0f} {rates['render bin'] * count:>11,.0f} "
            f"{rates['render text'] * count:>12,.0f}   {peak:>10,} / {kept:>8,} B"
        )
    widths = {"parse bin": 10, "parse text": 11, "render bin": 11, "render text": 12}
    mix = " ".join(f"{mix_messages / mix_time[k]:>{w},.0f}" for k, w in widths.items())
    print(f"{'mix (' + str(mix_messages) + ' msgs)':<18} {'':>6} {mix}")

    sub = CODEC.parse_text(SUB_17)
    payload = CODEC.payload(sub)
    atoms = atoms_from_payload(payload)
    decode = 1e6 / rate(lambda: atoms_from_payload(payload), args.seconds, args.repeat)
    lex_text = 1e6 / rate(lambda: CODEC.text_atoms(SUB_17), args.seconds, args.repeat)
    lalr = 1e6 / rate(lambda: CODEC.parse_atoms(atoms), args.seconds, args.repeat)
    to_atoms = 1e6 / rate(lambda: CODEC.atoms(sub), args.seconds, args.repeat)
    print(f"\none SUB of 17 orders ({len(payload) // 2} tokens, {len(payload)} bytes):")
    parse = f"LALR parse and typed values {lalr:6.1f} us"
    print(f"  parse binary {decode + lalr:7.1f} us = decode tokens {decode:5.1f} us + {parse}")
    print(f"  parse text   {lex_text + lalr:7.1f} us = read words {lex_text:8.1f} us + {parse}")
    print(f"  render       {to_atoms:7.1f} us to tokens (then packing or joining words)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
