"""Rule sets: the choices the DATC leaves open, as one frozen value passed to adjudication.

``DATC`` is this engine's own reading (the DATC 3.0 preferred options) and the default of
every entry point. ``PACKAGE`` adjudicates as the ``diplomacy`` Python package (1.1.2) does,
so that its games replay unchanged and its clients' games can be played by the rules they
expect. Each difference is one flag, read by the one module where that rule lives:

- ``land_fallback`` (``engine.movement``): DATC 4.A.3 lists as an option that an army ordered
  "via convoy" to an adjacent province (or convoyed by a fleet of its own power) whose convoy
  orders form no route moves over land instead (6.G.6, 6.G.8).
- ``coastless_supports`` (``engine.movement``): DATC 4.B.4 lists as an option that the coast
  named in a support order is ignored (6.B.9).
- ``convoyed_retreats_anywhere`` (``engine.movement``): a unit dislodged by a convoyed army
  may retreat to any empty adjacent location, standoff provinces and the attacker's origin
  included; the package's reading of 6.G.10, which DATC 3.0 does not offer.
- ``paradox_1982`` (``engine.movement``): DATC 4.A.2 lists the 1982 rule as an option: a
  convoyed army does not cut a support for or against a fleet ordered to convoy it.
- ``home_distance_removals`` (``engine.defaults``): civil-disorder removals as the package
  makes them (distance to home centres, fleets over their own moves, ties by the package's
  location names) instead of DATC 3.0 4.D.8 (distance to owned centres, ties by English name).
- ``package_own_unit_supports`` (``engine.movement``): deviations of the package's that no
  DATC option describes, in how supports that help dislodge the supporter's own unit count:
  for a move that goes "via convoy" they count (DATC 6.D.12: never), and in a head-to-head
  battle they do not count to the defence either (DATC 6.E.3 counts them there), and
  against a convoying fleet they count to disrupt the convoy even when the attack fails.
- ``land_fallback`` also covers an army convoyed to an adjacent province by a fleet of its own
  power without saying "via convoy": the package tries the convoy and, when it fails, moves
  the army over land (DATC 4.A.3's 2.x reading; 3.0 keeps it a failed convoy).
"""

from __future__ import annotations

from dataclasses import dataclass


class RulesError(ValueError):
    """An unknown rule set name."""


@dataclass(frozen=True, slots=True)
class Rules:
    name: str
    land_fallback: bool = False
    coastless_supports: bool = False
    convoyed_retreats_anywhere: bool = False
    paradox_1982: bool = False
    home_distance_removals: bool = False
    package_own_unit_supports: bool = False


DATC = Rules("datc")
PACKAGE = Rules(
    "package",
    land_fallback=True,
    coastless_supports=True,
    convoyed_retreats_anywhere=True,
    paradox_1982=True,
    home_distance_removals=True,
    package_own_unit_supports=True,
)
RULE_SETS: dict[str, Rules] = {r.name: r for r in (DATC, PACKAGE)}

# The package's names for the provinces whose DAIDE tokens it does not use; its civil
# disorder breaks ties in the alphabetical order of its own names.
PACKAGE_NAMES = {"ECH": "ENG", "GOB": "BOT", "GOL": "LYO"}


def rules_named(name: str) -> Rules:
    """The rule set called ``name``; :class:`RulesError` naming the known ones if none is."""
    try:
        return RULE_SETS[name]
    except KeyError:
        known = ", ".join(RULE_SETS)
        raise RulesError(f"unknown rule set {name!r} (known: {known})") from None
