"""The memos of one map, each an object of its own class, in one holder.

Every memo caches a pure function of the map and of immutable values (units, orders, convoy
tables), so what it hands out may be shared freely: nothing a caller receives can be changed.
Each module that memoises defines its memo's class and makes it on first use; each memo is
bounded by that module and emptied when full. A :class:`~engine.map.GameMap` owns one
:class:`MapMemo` (``gmap.memo``): every position of a game, and every game on that map,
shares it, which is what makes listing and adjudicating the thousandth position of a search
cheap. :meth:`MapMemo.clear` empties them all.

The memos, by owner: ``engine.convoy.ConvoyTables`` (convoy destinations by army and fleets),
``engine.legal.Codes`` (unit codes and order blocks), ``engine.movement.UnitMemo`` (units that
end a move), ``engine.notation.Readings`` (the board-free reading of an order text).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

M = TypeVar("M")


class MapMemo:
    """One map's memos, one object per memo class (see the module's docstring)."""

    __slots__ = ("_by_class",)

    def __init__(self) -> None:
        self._by_class: dict[type[Any], Any] = {}

    def get(self, kind: type[M], make: Callable[[], M]) -> M:
        """The memo of class ``kind``, made by ``make`` the first time."""
        found: M | None = self._by_class.get(kind)  # stored under its own class
        if found is None:
            found = self._by_class[kind] = make()
        return found

    def clear(self) -> None:
        """Empty every memo (the next calls make new ones)."""
        self._by_class.clear()
