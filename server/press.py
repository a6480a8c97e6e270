"""The rules of press (SND): what may be sent, to whom, and when."""

from __future__ import annotations

from collections.abc import Callable

from diplomat.engine.state import GameState
from diplomat.protocol import messages
from diplomat.protocol.levels import level_error, trim_try
from diplomat.protocol.mdf import table_for_map
from diplomat.server.settings import GameSettings


def refusal(
    settings: GameSettings,
    state: GameState,
    playing: bool,
    sender: str,
    msg: messages.Snd,
    away: Callable[[str], bool],
    deadline: float | None,
    now: float,
) -> messages.Huh | messages.Rej | messages.Out | messages.Ccd | None:
    """The reply that refuses ``msg`` (HUH above the press level; REJ before the game starts
    or after it ends (``playing`` false), out of turn, to itself, in a phase without press or
    past the press deadline; OUT or CCD for a recipient
    eliminated or away), or None when it may go."""
    huh = level_error(msg, settings.level, table=table_for_map(state.map))
    if huh is not None:
        return huh
    kind = state.phase.kind
    alive = state.alive()
    if (
        not playing
        or sender not in alive
        or sender in msg.recipients
        or (msg.turn is not None and msg.turn != state.phase)
        or (settings.npr and kind == "retreat")
        or (settings.npb and kind == "adjustment")
        or past_press_deadline(settings, state, deadline, now)
    ):
        return messages.Rej(msg)
    for r in msg.recipients:
        if r not in alive:
            return messages.Out(r)
        if away(r):
            return messages.Ccd(r)
    return None


def past_press_deadline(
    settings: GameSettings, state: GameState, deadline: float | None, now: float
) -> bool:
    """PTL: press stops this many seconds before a movement deadline."""
    if settings.press_time is None or state.phase.kind != "movement" or deadline is None:
        return False
    return deadline - now < settings.press_time


def relayed(msg: messages.Snd, level: int) -> messages.Press:
    """The press as passed on: a TRY lists only the tokens of the game's level."""
    press = msg.press
    return trim_try(press, level) if isinstance(press, messages.Try) else press
