"""``diplomat datc``, ``diplomat replay`` and ``diplomat demo``: the rules engine's commands."""

from __future__ import annotations

import argparse
import sys
from typing import Any


def register(sub: Any) -> None:
    p = sub.add_parser(
        "datc",
        help="run DATC case files (jDip text format)",
        description="Run DATC test cases in the jDip text format (DAIDE or jDip/godip province "
        "names). Prints one line per case and 'N passed, M failed'; exit status 1 if any failed.",
    )
    p.add_argument("files", nargs="+", metavar="FILE")
    p.add_argument("-q", "--quiet", action="store_true", help="print only failures and the total")
    p.set_defaults(handler=_datc)


def _datc(args: argparse.Namespace) -> int:
    from engine.datc import CaseFileError, run_file

    passed = failed = 0
    for path in args.files:
        try:
            results = run_file(path)
        except CaseFileError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        for r in results:
            if r.passed:
                passed += 1
                if not args.quiet:
                    print(f"PASS {r.case.name}")
            else:
                failed += 1
                print(f"FAIL {r.case.name} ({path}:{r.case.line}): {'; '.join(r.problems)}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0
