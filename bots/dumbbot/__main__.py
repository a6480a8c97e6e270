"""Run DumbBot: ``python -m bots.dumbbot --help``."""

import sys

from bots.commandline import run
from bots.dumbbot import ENTRY

sys.exit(run(ENTRY))
