"""Hypothesis strategies for typed DAIDE messages (standard token table)."""

from __future__ import annotations

import itertools
from typing import Any

from hypothesis import strategies as st

from engine.orders import (
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
from engine.state import SEASONS, Dislodged, Phase, Unit
from protocol import messages as m
from protocol.levels import TOKEN_LEVEL
from protocol.mdf import AdjacencyEntry, CentreGroup, MapDefinition, ProvinceAdjacency
from protocol.tokens import COAST_TOKEN, STANDARD_POWERS, STANDARD_PROVINCES

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
    st.just(m.NoteResult(None, True)),
    st.builds(m.NoteResult, notes),
)
dislodged = st.builds(Dislodged, units, st.none(), st.lists(locations, max_size=4).map(tuple))
now_units = st.lists(st.one_of(units, dislodged), max_size=5).map(tuple)
optional_seconds = st.none() | st.integers(0, 8191)
variants = st.builds(
    m.Variant,
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
    query = st.builds(m.Qry, arrangement)
    belief = st.one_of(arrangement, query, st.builds(m.Not, query), st.builds(m.Nar, query))
    try_tokens = [t for t, level in TOKEN_LEVEL.items() if daide_pp or level < 140]

    leaves = [
        st.builds(m.Pce, power_lists()),
        st.builds(m.Aly, power_lists(), power_lists()),
        st.builds(m.Drw, st.none() | power_lists()),
        st.builds(m.Slo, powers),
        st.builds(m.Xdo, orders),
        st.builds(m.Dmz, power_lists(), province_lists()),
        st.builds(m.Scd, st.lists(st.tuples(powers, province_lists(0)), min_size=1).map(tuple)),
        st.builds(
            m.Occ,
            st.lists(st.one_of(units, st.builds(m.AnyUnit, powers, locations)), min_size=1).map(
                tuple
            ),
        ),
        st.builds(m.Xoy, powers, powers),
        st.builds(m.Ydo, powers, st.lists(units, min_size=1, max_size=3).map(tuple)),
        st.builds(m.Fwd, power_lists(), powers, powers),
        st.builds(m.Bcc, powers, power_lists(), powers),
    ]
    if daide_pp:
        finite = st.floats(allow_nan=False, allow_infinity=False)
        leaves += [
            st.just(m.Rof()),
            st.builds(m.Ulb, powers, finite),
            st.builds(m.Uub, powers, finite),
        ]
    arrangement_ = st.one_of(
        *leaves,
        st.builds(m.Not, arrangement),
        st.builds(m.Nar, arrangement),
        st.builds(m.And, arrangements),
        st.builds(m.Orr, arrangements),
        st.builds(m.Cho, st.integers(0, 3), st.integers(3, 5), arrangements),
        st.builds(m.For, phases, arrangement, st.none() | phases),
        st.builds(m.SndArrangement, powers, power_lists(), press),
    )
    press_message_ = st.one_of(
        st.builds(m.Prp, arrangement),
        st.builds(m.Ccl, press_message),
        st.builds(m.Fct, belief),
        st.builds(m.Try, st.lists(st.sampled_from(try_tokens), max_size=4).map(tuple)),
        st.builds(m.Ins, arrangement),
        query,
        st.builds(m.Sug, arrangement),
        st.builds(m.Thk, belief),
        st.builds(m.Wht, units),
        st.builds(m.How, st.one_of(powers, provinces)),
        st.builds(m.Exp, phases, press),
        st.builds(m.Iff, arrangement, press, st.none() | press),
        st.builds(m.Frm, powers, power_lists(), press),
        st.builds(m.FreeText, strings),
    )
    why = st.builds(
        m.Why,
        st.one_of(
            st.builds(m.Thk, belief),
            st.builds(m.Fct, belief),
            st.builds(m.Prp, arrangement),
            st.builds(m.Ins, arrangement),
            st.builds(m.Sug, arrangement),
        ),
    )
    exp = st.builds(m.Exp, phases, press)
    replies = [
        st.builds(m.Yes, press_message),
        st.builds(m.Rej, press_message),
        st.builds(m.Bwx, press_message),
        st.builds(
            m.Huh,
            st.lists(st.sampled_from(["ERR", "PRP", "(", ")"]), max_size=4).map(
                lambda ws: tuple(w for w in ws if w not in "()")
            ),
        ),
        st.builds(
            m.Idk,
            st.one_of(
                query,
                exp,
                st.builds(m.Prp, arrangement),
                st.builds(m.Ins, arrangement),
                st.builds(m.Sug, arrangement),
                st.builds(m.Wht, units),
                st.builds(m.How, powers),
            ),
        ),
        st.builds(m.Sry, exp),
        why,
        st.builds(m.Pob, why),
    ]
    if daide_pp:
        replies += [
            st.builds(m.Uhy, press_message),
            st.builds(m.Hpy, press_message),
            st.builds(m.Ang, press_message),
        ]
    press_ = st.one_of(press_message, *replies)
    return press, arrangement


def messages(daide_pp: bool = False) -> st.SearchStrategy[m.Message]:
    press, _ = press_messages(daide_pp)
    level0: st.SearchStrategy[Any] = st.deferred(lambda: level0_)
    negatable = st.one_of(
        st.builds(m.Sub, st.lists(orders, max_size=1).map(tuple)),
        st.just(m.Gof()),
        st.builds(m.Tme, optional_seconds),
        st.builds(m.Drw, st.none() | power_lists()),
        st.builds(m.Ccd, powers),
    )
    level0_ = st.one_of(
        st.builds(m.Nme, strings, strings),
        st.just(m.Obs()),
        st.builds(m.Iam, powers, numbers),
        st.builds(m.Map, st.none() | names),
        st.builds(m.Mdf, st.none() | map_definitions),
        st.just(m.Hlo()),
        st.builds(m.Hlo, st.one_of(powers, st.just("UNO")), numbers, variants),
        st.just(m.Now()),
        st.builds(m.Now, phases, now_units),
        st.builds(
            m.Sco,
            st.lists(
                st.tuples(st.one_of(powers, st.just("UNO")), province_lists(0)), max_size=4
            ).map(tuple),
        ),
        st.builds(m.Hst, st.none() | phases),
        st.builds(m.Sub, st.lists(orders, min_size=1, max_size=5).map(tuple), st.none() | phases),
        st.builds(m.Thx, orders, notes),
        st.just(m.Mis()),
        st.builds(m.Mis, st.lists(st.one_of(units, dislodged), min_size=1, max_size=3).map(tuple)),
        st.builds(m.Mis, st.just(()), numbers),
        st.just(m.Gof()),
        st.just(m.Ord()),
        st.builds(m.Ord, phases, orders, results),
        st.builds(m.Tme, optional_seconds),
        st.builds(m.Drw, st.none() | power_lists()),
        st.builds(m.Slo, powers),
        st.just(m.Smr()),
        st.builds(
            m.Smr,
            phases,
            st.lists(
                st.builds(m.SmrEntry, powers, strings, strings, numbers, st.none() | numbers),
                min_size=1,
                max_size=3,
            ).map(tuple),
        ),
        st.just(m.Off()),
        st.builds(m.Ccd, powers),
        st.builds(m.Out, powers),
        st.builds(m.Not, negatable),
        # Two strings side by side would merge on the wire (only text input can hold them).
        st.builds(
            m.Huh,
            st.lists(st.sampled_from(["ERR", "GOF", "'x y'", "-5", "ENG"]), max_size=5)
            .map(tuple)
            .filter(no_adjacent_strings),
        ),
        st.builds(m.Adm, strings, strings),
        st.builds(m.Sve, names.filter(lambda s: len(s) <= 8)),
        st.builds(m.Lod, names.filter(lambda s: len(s) <= 8)),
        st.builds(m.Yes, level0),
        st.builds(m.Rej, level0),
        st.builds(m.Snd, power_lists(), press, st.none() | phases),
        st.builds(m.Frm, powers, power_lists(), press),
    )
    return level0
