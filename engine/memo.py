"""The memos of one map, each an object of its own class, in one holder the map owns.

Every memo caches a pure function of the map and of immutable values (units, orders, convoy
tables), so what it hands out may be shared freely: nothing a caller receives can be changed,
and no result depends on what a memo holds (a cleared memo gives the same answers, slower).
Each module that memoises defines its memo's class and makes it on first use; each memo is
bounded by that module and emptied when full. :meth:`MapMemo.clear` empties them all.

The memos, by owner: ``engine.convoy.ConvoyTables`` (convoy destinations by army and fleets),
``engine.legal.Codes`` (unit codes and order blocks), ``engine.movement.UnitMemo`` (units that
end a move), ``engine.notation.Readings`` (the board-free reading of an order text),
``engine.map.Distances`` (distances to a set of provinces, for civil disorder).

Why the map owns its :class:`MapMemo` (``gmap.memo``), rather than a game, a bot or a caller
that would pass one in:

- Its lifetime and validity are the map's. Everything memoised is keyed by the map's own
  codes and provinces, so a memo is right for exactly one map; held by the map, it cannot be
  consulted for another. Several maps loaded in one process (variants) each have their own,
  and nothing crosses between them. A memo passed in separately could be paired with a state
  of another map, and a caller would have to get that right at every call.
- Every user gains from one memo per map: the server's games on a map, a bot's thousands of
  candidate positions, its opponent models and the next phase all list and adjudicate from
  the same blocks. Owned by a game or a search, each would build its own again.
- The engine's entry points stay functions of values (``process(state, orders)``,
  ``legal_orders(state)``, ``parse_order(gmap, text, ...)``): a state carries its map, and so
  its memos. Passing a memo through them would add a parameter to every entry point and every
  caller (server, bots, web, tournament, replay), for no change in any result.

A memo is still an explicit object: typed, of its own class, reached through ``gmap.memo``
only, bounded, and emptied by ``gmap.memo.clear()``; :meth:`MapMemo.kinds` says which exist.
Per-position caches live with the position instead (``engine.validate.BoardIndex``, and
``engine.search.SearchPosition``, which its owner makes and drops).
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

    def kinds(self) -> tuple[type[Any], ...]:
        """The classes of the memos made so far."""
        return tuple(self._by_class)

    def clear(self) -> None:
        """Empty every memo (the next calls make new ones)."""
        self._by_class.clear()
