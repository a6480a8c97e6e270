"""Run DumbBot: ``python -m diplomat.bots.dumbbot --help``."""

import sys

from diplomat.bots.commandline import run
from diplomat.bots.dumbbot import ENTRY

sys.exit(run(ENTRY))
