"""The map drawing: the SVG document, its id/class contract, and ``diplomat render``."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from diplomat.cli.main import main
from diplomat.engine.map import GameMap, load_map, province_of
from diplomat.engine.notation import parse_order
from diplomat.engine.orders import Order, Outcome, Waive
from diplomat.engine.simulate import random_game
from diplomat.engine.state import GameState, initial_state
from diplomat.engine.turn import process
from diplomat.mapdraw.geometry import geometry, point_in
from diplomat.mapdraw.svg import dom_id, render_map
from diplomat.server.store import Store
from tests.boards import STANDARD_START, board
from tests.mapdraw.stored import store_random_game

SVG = "{http://www.w3.org/2000/svg}"
GMAP = load_map("standard")


def parse(svg: str) -> ET.Element:
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg"
    return root


def by_id(root: ET.Element) -> dict[str, ET.Element]:
    return {e.attrib["id"]: e for e in root.iter() if "id" in e.attrib}


def classes(e: ET.Element) -> set[str]:
    return set(e.attrib.get("class", "").split())


def orders_of(state: GameState, *texts: str) -> dict[str, list[Order]]:
    """Orders written ``"FRA A PAR - BUR"``, grouped by power."""
    out: dict[str, list[Order]] = {}
    for text in texts:
        power, rest = text.split(" ", 1)
        out.setdefault(power, []).append(parse_order(GMAP, rest, power, state.phase.kind))
    return out


# -- the document ---------------------------------------------------------------------------


def test_start_position_document() -> None:
    state = initial_state(GMAP)
    root = parse(render_map(GMAP, state))
    # Scales to any width: a viewBox and no fixed size.
    assert len(root.attrib["viewBox"].split()) == 4
    assert "width" not in root.attrib and "height" not in root.attrib
    assert "dipmap" in classes(root)
    assert root.attrib["data-phase"] == "S1901M"
    ids = by_id(root)

    provs = {i: e for i, e in ids.items() if i.startswith("prov-")}
    assert len(provs) == 75 == len(GMAP.provinces)
    for tok, info in GMAP.provinces.items():
        e = provs[f"prov-{tok}"]
        assert e.attrib["data-prov"] == tok
        assert e.attrib["data-name"] == info.name
        assert info.type in classes(e)
        assert e.attrib["d"]

    coasts = {i for i in ids if i.startswith("loc-")}
    assert coasts == {
        "loc-STP-NC",
        "loc-STP-SC",
        "loc-SPA-NC",
        "loc-SPA-SC",
        "loc-BUL-EC",
        "loc-BUL-SC",
    }
    assert ids["loc-STP-NC"].attrib["data-loc"] == "STP/NC"
    assert ids["loc-STP-NC"].attrib["data-coast"] == "NC"

    units = {i: e for i, e in ids.items() if i.startswith("unit-")}
    assert set(units) == {f"unit-{dom_id(p)}" for p in state.units}
    for prov, u in state.units.items():
        e = units[f"unit-{prov}"]
        assert {"unit", "army" if u.type == "A" else "fleet", f"power-{u.power}"} <= classes(e)
        assert e.attrib["data-loc"] == u.loc
        assert e.attrib["data-power"] == u.power

    centres = {i: e for i, e in ids.items() if i.startswith("sc-")}
    assert len(centres) == 34
    for prov in GMAP.supply_centres:
        owner = state.centres.get(prov)
        assert (f"owner-{owner}" if owner else "neutral") in classes(centres[f"sc-{prov}"])
        if owner:
            assert f"owner-{owner}" in classes(provs[f"prov-{prov}"])
    assert sum("neutral" in classes(e) for e in centres.values()) == 12
    assert not any(i.startswith(("order-", "pending-")) for i in ids)


def test_fleet_on_a_split_coast_is_drawn_at_that_coast() -> None:
    geo = geometry(GMAP)
    nc, sc = geo.anchor("STP/NC"), geo.anchor("STP/SC")
    assert nc != sc and nc != geo.anchor("STP")
    # The north coast is drawn north of the south coast (y grows downwards).
    assert nc[1] < sc[1]
    state = board("RUS F STP/NC", "FRA F SPA/SC", "TUR F BUL/EC")
    ids = by_id(parse(render_map(GMAP, state)))
    for prov, loc in (("STP", "STP/NC"), ("SPA", "SPA/SC"), ("BUL", "BUL/EC")):
        unit = ids[f"unit-{prov}"]
        assert unit.attrib["data-loc"] == loc
        x, y = geo.anchor(loc)
        assert unit.attrib["transform"].startswith(f"translate({x:.1f}".rstrip("0").rstrip("."))
        target = ids[f"loc-{dom_id(loc)}"]
        assert (float(target.attrib["cx"]), float(target.attrib["cy"])) == pytest.approx(
            (x, y), abs=0.06
        )


def test_drawing_agrees_with_the_map() -> None:
    """Provinces share a border in the drawing exactly when the map makes them neighbours,
    and every unit spot lies inside its province."""
    geo = geometry(GMAP)
    touching = {t for t in geo.touching if all(p in GMAP.provinces for p in t)}
    neighbours = {frozenset((a, b)) for a, ns in GMAP.neighbours.items() for b in ns}
    assert touching == neighbours
    for loc, at in geo.anchors.items():
        assert point_in(geo.outlines[province_of(loc)], at), loc
        assert point_in(geo.outlines[province_of(loc)], geo.labels[province_of(loc)]), loc


def test_map_without_layout_hints_is_drawn() -> None:
    data = dict(GMAP.to_dict())
    data["name"] = "plain"
    plain = GameMap.from_dict(data)
    root = parse(render_map(plain, initial_state(plain)))
    ids = by_id(root)
    assert sum(i.startswith("prov-") for i in ids) == 75
    assert sum(i.startswith("unit-") for i in ids) == 22


# -- orders and results -----------------------------------------------------------------------


def test_orders_and_results_are_drawn_with_their_classes() -> None:
    state = board(
        "FRA A BUR",
        "FRA A PIC",
        "GER A BEL",  # BEL dislodged by a supported attack
        "FRA A GAS",
        "FRA A MAR",
        "ITA A PIE",  # a swap that bounces; a void support
        "RUS A WAR",
        "RUS A UKR",
        "AUS A GAL",
        "AUS A RUM",  # RUM cuts UKR's support
        "ENG A YOR",
        "ENG F NTH",  # a convoy
        "TUR F ANK",
    )
    orders = orders_of(
        state,
        "FRA A BUR - BEL",
        "FRA A PIC S A BUR - BEL",
        "GER A BEL H",
        "FRA A MAR - PIE",
        "ITA A PIE - MAR",
        "FRA A GAS S A MAR",
        "RUS A WAR - GAL",
        "RUS A UKR S A WAR - GAL",
        "AUS A GAL H",
        "AUS A RUM - UKR",
        "ENG A YOR - NWY VIA",
        "ENG F NTH C A YOR - NWY",
        "TUR F ANK H",
    )
    result = process(state, orders)
    outcome = {str(o): r for o, r in result.results}
    assert outcome["A BEL H"].dislodged
    assert outcome["A UKR S A WAR - GAL"].outcome is Outcome.CUT
    assert outcome["A WAR - GAL"].outcome is Outcome.BNC

    root = parse(render_map(GMAP, state, results=result.results))
    ids = by_id(root)
    expect = {
        "order-BUR": {"move", "result-SUC"},
        "order-PIC": {"support", "support-move", "result-SUC"},
        "order-BEL": {"hold", "dislodged"},
        "order-WAR": {"move", "result-BNC", "failed"},
        "order-UKR": {"support", "result-CUT", "failed"},
        "order-GAL": {"hold", "result-SUC"},
        "order-RUM": {"move", "failed"},
        "order-YOR": {"move", "via", "result-SUC"},
        "order-NTH": {"convoy", "result-SUC"},
        "order-ANK": {"hold"},
        "order-GAS": {"support", "support-hold", "result-NSO", "void"},
        "order-MAR": {"move", "result-BNC", "failed"},
    }
    for id_, want in expect.items():
        e = ids[id_]
        assert {"order", *want} <= classes(e), (id_, classes(e))
        assert e.attrib["data-order"]
    assert "failed" not in classes(ids["order-BUR"])
    # A failed move is drawn stopped with a cross, not with an arrowhead.
    war = ids["order-WAR"]
    assert any("cross" in classes(e) for e in war.iter())
    assert not any("tip" in classes(e) for e in war.iter())
    assert any("tip" in classes(e) for e in ids["order-BUR"].iter())
    # The dislodged unit is marked.
    assert "dislodged" in classes(ids["unit-BEL"])
    assert "dislodged" not in classes(ids["unit-BUR"])
    # Every adjudicated order is drawn exactly once.
    assert sum(i.startswith("order-") for i in ids) == len(result.results)

    # The retreat that follows: the dislodged unit beside its attacker, and its retreat.
    after = result.state
    assert after.phase.kind == "retreat"
    retreat = orders_of(after, "GER A BEL R HOL")
    res = process(after, retreat)
    ids = by_id(parse(render_map(GMAP, after, results=res.results)))
    assert {"unit", "dislodged", "power-GER"} <= classes(ids["dislodged-BEL"])
    assert {"unit", "power-FRA"} <= classes(ids["unit-BEL"])
    assert {"order", "retreat", "result-SUC"} <= classes(ids["order-BEL"])


def test_pending_selected_and_highlighted() -> None:
    state = initial_state(GMAP)
    pending = orders_of(state, "FRA A PAR - BUR", "FRA F BRE - MAO")["FRA"]
    svg = render_map(
        GMAP, state, pending=pending, selected="PAR", highlight=["BUR", "GAS", "STP/NC"]
    )
    ids = by_id(parse(svg))
    assert {"order", "move", "pending", "power-FRA"} <= classes(ids["pending-PAR"])
    assert "pending" in classes(ids["pending-BRE"])
    assert not any(i.startswith("order-") for i in ids)
    assert "selected" in classes(ids["prov-PAR"])
    assert "selected" in classes(ids["unit-PAR"])
    assert "selected" not in classes(ids["unit-MAR"])
    assert "target" in classes(ids["prov-BUR"]) and "target" in classes(ids["prov-GAS"])
    assert "target" in classes(ids["loc-STP-NC"])
    assert "target" not in classes(ids["loc-STP-SC"])


def test_random_game_phases_draw_every_result() -> None:
    """Movement, retreat and adjustment phases of a random game: each order appears once with
    its result, dislodged units are drawn beside their attackers, builds and removals too."""
    kinds_seen: set[str] = set()
    for step in random_game(STANDARD_START, 1, max_year=1903):
        state, results = step.state, step.result.results
        svg = render_map(GMAP, state, results=results)
        ids = by_id(parse(svg))
        drawn = {i: e for i, e in ids.items() if i.startswith("order-")}
        assert len(drawn) == sum(not isinstance(o, Waive) for o, _ in results)
        for order, res in results:
            if isinstance(order, Waive):
                continue
            e = drawn[f"order-{dom_id(order.unit.province)}"]
            cls = classes(e)
            kinds_seen.update(cls)
            assert f"result-{res.outcome.value}" in cls
            assert ("dislodged" in cls) == res.dislodged
            assert e.attrib["data-order"] == str(order)
        for prov in state.dislodged:
            assert {"unit", "dislodged"} <= classes(ids[f"dislodged-{prov}"])
            assert "dislodged" not in classes(ids[f"unit-{prov}"])
    assert {"move", "hold", "support", "convoy", "disband", "build"} <= kinds_seen


# -- diplomat render ---------------------------------------------------------------------------


@pytest.fixture
def stored_game(tmp_path: Path) -> Path:
    return store_random_game(tmp_path / "games.sqlite")


def test_render_command_draws_a_stored_phase(
    stored_game: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "f1902.svg"
    assert main(["render", "1", "--db", str(stored_game), "--phase", "F1902M", "-o", str(out)]) == 0
    ids = by_id(parse(out.read_text()))
    store = Store(stored_game)
    rows = store.results(1, "F1902M")
    store.close()
    assert rows
    assert sum(i.startswith("order-") for i in ids) == len(rows)
    assert any("result-BNC" in classes(e) for e in ids.values())

    # The retreat phase: dislodged units waiting to retreat, with their orders.
    out_r = tmp_path / "f1902r.svg"
    assert (
        main(["render", "1", "--db", str(stored_game), "--phase", "F1902R", "-o", str(out_r)]) == 0
    )
    ids_r = by_id(parse(out_r.read_text()))
    assert any(i.startswith("dislodged-") for i in ids_r)

    # Default: the last phase, to standard output; DAIDE phase names work too.
    capsys.readouterr()
    assert main(["render", "1", "--db", str(stored_game)]) == 0
    last = parse(capsys.readouterr().out)
    assert last.attrib["data-phase"] == "S1904M"
    assert main(["render", "1", "--db", str(stored_game), "--phase", "WIN 1902", "-o", "-"]) == 0
    assert parse(capsys.readouterr().out).attrib["data-phase"] == "W1902A"


def test_render_command_without_a_game_draws_the_start(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert main(["render"]) == 0
    ids = by_id(parse(capsys.readouterr().out))
    assert sum(i.startswith("unit-") for i in ids) == 22
    out = tmp_path / "start.svg"
    assert main(["render", "-o", str(out), "--no-legend"]) == 0
    assert out.read_text().startswith("<svg")


@pytest.mark.parametrize(
    ("args", "status", "message"),
    [
        (["render", "7"], 2, "no game 7"),
        (["render", "1", "--phase", "F1920M"], 2, "has no phase F1920M"),
        (["render", "1", "--phase", "soon"], 2, "not a phase"),
        (["render", "1", "-o", "{tmp}/missing/dir/x.svg"], 1, "cannot write"),
        (["render", "--phase", "S1901M"], 2, "needs a GAME"),
    ],
)
def test_render_command_errors(
    stored_game: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    args: list[str],
    status: int,
    message: str,
) -> None:
    argv = [a.replace("{tmp}", str(tmp_path)) for a in args]
    if len(argv) > 1 and argv[1].isdigit():
        argv += ["--db", str(stored_game)]
    assert main(argv) == status
    assert message in capsys.readouterr().err


def test_render_command_without_a_database(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["render", "1", "--db", str(tmp_path / "none.sqlite")]) == 2
    assert "no database" in capsys.readouterr().err
    assert not (tmp_path / "none.sqlite").exists()
