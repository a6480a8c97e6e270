"""Hypothesis strategies for typed DAIDE messages (standard token table)."""

from __future__ import annotations

import itertools
from typing import Any

from hypothesis import strategies as st

from diplomat.engine.orders import (
    Build,
    Convoy,
    Disband,
    Hold,
    Move,
    Note,
    Outcome,
    Remove,
    Result,
    Retreat,
    SupportHold,
    SupportMove,
    Waive,
)
from diplomat.engine.state import SEASONS, Dislodged, Phase, Unit
from diplomat.protocol import messages
from diplomat.protocol.levels import TOKEN_LEVEL
from diplomat.protocol.mdf import AdjacencyEntry, CentreGroup, MapDefinition, ProvinceAdjacency
from diplomat.protocol.tokens import COAST_TOKEN, STANDARD_POWERS, STANDARD_PROVINCES

POWER_NAMES = [n for n, _ in STANDARD_POWERS]
PROVINCE_NAMES = [n for n, _ in STANDARD_PROVINCES]

powers = st.sampled_from(POWER_NAMES)
provinces = st.sampled_from(PROVINCE_NAMES)
coasts = st.sampled_from(sorted(COAST_TOKEN))
numbers = st.integers(-8192, 8191)
locations = st.one_of(provinces, st.builds(lambda p, c: f"{p}/{c}", provinces, coasts))
units = st.builds(Unit, powers, st.sampled_from("AF"), locations)
phases = st.builds(Phase, st.sampled_from(SEASONS), numbers)
# Printable, non-empty: what DAIDE strings may hold (spec §2.3).
strings = st.text(
    st.characters(categories=["L", "N", "P", "S"], include_characters=" '\"()"),
    min_size=1,
    max_size=12,
).filter(str.isprintable)
names = st.text("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_", min_size=1)


def no_adjacent_strings(words: tuple[str, ...]) -> bool:
    return not any(a[0] == b[0] == "'" for a, b in itertools.pairwise(words))


def power_lists(min_size: int = 1) -> st.SearchStrategy[tuple[str, ...]]:
    return st.lists(powers, min_size=min_size, max_size=4).map(tuple)


def province_lists(min_size: int = 1) -> st.SearchStrategy[tuple[str, ...]]:
    return st.lists(provinces, min_size=min_size, max_size=4).map(tuple)


orders = st.one_of(
    st.builds(Hold, units),
    st.builds(Move, units, locations, st.just(False), st.none()),
    st.builds(Move, units, provinces, st.just(True), province_lists()),
    st.builds(SupportHold, units, units),
    st.builds(SupportMove, units, units, provinces),
    st.builds(Convoy, units, units, provinces),
    st.builds(Retreat, units, locations),
    st.builds(Disband, units),
    st.builds(Build, units),
    st.builds(Remove, units),
    st.builds(Waive, powers),
)
notes = st.sampled_from(list(Note))
results = st.one_of(
    st.builds(Result, st.sampled_from(list(Outcome)), st.booleans()),
    st.just(messages.NoteResult(None, True)),
    st.builds(messages.NoteResult, notes),
)
dislodged = st.builds(Dislodged, units, st.none(), st.lists(locations, max_size=4).map(tuple))
now_units = st.lists(st.one_of(units, dislodged), max_size=5).map(tuple)
optional_seconds = st.none() | st.integers(0, 8191)
variants = st.builds(
    messages.Variant,
    numbers,
    optional_seconds,
    optional_seconds,
    optional_seconds,
    st.booleans(),
    st.booleans(),
    st.booleans(),
    st.booleans(),
    st.booleans(),
    optional_seconds,
)

map_definitions = st.builds(
    MapDefinition,
    power_lists(),
    st.lists(
        st.builds(
            CentreGroup,
            st.one_of(power_lists(), st.just(("UNO",))),
            st.lists(provinces, max_size=3).map(tuple),
        ),
        min_size=1,
        max_size=3,
    ).map(tuple),
    st.lists(provinces, max_size=3).map(tuple),
    st.lists(
        st.builds(
            ProvinceAdjacency,
            provinces,
            st.lists(
                st.builds(
                    AdjacencyEntry,
                    st.sampled_from("AF"),
                    st.none() | coasts,
                    st.lists(locations, max_size=3).map(tuple),
                ),
                min_size=1,
                max_size=3,
            ).map(tuple),
        ),
        min_size=1,
        max_size=3,
    ).map(tuple),
)


def press_messages(daide_pp: bool) -> tuple[st.SearchStrategy[Any], st.SearchStrategy[Any]]:
    """(press, arrangement) strategies; ``daide_pp`` adds the text-only levels 140-160."""
    arrangement: st.SearchStrategy[Any] = st.deferred(lambda: arrangement_)
    press: st.SearchStrategy[Any] = st.deferred(lambda: press_)
    press_message: st.SearchStrategy[Any] = st.deferred(lambda: press_message_)
    arrangements = st.lists(arrangement, min_size=2, max_size=3).map(tuple)
    query = st.builds(messages.Qry, arrangement)
    belief = st.one_of(
        arrangement, query, st.builds(messages.Not, query), st.builds(messages.Nar, query)
    )
    try_tokens = [t for t, level in TOKEN_LEVEL.items() if daide_pp or level < 140]

    leaves = [
        st.builds(messages.Pce, power_lists()),
        st.builds(messages.Aly, power_lists(), power_lists()),
        st.builds(messages.Drw, st.none() | power_lists()),
        st.builds(messages.Slo, powers),
        st.builds(messages.Xdo, orders),
        st.builds(messages.Dmz, power_lists(), province_lists()),
        st.builds(
            messages.Scd, st.lists(st.tuples(powers, province_lists(0)), min_size=1).map(tuple)
        ),
        st.builds(
            messages.Occ,
            st.lists(
                st.one_of(units, st.builds(messages.AnyUnit, powers, locations)), min_size=1
            ).map(tuple),
        ),
        st.builds(messages.Xoy, powers, powers),
        st.builds(messages.Ydo, powers, st.lists(units, min_size=1, max_size=3).map(tuple)),
        st.builds(messages.Fwd, power_lists(), powers, powers),
        st.builds(messages.Bcc, powers, power_lists(), powers),
    ]
    if daide_pp:
        finite = st.floats(allow_nan=False, allow_infinity=False)
        leaves += [
            st.just(messages.Rof()),
            st.builds(messages.Ulb, powers, finite),
            st.builds(messages.Uub, powers, finite),
        ]
    arrangement_ = st.one_of(
        *leaves,
        st.builds(messages.Not, arrangement),
        st.builds(messages.Nar, arrangement),
        st.builds(messages.And, arrangements),
        st.builds(messages.Orr, arrangements),
        st.builds(messages.Cho, st.integers(0, 3), st.integers(3, 5), arrangements),
        st.builds(messages.For, phases, arrangement, st.none() | phases),
        st.builds(messages.SndArrangement, powers, power_lists(), press),
    )
    press_message_ = st.one_of(
        st.builds(messages.Prp, arrangement),
        st.builds(messages.Ccl, press_message),
        st.builds(messages.Fct, belief),
        st.builds(messages.Try, st.lists(st.sampled_from(try_tokens), max_size=4).map(tuple)),
        st.builds(messages.Ins, arrangement),
        query,
        st.builds(messages.Sug, arrangement),
        st.builds(messages.Thk, belief),
        st.builds(messages.Wht, units),
        st.builds(messages.How, st.one_of(powers, provinces)),
        st.builds(messages.Exp, phases, press),
        st.builds(messages.Iff, arrangement, press, st.none() | press),
        st.builds(messages.Frm, powers, power_lists(), press),
        st.builds(messages.FreeText, strings),
    )
    why = st.builds(
        messages.Why,
        st.one_of(
            st.builds(messages.Thk, belief),
            st.builds(messages.Fct, belief),
            st.builds(messages.Prp, arrangement),
            st.builds(messages.Ins, arrangement),
            st.builds(messages.Sug, arrangement),
        ),
    )
    exp = st.builds(messages.Exp, phases, press)
    replies = [
        st.builds(messages.Yes, press_message),
        st.builds(messages.Rej, press_message),
        st.builds(messages.Bwx, press_message),
        st.builds(
            messages.Huh,
            st.lists(st.sampled_from(["ERR", "PRP", "(", ")"]), max_size=4).map(
                lambda ws: tuple(w for w in ws if w not in "()")
            ),
        ),
        st.builds(
            messages.Idk,
            st.one_of(
                query,
                exp,
                st.builds(messages.Prp, arrangement),
                st.builds(messages.Ins, arrangement),
                st.builds(messages.Sug, arrangement),
                st.builds(messages.Wht, units),
                st.builds(messages.How, powers),
            ),
        ),
        st.builds(messages.Sry, exp),
        why,
        st.builds(messages.Pob, why),
    ]
    if daide_pp:
        replies += [
            st.builds(messages.Uhy, press_message),
            st.builds(messages.Hpy, press_message),
            st.builds(messages.Ang, press_message),
        ]
    press_ = st.one_of(press_message, *replies)
    return press, arrangement


def any_message(daide_pp: bool = False) -> st.SearchStrategy[messages.Message]:
    press, _ = press_messages(daide_pp)
    level0: st.SearchStrategy[Any] = st.deferred(lambda: level0_)
    negatable = st.one_of(
        st.builds(messages.Sub, st.lists(orders, max_size=1).map(tuple)),
        st.just(messages.Gof()),
        st.builds(messages.Tme, optional_seconds),
        st.builds(messages.Drw, st.none() | power_lists()),
        st.builds(messages.Ccd, powers),
    )
    level0_ = st.one_of(
        st.builds(messages.Nme, strings, strings),
        st.just(messages.Obs()),
        st.builds(messages.Iam, powers, numbers),
        st.builds(messages.Map, st.none() | names),
        st.builds(messages.Mdf, st.none() | map_definitions),
        st.just(messages.Hlo()),
        st.builds(messages.Hlo, st.one_of(powers, st.just("UNO")), numbers, variants),
        st.just(messages.Now()),
        st.builds(messages.Now, phases, now_units),
        st.builds(
            messages.Sco,
            st.lists(
                st.tuples(st.one_of(powers, st.just("UNO")), province_lists(0)), max_size=4
            ).map(tuple),
        ),
        st.builds(messages.Hst, st.none() | phases),
        st.builds(
            messages.Sub, st.lists(orders, min_size=1, max_size=5).map(tuple), st.none() | phases
        ),
        st.builds(messages.Thx, orders, notes),
        st.just(messages.Mis()),
        st.builds(
            messages.Mis, st.lists(st.one_of(units, dislodged), min_size=1, max_size=3).map(tuple)
        ),
        st.builds(messages.Mis, st.just(()), numbers),
        st.just(messages.Gof()),
        st.just(messages.Ord()),
        st.builds(messages.Ord, phases, orders, results),
        st.builds(messages.Tme, optional_seconds),
        st.builds(messages.Drw, st.none() | power_lists()),
        st.builds(messages.Slo, powers),
        st.just(messages.Smr()),
        st.builds(
            messages.Smr,
            phases,
            st.lists(
                st.builds(
                    messages.SmrEntry, powers, strings, strings, numbers, st.none() | numbers
                ),
                min_size=1,
                max_size=3,
            ).map(tuple),
        ),
        st.just(messages.Off()),
        st.builds(messages.Ccd, powers),
        st.builds(messages.Out, powers),
        st.builds(messages.Not, negatable),
        # Two strings side by side would merge on the wire (only text input can hold them).
        st.builds(
            messages.Huh,
            st.lists(st.sampled_from(["ERR", "GOF", "'x y'", "-5", "ENG"]), max_size=5)
            .map(tuple)
            .filter(no_adjacent_strings),
        ),
        st.builds(messages.Adm, strings, strings),
        st.builds(messages.Sve, names.filter(lambda s: len(s) <= 8)),
        st.builds(messages.Lod, names.filter(lambda s: len(s) <= 8)),
        st.builds(messages.Yes, level0),
        st.builds(messages.Rej, level0),
        st.builds(messages.Snd, power_lists(), press, st.none() | phases),
        st.builds(messages.Frm, powers, power_lists(), press),
    )
    return level0
