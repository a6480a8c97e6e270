"""diplomat: a game-master server for computer Diplomacy speaking DAIDE.

The repository keeps its packages at the top (``engine/``, ``protocol/``, ``grammar/``,
``server/``, ``bots/``, ``replay/``, ``mapdraw/``, ``tournament/``, ``web/``, ``dipnet/``,
``cli/``); this
package holds them under one import name, so an installed copy is ``diplomat.engine``,
``diplomat.server``, ... and nothing else lands at the top of site-packages. The entries beside
this file are links to those folders (see docs/ARCHITECTURE.md, "One import name").
"""
