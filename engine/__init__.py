"""The rules engine. Importing it loads the compiled rules modules when a build of this very
source exists (``engine.compiled``); otherwise everything is pure Python."""

from diplomat.engine.compiled import install as _install

_install()
