"""Game and server settings (pydantic models: validated once, stored as JSON with each game)."""

from __future__ import annotations

from pathlib import Path

import platformdirs
from pydantic import BaseModel, ConfigDict, Field, model_validator

from diplomat.engine.map import MapError, load_map
from diplomat.engine.rules import RULE_SETS
from diplomat.protocol.frames import DEFAULT_PORT, IM_TIMEOUT
from diplomat.protocol.levels import LEVELS as PRESS_LEVELS
from diplomat.protocol.messages import Variant

# The server's defaults, each written once (the port and the IM timeout are DAIDE's own, so
# they live in the protocol, where the bots read them too).
REJOIN_GRACE = 60.0  # seconds a restarted server waits for players to come back with IAM


def default_db_path() -> Path:
    """``diplomat.sqlite`` in the user's data directory."""
    return Path(platformdirs.user_data_dir("diplomat", appauthor=False)) / "diplomat.sqlite"


# Each DAIDE variant option (HLO's, and the command line's option of the same name) and the
# setting it stands for.
VARIANT_OPTIONS = {
    "level": "level",
    "mtl": "move_time",
    "rtl": "retreat_time",
    "btl": "build_time",
    "dsd": "dsd",
    "aoa": "aoa",
    "pda": "pda",
    "npr": "npr",
    "npb": "npb",
    "ptl": "press_time",
}


class GameSettings(BaseModel):
    """How one game is played. Deadlines are seconds; None means no deadline (the phase is
    processed when every player has ordered and is ready)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    map: str = Field(description="the map: a bundled map's name or a JSON file")
    level: int = Field(0, description="press level (LVL): 0 is no press (gunboat)")
    move_time: int | None = Field(None, ge=1, le=8191, description="MTL seconds")
    retreat_time: int | None = Field(None, ge=1, le=8191, description="RTL seconds")
    build_time: int | None = Field(None, ge=1, le=8191, description="BTL seconds")
    press_time: int | None = Field(
        None, ge=0, le=8191, description="PTL: press stops this many seconds before MTL"
    )
    dsd: bool = Field(False, description="deadline stops while a player owing orders is away")
    aoa: bool = Field(False, description="any orders accepted (reported at adjudication)")
    pda: bool = Field(False, description="partial draws allowed (level 10+)")
    npr: bool = Field(False, description="no press during retreats")
    npb: bool = Field(False, description="no press during builds")
    max_year: int | None = Field(None, description="end as a draw after this year")
    draw_unchanged_years: int | None = Field(
        None, ge=1, description="end as a draw when no centre changes hands for this many years"
    )
    # A game stored before rule sets existed has none in its JSON: it loads with the default.
    rules: str = Field(
        "datc",
        description="the rule set adjudicating the game (engine.rules): datc, or package "
        "(the diplomacy Python package's choices)",
    )

    @model_validator(mode="after")
    def _check(self) -> GameSettings:
        if self.rules not in RULE_SETS:
            raise ValueError(f"unknown rule set {self.rules!r} (known: {', '.join(RULE_SETS)})")
        try:
            gmap = load_map(self.map)
        except MapError as exc:
            raise ValueError(str(exc)) from None
        if self.max_year is not None and self.max_year < gmap.start_year:
            raise ValueError(
                f"max_year {self.max_year} is before the map's first year ({gmap.start_year})"
            )
        if self.level not in PRESS_LEVELS:
            raise ValueError(f"press level must be one of {', '.join(map(str, PRESS_LEVELS))}")
        if self.level < 10 and (self.pda or self.npr or self.npb or self.press_time is not None):
            raise ValueError("PDA, NPR, NPB and PTL need press level 10 or more")
        if self.press_time is not None and self.move_time is None:
            raise ValueError("a press time limit (PTL) needs a movement deadline (MTL)")
        if (
            self.press_time is not None
            and self.move_time is not None
            and (self.press_time >= self.move_time)
        ):
            raise ValueError("the press time limit must be shorter than the movement deadline")
        return self

    def deadline_for(self, kind: str) -> int | None:
        return {"movement": self.move_time, "retreat": self.retreat_time}.get(kind, self.build_time)

    def longest_limit(self) -> int | None:
        """The longest of the phase deadlines (a TME request may ask for no more)."""
        limits = [x for x in (self.move_time, self.retreat_time, self.build_time) if x is not None]
        return max(limits) if limits else None

    def variant(self) -> Variant:
        """The variant options HLO announces."""
        return Variant(**{option: getattr(self, name) for option, name in VARIANT_OPTIONS.items()})


# Fair service (per connection): a client may send MESSAGE_BURST messages at once and
# MESSAGE_RATE a second after that before its reading is paused (throttled, never dropped); its
# own requests stop being read while more than QUEUE_BYTES of replies wait to go out to it.
MESSAGE_RATE = 100.0
MESSAGE_BURST = 200
# Its bytes are budgeted too (what parsing, checking and relaying cost grows with them): BYTE_RATE
# a second after a burst of BYTE_BURST, which holds the largest message either wire form allows
# (64 KiB) twice over. A bot's phase is a few kilobytes; a press-heavy one's, tens.
BYTE_RATE = 16384.0
BYTE_BURST = 1 << 17
QUEUE_BYTES = 1 << 20
SEND_QUEUE = 2048  # messages a client may have waiting before it counts as not reading
JOIN_TIMEOUT = 60.0  # seconds a joined client has to accept the map before it is dropped
# Seconds a connection may stay in no game (no NME, OBS or IAM accepted) after its first
# message before the server sends OFF and closes it; connections at once from one address
# (IPv6: one /64) on the server's port, beyond which a new one is turned away (OFF).
LOBBY_TIMEOUT = 60.0
PER_ADDRESS = 32
# Connections at once on the server's port in all (beyond it a new one is turned away with OFF,
# as beyond PER_ADDRESS), well under the descriptors a process is usually allowed (1024); and
# how many of those being turned away may wait for their IM at once (more are closed at once).
MAX_CONNECTIONS = 512
MAX_REFUSING = 64
TEXT_LINE_TIMEOUT = IM_TIMEOUT  # seconds a text client may leave a line unfinished

# Passcode guesses (IAM, see server.guard): after IAM_FREE_GUESSES wrong ones for a power (from
# addresses it was not played from), or from one such address, further guesses wait
# IAM_LOCKOUT seconds, doubling with each further wrong guess up to IAM_LOCKOUT_CAP; the
# address a power was played from has its own count for it, whose lockout stops doubling at
# IAM_TRUSTED_CAP.
IAM_FREE_GUESSES = 3
IAM_LOCKOUT = 1.0
IAM_LOCKOUT_CAP = 1800.0
IAM_TRUSTED_CAP = 300.0

__all__ = [
    "BYTE_BURST",
    "BYTE_RATE",
    "DEFAULT_PORT",
    "IAM_FREE_GUESSES",
    "IAM_LOCKOUT",
    "IAM_LOCKOUT_CAP",
    "IAM_TRUSTED_CAP",
    "IM_TIMEOUT",
    "JOIN_TIMEOUT",
    "LOBBY_TIMEOUT",
    "MAX_CONNECTIONS",
    "MAX_REFUSING",
    "MESSAGE_BURST",
    "MESSAGE_RATE",
    "PER_ADDRESS",
    "PRESS_LEVELS",
    "QUEUE_BYTES",
    "REJOIN_GRACE",
    "SEND_QUEUE",
    "TEXT_LINE_TIMEOUT",
    "VARIANT_OPTIONS",
    "GameSettings",
    "default_db_path",
]
