"""The ``diplomacy`` Python package's side of the server: its saved-game files
(:mod:`dipnet.saved_game`) and its network protocol, so that agents written against that
package play in this server's games beside DAIDE bots and people on the web page."""
