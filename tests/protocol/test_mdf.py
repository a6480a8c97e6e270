"""MDF <-> the engine's map: the standard map renders to exactly the standard MDF."""

from diplomat.engine.map import load_map
from diplomat.engine.state import initial_state
from diplomat.protocol import messages
from diplomat.protocol.codec import parse_payload, parse_text, render_payload, render_text
from diplomat.protocol.mdf import AdjacencyEntry, CentreGroup, MapDefinition, ProvinceAdjacency
from diplomat.protocol.tokens import STANDARD
from tests.protocol.standard_mdf import STANDARD_MDF


def standard_definition() -> MapDefinition:
    return MapDefinition.from_map(load_map("standard"))


def test_standard_map_renders_to_the_standard_mdf() -> None:
    assert render_text(messages.Mdf(standard_definition()), STANDARD) == STANDARD_MDF


def test_standard_mdf_parses_to_the_standard_map() -> None:
    message = parse_text(STANDARD_MDF, STANDARD)
    assert isinstance(message, messages.Mdf) and message.definition is not None
    assert message.definition == standard_definition()
    gmap = load_map("standard")
    data = message.definition.to_map_dict("standard", names_from=gmap)
    for key in ("powers", "provinces", "adjacency"):
        assert data[key] == gmap.to_dict()[key]


def test_mdf_binary_size_and_round_trip() -> None:
    message = messages.Mdf(standard_definition())
    payload = render_payload(message, STANDARD)
    assert len(payload) == 2562  # as in the AiServer captures (spec §1.8)
    assert parse_payload(payload, STANDARD) == message


def test_mdf_gives_a_playable_map_without_names() -> None:
    message = parse_text(STANDARD_MDF, STANDARD)
    assert isinstance(message, messages.Mdf) and message.definition is not None
    gmap = message.definition.to_map("standard")
    standard = load_map("standard")
    assert gmap.provinces["STP"].coasts == ("NC", "SC")
    assert gmap.provinces["PAR"].type == "land"
    assert gmap.provinces["NTH"].type == "sea"
    assert gmap.provinces["STP"].name == "STP"
    assert gmap.supply_centres == standard.supply_centres
    assert gmap.homes == standard.homes
    assert gmap.fleet_adj == standard.fleet_adj
    assert gmap.army_adj == standard.army_adj


def test_terrain_comes_from_the_adjacency_entries() -> None:
    definition = MapDefinition(
        powers=("AUS", "ENG"),
        centres=(
            CentreGroup(("AUS",), ("VIE",)),
            CentreGroup(("AUS", "ENG"), ("LON",)),
            CentreGroup(("UNO",), ()),
        ),
        non_centres=("NTH", "ECH", "WAL"),
        adjacencies=(
            ProvinceAdjacency("VIE", (AdjacencyEntry("A", None, ()),)),
            ProvinceAdjacency(
                "LON", (AdjacencyEntry("A", None, ("WAL",)), AdjacencyEntry("F", None, ("NTH",)))
            ),
            ProvinceAdjacency("NTH", (AdjacencyEntry("F", None, ("LON",)),)),
            ProvinceAdjacency("WAL", (AdjacencyEntry("A", None, ("LON",)),)),
        ),
    )
    text = render_text(messages.Mdf(definition), STANDARD)
    assert "( ( AUS ENG ) LON )" in text
    assert parse_text(text, STANDARD) == messages.Mdf(definition)
    data = definition.to_map_dict("tiny")
    assert data["provinces"]["VIE"]["type"] == "land"
    assert data["provinces"]["LON"]["type"] == "coast"
    assert data["provinces"]["NTH"]["type"] == "sea"
    assert data["provinces"]["ECH"]["type"] == "land"  # listed, but no adjacency entry
    assert data["powers"]["AUS"]["homes"] == ["VIE", "LON"]
    assert data["powers"]["ENG"]["homes"] == ["LON"]


def test_now_and_sco_from_the_initial_state() -> None:
    state = initial_state(load_map("standard"))
    now = messages.Now.from_state(state)
    sco = messages.Sco.from_centres(state.centres, state.map)
    assert render_text(now, STANDARD).startswith("NOW ( SPR 1901 ) ( AUS AMY BUD ) ( AUS FLT TRI )")
    assert "( RUS FLT ( STP SCS ) )" in render_text(now, STANDARD)
    assert len(now.units) == 22
    assert render_text(sco, STANDARD).endswith(
        "( UNO BEL BUL DEN GRE HOL NWY POR RUM SER SPA SWE TUN )"
    )
    back = parse_text(render_text(now, STANDARD), STANDARD)
    assert isinstance(back, messages.Now)
    sco_back = parse_text(render_text(sco, STANDARD), STANDARD)
    assert isinstance(sco_back, messages.Sco)
    assert back.to_state(state.map, sco_back.centres()) == state
