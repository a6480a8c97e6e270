"""The searching bots' hot modules, compiled with mypyc like the engine (``engine.compiled``).

Bordeaux's search spends its time valuing boards and writing order sets, DumbBot's in its
proximity maps: compiled, the same source searches about 1.7 times the nodes per second of
thought (``bench/bots_compiled.py``). The build, its cache, its key (a hash of the source of
``bots``, ``engine`` and ``protocol``, and of the Python) and ``DIPLOMAT_ENGINE`` work as for
the engine; ``DIPLOMAT_BOTS`` (``auto``, ``pure`` or ``compiled``), if set, chooses for the
bots alone; ``python -m diplomat.bots.compile`` builds it now.
"""

from __future__ import annotations

from diplomat.engine.compiled import Group

# Pure logic with no I/O: what a search spends its time in, and what those modules import from
# their own package (a compiled module calls another of its group directly).
BOTS = Group(
    "diplomat.bots",
    (
        "dumbbot.bot",
        "bordeaux.adapter",
        "bordeaux.adjustments",
        "bordeaux.budget",
        "bordeaux.constraints",
        "bordeaux.evaluate",
        "bordeaux.models",
        "bordeaux.retreats",
        "bordeaux.search",
    ),
    ("bots", "engine", "protocol"),
    "bot search",
    "diplomat.bots.compile",
    "DIPLOMAT_BOTS",
)
