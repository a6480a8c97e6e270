"""Every THX note the validator gives, and the DATC choices it implements."""

from __future__ import annotations

import pytest

from diplomat.engine.notation import parse_order
from diplomat.engine.orders import Note
from diplomat.engine.orderset import OrderSet
from diplomat.engine.state import GameState

from .helpers import GMAP, board


def note(state: GameState, power: str, text: str) -> Note:
    order = parse_order(GMAP, text, power, state.phase.kind)
    return OrderSet(state).submit(power, order).note


MOVES = board(
    "ENG F NTH", "ENG A YOR", "ENG F LON", "FRA A PAR", "RUS F SEV", "TUR F BLA", "FRA F MAO"
)


@pytest.mark.parametrize(
    "power, text, expected",
    [
        ("ENG", "F NTH - NWY", Note.MBV),
        ("ENG", "A YOR - NWY", Note.MBV),  # by convoy over the fleet in the North Sea
        ("ENG", "A YOR - NWY VIA", Note.MBV),
        ("ENG", "F NTH - PIC", Note.FAR),
        ("ENG", "A YOR - NTH", Note.FAR),  # armies cannot enter the sea
        ("ENG", "F LON - NTH", Note.MBV),
        ("ENG", "F NTH - NTH", Note.FAR),
        ("ENG", "A EDI H", Note.NSU),
        ("ENG", "A PAR H", Note.NYU),
        ("ENG", "F NTH C A YOR - NWY", Note.MBV),
        ("ENG", "F LON C A YOR - NWY", Note.NAS),  # a fleet in a coastal province cannot convoy
        ("ENG", "F NTH C F LON - NWY", Note.NSA),
        ("ENG", "F NTH C A WAL - NWY", Note.NSA),  # nobody in Wales
        ("ENG", "F NTH - STP", Note.FAR),
        ("FRA", "F MAO - SPA", Note.CST),  # both coasts reachable
        ("FRA", "F MAO - SPA/NC", Note.MBV),
        ("RUS", "F SEV - BUL", Note.FAR),
        ("TUR", "F BLA - BUL", Note.MBV),  # only the east coast: normalised to BUL/EC
        ("ENG", "F NTH S A YOR - NWY", Note.FAR),  # the supporter is the only convoy (6.D.31)
        ("ENG", "F NTH S F LON - ECH", Note.MBV),
        ("ENG", "F NTH S F LON - WAL", Note.FAR),  # the North Sea does not touch Wales
        ("ENG", "F NTH S A YOR - EDI", Note.MBV),
        ("ENG", "F LON S A YOR - NWY", Note.FAR),  # London cannot reach Norway
        ("ENG", "F LON S F NTH", Note.MBV),
        ("ENG", "F LON S A PAR", Note.FAR),
        ("ENG", "F NTH S A EDI", Note.NSU),
        ("ENG", "F NTH R NWY", Note.NRS),
        ("ENG", "A YOR B", Note.NRS),
    ],
)
def test_movement_notes(power: str, text: str, expected: Note) -> None:
    assert note(MOVES, power, text) is expected


def test_normalised_coasts_and_types() -> None:
    book = OrderSet(MOVES)
    checked = book.submit("TUR", parse_order(GMAP, "F BLA - BUL", "TUR"))
    assert str(checked.order) == "F BLA - BUL/EC"
    # DATC 4.C.2: the written unit type is ignored; 4.B.6: a coast on an army move is ignored.
    checked = book.submit("ENG", parse_order(GMAP, "F YOR - LON/NC", "ENG"))
    assert checked.note is Note.MBV and str(checked.order) == "A YOR - LON"


def test_via_routes() -> None:
    state = board("ITA A TUN", "ITA F ION", "ITA F EAS", "TUR A SYR")
    from diplomat.engine.orders import Move
    from diplomat.engine.state import Unit

    army = Unit("ITA", "A", "TUN")
    book = OrderSet(state)
    assert book.submit("ITA", Move(army, "SYR", True, ("ION", "EAS"))).note is Note.MBV
    assert book.submit("ITA", Move(army, "SYR", True, ("ION", "AEG"))).note is Note.NSF
    assert book.submit("ITA", Move(army, "SYR", True, ("EAS", "ION"))).note is Note.FAR
    assert book.submit("ITA", Move(army, "SYR", True, ("ION",))).note is Note.FAR
    assert book.submit("ITA", Move(army, "SYR", True, ("TUN",))).note is Note.NSF


def test_retreat_notes() -> None:
    from diplomat.engine.state import Dislodged, Phase, Unit, make_state

    unit = Unit("FRA", "F", "BEL")
    state = make_state(
        GMAP,
        Phase("SUM", 1901),
        [Unit("ENG", "F", "BEL"), Unit("ENG", "A", "PIC")],
        {},
        [Dislodged(unit, "NTH", ("HOL",))],
    )
    assert note(state, "FRA", "F BEL - HOL") is Note.MBV
    assert note(state, "FRA", "F BEL - PIC") is Note.NVR
    assert note(state, "ENG", "F BEL - HOL") is Note.NYU
    assert note(state, "ENG", "A PIC - BUR") is Note.NRN
    assert note(state, "FRA", "A BUR - PAR") is Note.NSU
    assert note(state, "FRA", "F BEL D") is Note.MBV
    assert note(state, "FRA", "F BEL H") is Note.NRS


def test_adjustment_notes_and_counts() -> None:
    centres = {"LON": "ENG", "EDI": "ENG", "LVP": "ENG", "NWY": "ENG", "BEL": "ENG", "PAR": "FRA"}
    state = board(
        "ENG F LON", "FRA A PAR", "FRA A BUR", "FRA A PIC", phase="W1901A", centres=centres
    )
    book = OrderSet(state)

    def give(power: str, text: str) -> Note:
        return book.submit(power, parse_order(GMAP, text, power, "adjustment")).note

    assert give("ENG", "A NWY B") is Note.HSC
    assert give("ENG", "A PAR B") is Note.HSC
    assert give("ENG", "A LON B") is Note.ESC
    assert give("ENG", "A YOR B") is Note.NSC
    assert give("ENG", "A NTH B") is Note.NSC
    assert give("ENG", "F EDI B") is Note.MBV
    assert give("ENG", "F EDI B") is Note.ESC  # DATC 4.D.5: the first build there counts
    assert give("ENG", "A LVP B") is Note.MBV
    assert give("ENG", "WAIVE") is Note.MBV
    assert give("ENG", "WAIVE") is Note.MBV
    assert give("ENG", "WAIVE") is Note.NMB  # five centres, one unit: four builds
    assert book.missing_adjustments("ENG") == 0
    assert give("FRA", "WAIVE") is Note.NMB
    assert give("FRA", "A BUR D") is Note.MBV
    assert book.missing_adjustments("FRA") == 1  # one centre, three units: two removals
    assert give("FRA", "A PIC D") is Note.MBV
    assert give("FRA", "A PIC D") is Note.MBV  # the same removal again changes nothing
    assert give("FRA", "A PAR D") is Note.NMR
    assert book.missing_adjustments("FRA") == 0
    assert give("FRA", "A LON D") is Note.NYU
    assert give("FRA", "A MUN D") is Note.NSU
    russia = board("RUS A MOS", phase="W1901A", centres={"STP": "RUS", "MOS": "RUS"})
    b2 = OrderSet(russia)
    assert b2.submit("RUS", parse_order(GMAP, "F STP B", "RUS", "adjustment")).note is Note.CST
    assert b2.submit("RUS", parse_order(GMAP, "F MOS B", "RUS", "adjustment")).note is Note.ESC
    assert b2.submit("RUS", parse_order(GMAP, "F STP/NC B", "RUS", "adjustment")).note is Note.MBV
    assert b2.missing_adjustments("RUS") == 0


def test_replacing_and_cancelling() -> None:
    book = OrderSet(MOVES)
    yor = parse_order(GMAP, "A YOR - NWY", "ENG")
    assert book.submit("ENG", yor).note is Note.MBV
    assert book.submit("ENG", parse_order(GMAP, "A YOR H", "ENG")).note is Note.MBV
    assert [str(o) for o in book.orders_of("ENG")] == ["A YOR H"]
    assert not book.cancel("ENG", yor)
    assert book.cancel("ENG", parse_order(GMAP, "A YOR H", "ENG"))
    assert book.orders_of("ENG") == []
    assert {str(u) for u in book.missing_units("ENG")} == {"F NTH", "A YOR", "F LON"}
    book.submit("ENG", yor)
    book.clear("ENG")
    assert book.orders_of("ENG") == []
