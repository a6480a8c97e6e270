"""The token numbers on which DAIDE sources disagree, decided here and nowhere else.

Spec §2.6 and §7.1-7.2: FCT, FOR and FWD have two numberings in the wild, and CCL/NAR have two
more. We follow the spec's recommendation:

* FCT/FOR/FWD use the numbering of David Norman's AI client (and every bot built on it, the
  Polarsoft and RSC frameworks, and diplomacy/diplomacy): FCT 0x4A06, FOR 0x4A07, FWD 0x4A08.
  Parlance's edition of the protocol and the Diplominator swap them; no bot in use does.
* CCL/NAR: no reference implementation settles it, so it is a setting. The default is the
  diplomacy/diplomacy numbering (NAR 0x4A25, CCL 0x4A26); Parlance-built bots want the other.

Only press uses these tokens, so level-0 games are unaffected by either choice.
"""

from __future__ import annotations

from enum import Enum

FCT = 0x4A06
FOR = 0x4A07
FWD = 0x4A08


class CclNar(Enum):
    """Which of 0x4A25/0x4A26 is CCL and which is NAR. Values are ``(CCL, NAR)``."""

    DIPLOMACY = (0x4A26, 0x4A25)
    PARLANCE = (0x4A25, 0x4A26)

    @property
    def ccl(self) -> int:
        return self.value[0]

    @property
    def nar(self) -> int:
        return self.value[1]


DEFAULT_CCL_NAR = CclNar.DIPLOMACY
