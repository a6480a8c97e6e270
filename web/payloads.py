"""What the page may send, checked before anything acts on it.

JSON from a visitor is read by :func:`read_json`, which bounds the text's size and nesting
depth before the (recursive) parser runs and refuses numbers that are not finite or have more
digits than any field could use; then a pydantic model per payload checks every field's type
and range. Each refusal is a :class:`PayloadError` whose text says what was wrong, for the
page to show.
"""

from __future__ import annotations

import json
import math
import re
from itertools import accumulate
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, StrictBool, ValidationError

MAX_JSON = 64 * 1024  # bytes: a page's requests are a few hundred
MAX_DEPTH = 8  # the deepest a page's payload nests is 2
MAX_DIGITS = 19  # a 64-bit integer; no field's range needs more

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKET = re.compile(r"[\[\]{}]")


class PayloadError(ValueError):
    """A payload refused, with the reason the page shows."""


def nesting(text: str) -> int:
    """How deep the arrays and objects of JSON ``text`` nest (brackets inside strings do not
    count); linear, and without recursion, so that it can run before the parser."""
    brackets = _BRACKET.findall(_STRING.sub("", text))
    return max(accumulate(1 if b in "[{" else -1 for b in brackets), default=0)


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise PayloadError(f"{text[:40]} is not a finite number")
    return value


def _integer(text: str) -> int:
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise PayloadError(f"a number with {len(text)} digits is out of range")
    return int(text)


def _constant(name: str) -> Any:
    raise PayloadError(f"{name} is not a number JSON allows")


def read_json(raw: bytes | str, *, limit: int = MAX_JSON, depth: int = MAX_DEPTH) -> Any:
    """Parse a visitor's JSON within bounds; :class:`PayloadError` says why not."""
    if len(raw) > limit:
        raise PayloadError(f"the request is {len(raw)} bytes, more than the {limit} allowed")
    try:
        text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
    except UnicodeDecodeError:
        raise PayloadError("the request is not UTF-8 text") from None
    deepest = nesting(text)
    if deepest > depth:
        raise PayloadError(f"the JSON nests {deepest} deep, more than the {depth} allowed")
    try:
        return json.loads(text, parse_float=_finite, parse_int=_integer, parse_constant=_constant)
    except PayloadError:
        raise
    except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError
        raise PayloadError(f"the request is not JSON: {exc}") from None


def _blank_is_none(value: Any) -> Any:
    # The page sends null for an empty field; older pages and scripts sent "" or 0.
    return None if value == "" or (type(value) is int and value == 0) else value


def _no_bool(value: Any) -> Any:
    # pydantic takes true for 1 in lax mode; a number field given true is a mistake.
    if isinstance(value, bool):
        raise ValueError("expected a number, not true or false")
    return value


Seconds = Annotated[
    int | None,
    Field(ge=1, le=8191),
    BeforeValidator(_no_bool),
    BeforeValidator(_blank_is_none),
]
Name = Annotated[str, Field(max_length=64)]


class GameRequest(BaseModel):
    """``POST /api/games``: the game a visitor asks for (the hub checks the names against
    the map and the bots it has)."""

    model_config = ConfigDict(extra="forbid")

    map: Name | None = None
    power: Name | None = None
    level: Annotated[int | None, Field(ge=0, le=8000), BeforeValidator(_no_bool)] = None
    pda: bool | None = None  # partial draws allowed (press level 10 and up; web.talk)
    opponents: Annotated[list[Name] | None, Field(max_length=64)] = None
    move_time: Seconds = None
    retreat_time: Seconds = None
    build_time: Seconds = None
    max_year: Annotated[
        int | None, Field(ge=1, le=9999), BeforeValidator(_no_bool), BeforeValidator(_blank_is_none)
    ] = None
    name: Annotated[str | None, Field(max_length=200)] = None
    listed: StrictBool | None = None  # shown on the server's games page (web.lobby)
    # A game with people (web.people): each power's seat, and a bot for an untaken one.
    seats: Annotated[dict[Name, Name] | None, Field(max_length=64)] = None
    fill_bot: Name | None = None
    fill_after: Seconds = None


def game_request(data: Any) -> dict[str, Any]:
    """A checked ``POST /api/games`` body, with the fields it gave (others keep defaults)."""
    if not isinstance(data, dict):
        raise PayloadError("expected a JSON object")
    try:
        return GameRequest.model_validate(data).model_dump(exclude_unset=True)
    except ValidationError as exc:
        raise PayloadError(first_problem(exc)) from None


# -- WebSocket frames ----------------------------------------------------------------------------

Loc = Annotated[str, Field(max_length=16)]
Short = Annotated[str, Field(max_length=64)]
Index = Annotated[int, Field(ge=-(1 << 31), le=1 << 31), BeforeValidator(_no_bool)]


class _Frame(BaseModel):
    model_config = ConfigDict(extra="ignore")


class Hello(_Frame):
    t: Literal["hello"]
    game: Annotated[int, Field(ge=0, le=1 << 62), BeforeValidator(_no_bool)]
    token: Annotated[str, Field(max_length=200)]


class Watch(_Frame):
    """The first message of a spectator's page: the listed game it watches."""

    t: Literal["watch"]
    game: Annotated[int, Field(ge=0, le=1 << 62), BeforeValidator(_no_bool)]


class History(_Frame):
    t: Literal["history"]
    index: Index | None = None


class Start(_Frame):
    t: Literal["start"]


class Click(_Frame):
    t: Literal["click", "select", "clear"]
    loc: Loc


class Choose(_Frame):
    t: Literal["choose"]
    id: Short


class Typed(_Frame):
    t: Literal["order"]
    text: Annotated[str, Field(max_length=4000)]


def _phase_name(value: Any) -> Any:
    if value is not None and not isinstance(value, str):
        raise ValueError('a Ready names its phase as text, e.g. "S1901M"')
    return value


class Ready(_Frame):
    t: Literal["ready"]
    on: bool = True
    phase: Annotated[str | None, Field(max_length=16), BeforeValidator(_phase_name)] = None


class Press(_Frame):
    t: Literal["press"]
    op: Literal["to", "add", "pick", "done", "abort", "drop", "send", "reply", "cancel"]
    power: Short | None = None
    kind: Short | None = None
    index: Index | None = None
    how: Short | None = None
    seq: Index | None = None
    answer: Short | None = None


class Draw(_Frame):
    """A draw vote (``on``) or its withdrawal; ``powers`` names a partial draw (web.talk)."""

    t: Literal["draw"]
    on: bool = True
    powers: Annotated[list[Short], Field(max_length=64)] | None = None


class Talk(_Frame):
    """Free text to ``to`` (press level 8000; its length is checked by web.talk)."""

    t: Literal["talk"]
    to: Annotated[list[Short], Field(max_length=64)]
    text: Annotated[str, Field(max_length=4000)]


FRAMES: dict[str, type[_Frame]] = {
    "hello": Hello,
    "watch": Watch,
    "history": History,
    "start": Start,
    "click": Click,
    "select": Click,
    "clear": Click,
    "choose": Choose,
    "order": Typed,
    "ready": Ready,
    "press": Press,
    "draw": Draw,
    "talk": Talk,
}


def frame(text: str, limit: int = MAX_JSON) -> dict[str, Any]:
    """A checked WebSocket request from a page (the fields the page sent, typed)."""
    data = read_json(text, limit=limit)
    if not isinstance(data, dict):
        raise PayloadError("a request is a JSON object")
    kind = data.get("t")
    model = FRAMES.get(kind) if isinstance(kind, str) else None
    if model is None:
        if not isinstance(kind, str):
            raise PayloadError("a request names its kind in t, as text")
        raise PayloadError(f"unknown request {kind[:20]!r}")
    try:
        return model.model_validate(data).model_dump(exclude_unset=True) | {"t": kind}
    except ValidationError as exc:
        raise PayloadError(f"{kind}: {first_problem(exc)}") from None


def first_problem(exc: ValidationError) -> str:
    """The first thing pydantic found wrong, where it was: ``move_time: Input should be ...``."""
    err = exc.errors()[0]
    where = ".".join(str(x) for x in err.get("loc", ()))
    return f"{where}: {err['msg']}" if where else str(err["msg"])


__all__ = [
    "MAX_DEPTH",
    "MAX_JSON",
    "GameRequest",
    "PayloadError",
    "first_problem",
    "frame",
    "game_request",
    "nesting",
    "read_json",
]
