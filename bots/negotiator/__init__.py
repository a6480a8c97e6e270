"""The negotiator: a press-talking "upper brain" over a strategic core (``--negotiate`` on
``bots.bordeaux`` and ``bots.dumbbot``).

* ``core``: the questions a core answers (:class:`~bots.negotiator.core.Core`, ``Plan``,
  ``Answer``, ``cost``);
* ``cores``: the Bordeaux search and DumbBot's heuristic as cores;
* ``agreements``: agreements in force, as constraints, and judged against ORD results;
* ``trust``: the trust record per power;
* ``personality``: honesty, trust, forgiveness, initiative, talk: the command-line options
  (``bots.client`` offers them, with ``--negotiate``, for every bot naming a ``core_adapter``);
* ``negotiator``: :class:`~bots.negotiator.negotiator.Negotiator`, the policy.

The negotiator imports no bot: a bot names its core adapter (``Bot.core_adapter``, "module:Class")
and ``bots.client.make_bot`` loads it by name, so the cores (which import the bots) and the
client library (which the bots import) never import each other.
"""
