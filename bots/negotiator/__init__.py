"""The negotiator: a press-talking "upper brain" over a strategic core (``--negotiate`` on
``bots.bordeaux`` and ``bots.dumbbot``).

* ``core``: the questions a core answers (:class:`~bots.negotiator.core.Core`, ``Plan``,
  ``Answer``, ``cost``);
* ``agreements``: agreements in force, as constraints, and judged against ORD results;
* ``trust``: the trust record per power;
* ``personality``: honesty, trust, forgiveness, initiative, talk: the command-line options
  (``bots.commandline`` offers them, with ``--negotiate``, for every bot whose entry names a
  core);
* ``negotiator``: :class:`~bots.negotiator.negotiator.Negotiator`, the policy.

The negotiator imports no bot and no map: it asks its core every question about the board.
Each bot ships its own core next to it (``bots.bordeaux.core``, ``bots.dumbbot.core``, sharing
``bots.corekit``) and names it in its :class:`~bots.entry.Entry`; the cores import the
negotiator's protocol, never the other way round (``tests/test_layout.py`` checks it).
"""
