"""The press levels of DAIDE (spec §4.3), as one table: the level each press token introduces.

Rendering marks every press construct with the level of its leading token from
:data:`TOKEN_LEVEL` (``protocol.render``), and the server trims TRY by the same table
(``protocol.levels.trim_try``), so what a game allows and what TRY may offer cannot disagree.
Three constructs depend on where they stand, and say so where they are rendered: SND and FRM
are level 10 as messages and 120 inside press (forwarding); AND and ORR are level 30 once,
straight under PRP, and 50 otherwise (as CHO); IDK is level 60 of a query and 130 of a
proposal, insistence or suggestion (as WHY).
"""

from __future__ import annotations

# The lowest press level: SND itself, and any level-0 construct (DRW, NOT, YES, HUH ...)
# written inside press.
PRESS = 10
# The level of free text (a string where press goes).
FREE_TEXT = 8000

# The level each token introduces where it leads a press construct (and where TRY lists it).
TOKEN_LEVEL: dict[str, int] = {
    token: level
    for level, tokens in (
        (PRESS, "PRP PCE ALY VSS DRW SLO NOT NAR YES REJ BWX HUH CCL FCT TRY"),
        (20, "XDO DMZ"),
        (30, "AND ORR"),
        (40, "SCD OCC UNT"),
        (50, "CHO"),
        (60, "INS QRY THK IDK SUG"),
        (70, "WHT HOW"),
        (80, "EXP SRY"),
        (90, "FOR"),
        (100, "IFF THN ELS"),
        (110, "XOY YDO"),
        (120, "FRM FWD BCC SND"),
        (130, "WHY POB"),
        (140, "UHY HPY ANG"),
        (150, "ROF"),
        (160, "ULB UUB"),
    )
    for token in tokens.split()
}

# Every press level a game may have (0: no press).
LEVELS = (0, *sorted(set(TOKEN_LEVEL.values())), FREE_TEXT)
