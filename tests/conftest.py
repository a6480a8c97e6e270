"""The suite runs the pure Python engine whatever is built on this machine; the compiled one
is tested on its own (``tests/engine/test_compile.py`` builds it into a temporary folder and
runs the engine tests against it)."""

import os

os.environ.setdefault("DIPLOMAT_ENGINE", "pure")
