"""Run the Bordeaux bot: ``python -m bots.bordeaux --help``."""

import sys

from bots.bordeaux import ENTRY
from bots.commandline import run

sys.exit(run(ENTRY))
