"""Run the Bordeaux bot: ``python -m diplomat.bots.bordeaux --help``."""

import sys

from diplomat.bots.bordeaux import ENTRY
from diplomat.bots.commandline import run

sys.exit(run(ENTRY))
