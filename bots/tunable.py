"""Named, ranged parameters of a bot, read from ``--param NAME=VALUE``.

A bot keeps its constants in a frozen dataclass whose fields are declared with
:func:`ranged` (a default, a range and a one-line meaning). :func:`specs` lists them for a
tuner or ``--help``; :func:`parse_overrides` applies ``NAME=VALUE`` strings with a clear error
for an unknown name, a value that is not a number, or one outside its range. Bordeaux's
``Params`` and DumbBot's ``DumbParams`` both use it.
"""

from __future__ import annotations

import argparse
import difflib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, fields, replace
from typing import Any, TypeVar

T = TypeVar("T")


def ranged(default: float, lo: float, hi: float, doc: str) -> Any:
    """A dataclass field with a range and a meaning (an ``int`` default makes an integer
    parameter)."""
    return field(default=default, metadata={"range": (lo, hi), "doc": doc})


@dataclass(frozen=True)
class ParamSpec:
    name: str
    type: type
    default: float
    low: float
    high: float
    doc: str


class ParamError(ValueError):
    """An unknown parameter name, or a value it cannot take."""


def specs(cls: type) -> tuple[ParamSpec, ...]:
    """Every ranged field of dataclass ``cls``, in declaration order."""
    out = []
    for f in fields(cls):
        lo, hi = f.metadata["range"]
        kind = int if isinstance(f.default, int) and not isinstance(f.default, bool) else float
        out.append(ParamSpec(f.name, kind, f.default, lo, hi, f.metadata["doc"]))  # type: ignore[arg-type]
    return tuple(out)


def parse_value(spec: ParamSpec, text: str) -> float:
    try:
        value: float = spec.type(text)
    except ValueError:
        kind = "an integer" if spec.type is int else "a number"
        raise ParamError(f"--param {spec.name}: {text!r} is not {kind}") from None
    if not spec.low <= value <= spec.high:
        raise ParamError(
            f"--param {spec.name}: {text} is outside its range {spec.low:g} to {spec.high:g}"
        )
    return value


def parse_overrides(cls: type[T], items: Iterable[str], base: T | None = None) -> T:
    """``base`` (default: ``cls()``) with every ``NAME=VALUE`` of ``items`` applied."""
    by_name = {s.name: s for s in specs(cls)}
    changes: dict[str, Any] = {}
    for item in items:
        name, sep, text = item.partition("=")
        name = name.strip()
        if not sep:
            raise ParamError(f"--param {item!r}: expected NAME=VALUE")
        spec = by_name.get(name)
        if spec is None:
            near = difflib.get_close_matches(name, by_name, n=3)
            hint = f" (did you mean {', '.join(near)}?)" if near else ""
            known = ", ".join(by_name)
            raise ParamError(f"--param: unknown parameter {name!r}{hint}; known: {known}")
        changes[name] = parse_value(spec, text.strip())
    return replace(base if base is not None else cls(), **changes)  # type: ignore[type-var]


def param_item(cls: type) -> Callable[[str], str]:
    """An argparse ``type`` for ``--param NAME=VALUE`` of dataclass ``cls``: a bad item is
    refused at parse time with the reason (unknown name, not a number, out of range)."""

    def check(text: str) -> str:
        try:
            parse_overrides(cls, [text])
        except ParamError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
        return text

    return check


def describe(cls: type) -> str:
    """One line per parameter: name, default, range, meaning (for ``--help`` and docs)."""
    return "\n".join(f"{s.name}={s.default:g} [{s.low:g}..{s.high:g}]: {s.doc}" for s in specs(cls))
