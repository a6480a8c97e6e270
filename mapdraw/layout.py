"""Drawing hints for bundled maps: extra seed points that shape provinces, regions that are no
province (Switzerland, the land beyond the board), the frame, and where labels and supply-centre
markers sit when the defaults would collide.

Seed points are (latitude, longitude), like the engine's ``positions``; offsets are SVG user
units in a frame 1000 wide. A map without hints is still drawn, from its positions alone.
"""

from __future__ import annotations

from dataclasses import dataclass, field

LatLon = tuple[float, float]


@dataclass(frozen=True, slots=True)
class Layout:
    frame: tuple[float, float, float, float] | None = None  # south, west, north, east
    # Local magnifiers: latitude, longitude, radius in degrees of latitude, magnification.
    lenses: tuple[tuple[float, float, float, float], ...] = ()
    shape: dict[str, tuple[LatLon, ...]] = field(default_factory=dict)
    fillers: dict[str, tuple[str, tuple[LatLon, ...]]] = field(default_factory=dict)
    # Locations whose unit stands exactly at the map's position, with the name's offset
    # (above -23, below 25); others are moved to where the unit and its name have room.
    anchor: dict[str, float] = field(default_factory=dict)
    label: dict[str, tuple[float, float]] = field(default_factory=dict)
    centre: dict[str, tuple[float, float]] = field(default_factory=dict)


def _pts(text: str) -> tuple[LatLon, ...]:
    out = []
    for pair in text.split():
        lat, lon = pair.split(",")
        out.append((float(lat), float(lon)))
    return tuple(out)


STANDARD = Layout(
    frame=(31.0, -18.0, 75.0, 45.0),
    lenses=((54.3, -3.0, 8.0, 1.9), (51.3, 5.0, 3.5, 1.6), (42.0, 18.0, 7.0, 1.35)),
    shape={
        k: _pts(v)
        for k, v in {
            # Britain
            "CLY": "58.3,-4.8 57.5,-5.8 56.0,-5.0",
            "EDI": "58.3,-3.0 57.2,-1.8 55.8,-2.0",
            "LVP": "55.3,-4.5 54.7,-3.5 53.6,-3.2",
            "YOR": "54.8,-0.6 53.6,-0.4 53.0,-1.8",
            "WAL": "51.7,-4.2 52.9,-4.2 52.6,-2.9",
            "LON": "52.6,0.9 51.7,-0.9",
            "NTH": "57.5,0.5 55.0,2.0 53.2,3.0 52.2,3.0 58.5,4.0 56.3,6.0 51.9,2.5",
            "ECH": "50.3,-1.2 49.9,-4.0 49.7,-6.0 50.8,0.8 51.0,1.8 51.3,2.1 51.2,2.5 50.0,-1.5 "
            "50.4,-0.3",
            "IRI": "53.6,-5.2 51.9,-5.6 51.0,-7.5 50.5,-8.5",
            "NAO": "58.5,-8.0 55.5,-11.0 50.0,-13.0 62.0,-10.0 55.8,-7.5 58.5,-7.5",
            "NWG": "59.7,-2.5 62.0,2.0 68.0,10.0 70.0,15.0 71.0,18.0 59.5,-3.5",
            # France and Iberia
            "BRE": "48.3,-3.0 47.8,-1.8 48.4,-1.5",
            "PIC": "50.1,2.0 49.6,3.2 49.2,1.2 49.9,3.0 49.4,2.4",
            "PAR": "48.0,1.0 47.5,2.5",
            "BUR": "48.6,5.6 46.2,4.5 49.3,5.2",
            "GAS": "45.5,-0.7 43.6,-0.5 44.8,1.6",
            "MAR": "43.4,3.5 44.8,5.8 44.8,6.8",
            "MAO": "46.0,-3.2 44.4,-2.5 47.0,-5.5 44.0,-8.0 40.0,-10.5 37.0,-10.0 36.0,-7.0 "
            "48.0,-9.0",
            "SPA": "41.8,-1.5 38.2,-3.5 42.4,-4.5 37.2,-3.0",
            "POR": "41.5,-8.1 37.8,-8.3",
            "NAF": "35.2,-2.0 33.0,-5.0 35.5,4.5",
            "TUN": "34.5,11.5 36.3,9.3",
            "WES": "37.0,-1.0 38.5,2.5 38.0,6.5 36.4,-3.5",
            "GOL": "42.8,4.2 42.5,6.5 43.4,7.8",
            # Italy and the Adriatic
            "PIE": "44.6,8.3 45.5,7.6 46.0,9.2",
            "VEN": "45.5,12.2 44.4,11.8 43.6,13.2 43.0,14.0 45.1,10.8",
            "TUS": "43.3,10.8 44.2,10.0",
            "ROM": "41.6,13.3 42.4,12.1",
            "NAP": "39.2,16.3 38.3,16.0 38.1,14.5",
            "APU": "41.3,15.5 40.6,17.3 42.0,15.0",
            "TYS": "41.0,11.4 40.0,13.0 39.0,12.0 40.8,9.5 38.3,11.5",
            "ADR": "44.8,13.0 43.7,14.6 42.6,16.1 41.8,17.9",
            "ION": "39.5,18.9 38.5,17.4 37.0,17.5 36.5,20.5 35.0,18.0 33.5,15.0 36.0,14.0",
            # The Balkans
            "TRI": "45.2,15.5 44.2,16.3 43.3,17.6",
            "ALB": "42.0,19.7 40.3,19.9",
            "SER": "43.0,21.2 44.6,20.2",
            "GRE": "38.5,22.5 40.5,22.5 37.5,22.2",
            "BUL": "42.3,23.5 43.2,27.0 41.5,24.8",
            "RUM": "45.5,24.5 46.5,26.5 44.5,27.6 46.0,29.0",
            "CON": "40.3,28.5 41.3,27.2 40.3,26.8",
            "BUD": "46.5,20.5 47.8,21.6 46.3,18.0",
            "VIE": "47.5,14.5 48.0,15.2 48.3,17.6",
            "AEG": "40.3,24.0 38.5,25.0 37.0,25.0 35.8,24.0",
            "BLA": "42.5,30.5 44.0,31.0 43.5,37.5 42.2,35.0",
            # Anatolia
            "ANK": "41.2,35.8 41.0,31.5",
            "SMY": "38.0,27.5 37.5,33.0 39.0,32.0 38.8,36.5",
            "ARM": "40.5,40.0 39.3,38.5 41.0,42.0 39.5,39.0",
            "SYR": "36.8,37.5 34.0,36.5",
            "EAS": "34.5,33.5 34.5,29.5 35.3,27.5 33.8,25.5",
            # Germany and the Low Countries
            "MUN": "48.8,10.0 49.5,11.0 50.8,12.5",
            "TYR": "47.2,13.0 46.8,10.5 47.8,13.6 46.5,10.0",
            "BOH": "49.6,16.0 49.4,17.5",
            "SIL": "51.5,16.0 50.5,17.5 51.2,14.8 50.6,18.6",
            "BER": "53.5,13.0 52.0,12.0",
            "KIE": "53.2,9.0 54.5,9.8 52.3,10.0",
            "RUH": "50.5,7.5 51.3,8.0 50.0,6.9",
            "HOL": "53.0,6.0 52.0,5.0",
            "BEL": "50.3,5.3 51.0,3.3 50.9,3.8 50.5,5.6",
            "HEL": "54.2,8.3",
            # Scandinavia and the Baltic
            "DEN": "56.2,9.0 55.3,9.2 57.0,9.8 55.6,12.0 56.3,8.1",
            "SKA": "58.3,10.8 57.7,7.5",
            "BAL": "55.0,15.0 58.0,19.5 54.8,12.0",
            "GOB": "64.0,22.0 60.5,20.0 59.8,25.0 60.0,27.5 59.3,21.0",
            "SWE": "63.5,17.5 57.0,14.0 66.0,20.0 56.0,13.5",
            "NWY": "59.0,8.0 63.5,10.5 67.0,15.0 69.5,20.0 69.3,26.0",
            "FIN": "64.5,26.5 61.0,24.0 66.5,27.0",
            "BAR": "72.0,30.0 73.0,40.0 71.0,45.0 72.0,25.0 71.5,35.0 70.5,42.0",
            # Russia
            "STP": "60.0,31.0 66.0,35.0 67.5,33.5 66.0,46.0 67.3,30.5",
            "LVN": "56.0,24.0 58.0,26.5 55.0,25.5",
            "PRU": "54.2,18.0 53.5,21.5",
            "WAR": "51.5,20.0 52.8,22.5 53.0,27.0",
            "GAL": "49.0,21.5 48.8,25.5 49.5,20.3 49.0,19.6 50.5,20.0 48.9,19.3",
            "UKR": "48.0,30.0 50.5,28.0",
            "MOS": "52.0,36.0 58.0,42.0 53.5,32.0",
            "SEV": "45.0,34.0 46.0,40.0 46.5,31.5",
        }.items()
    },
    # The Irish Sea's name sits a little west, clear of Wales's.
    label={"IRI": (-5.0, -23.0)},
    fillers={
        "SWI": ("Switzerland", _pts("46.8,8.2 46.2,6.6")),
        "IRL": ("Ireland", _pts("53.4,-8.0 52.3,-8.5 54.6,-7.5")),
    },
)

LAYOUTS: dict[str, Layout] = {"standard": STANDARD}
