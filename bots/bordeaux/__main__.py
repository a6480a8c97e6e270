"""Run the Bordeaux bot: ``python -m bots.bordeaux --help``."""

import sys

from bots.bordeaux.bot import Bordeaux
from bots.client import run

sys.exit(run(Bordeaux))
