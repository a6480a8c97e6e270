"""Reading ``diplomat show --press`` as a reader would: every line a sentence between powers
named as the map names them (a line the command could not parse into English shows the
powers' tokens and the DAIDE body instead, and fails here)."""

from __future__ import annotations

import re

from diplomat.engine.map import GameMap


def english_lines(shown: str, gmap: GameMap) -> list[str]:
    """The press lines of ``show --press`` output, each checked to be an English sentence from
    a power to powers, by the map's names for them."""
    names = sorted((info.name for info in gmap.power_info.values()), key=len, reverse=True)
    who = "|".join(re.escape(n) for n in names)
    sentence = re.compile(rf"^  ({who}) to (({who})(, | and )?)+: \S.*[.?!]$")
    lines = [line for line in shown.splitlines() if line.startswith("  ")]
    for line in lines:
        assert sentence.match(line), line
        assert "(in DAIDE)" not in line, line
    return lines
