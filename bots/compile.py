"""Build the compiled bot search (``bots.compiled``) now, say which path runs, or clean.

python -m diplomat.bots.compile            # build it now (about 40 s on two cores)
python -m diplomat.bots.compile --status   # which path imports get, and why
"""

from __future__ import annotations

import sys

from diplomat.bots.compiled import BOTS
from diplomat.engine.compile import main

if __name__ == "__main__":
    sys.exit(main(group=BOTS))
