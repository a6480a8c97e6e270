"""``diplomat map``: list the bundled maps, show one, and import a variant from DAIDE files."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import platformdirs

from diplomat.engine.map import GameMap, MapError, bundled_maps, load_map
from diplomat.protocol.mapfiles import VariantError, VariantFiles, export_variant, import_variant
from diplomat.protocol.tokens import TableError

_SUFFIXES = ("mdf", "now", "sco", "rem", "cfg")
# Read beside the variant's files too: AiMapper's positions of its provinces on a picture.
_SIBLINGS = (*_SUFFIXES, "aop")
# Map data written one entry a line.
_BLOCKS = ("powers", "provinces", "adjacency", "positions", "picture")


def register(sub: Any) -> None:
    p = sub.add_parser(
        "map",
        help="list the maps, show one, import a variant from DAIDE files or export one",
        description="Maps are data (engine/maps/NAME.json). 'list' shows the bundled ones; "
        "'show NAME' describes one; 'import FILE.mdf' (or FILE.cfg) turns a variant's DAIDE "
        "files (.mdf with .now, .sco and .rem beside it, and a Parlance .cfg for names, "
        "designer, starting turn and rules) into the project's map format, for --map PATH.",
    )
    verbs = p.add_subparsers(dest="verb", metavar="VERB")
    verbs.required = True
    ls = verbs.add_parser("list", help="the bundled maps with powers, centres and designers")
    ls.set_defaults(handler=_list)
    show = verbs.add_parser("show", help="one map's powers, centres, start and rules")
    show.add_argument("name", help="a bundled map's name or a map file (.json)")
    show.set_defaults(handler=_show)
    imp = verbs.add_parser(
        "import",
        help="convert a variant's DAIDE files (.mdf/.now/.sco/.rem/.cfg) to a map file",
        description="Read FILE (NAME.mdf or NAME.cfg) and the files named NAME.now, NAME.sco, "
        "NAME.rem, NAME.cfg and NAME.aop (AiMapper's positions) beside it where they exist, "
        "check the map, and write it as JSON. A cfg with base=MAP builds on that bundled map.",
    )
    imp.add_argument("file", type=Path, help="the variant's .mdf (or .cfg) file")
    imp.add_argument("--name", help="the map's name (default: the file's stem)")
    imp.add_argument(
        "-o",
        "--output",
        metavar="FILE.json",
        help="where to write it ('-': standard output; default NAME.json here)",
    )
    imp.set_defaults(handler=_import)
    exp = verbs.add_parser(
        "export",
        help="write a map as DAIDE files (.mdf, .now, .sco, .rem)",
        description="Write NAME.mdf, NAME.now, NAME.sco and NAME.rem (the RM's token table) "
        "for a map, as another DAIDE server or a client's test wants them.",
    )
    exp.add_argument("name", help="a bundled map's name or a map file (.json)")
    exp.add_argument("-o", "--dir", type=Path, default=Path("."), help="folder (default: here)")
    exp.set_defaults(handler=_export)


def read_variant_files(path: Path, name: str | None = None) -> VariantFiles:
    """The texts of ``path`` and of its siblings with the other variant suffixes."""
    if path.suffix.lower().lstrip(".") not in _SUFFIXES:
        raise VariantError(f"{path}: expected a .mdf or .cfg file")
    texts: dict[str, str | None] = {}
    for suffix in _SIBLINGS:
        sibling = path.with_suffix("." + suffix)
        texts[suffix] = sibling.read_text(encoding="latin-1") if sibling.is_file() else None
    if texts[path.suffix.lower().lstrip(".")] is None:
        raise VariantError(f"{path}: no such file")
    return VariantFiles(name or path.stem.lower(), **texts)


def import_files(path: Path, name: str | None = None) -> dict[str, Any]:
    """The map data of the variant files at ``path`` (bundled maps serve as ``base=``)."""
    files = read_variant_files(path, name)
    bases = {n: load_map(n) for n in bundled_maps()}
    return import_variant(files, bases)


def imported_maps_dir() -> Path:
    """Where ``--map FILE.mdf`` keeps the maps it imports (the user's data directory)."""
    return Path(platformdirs.user_data_dir("diplomat", appauthor=False)) / "maps"


def resolve_map_option(value: str) -> str:
    """A ``--map`` value as the commands take it: a bundled name or a ``.json`` file is kept;
    a variant's DAIDE ``.mdf`` (or Parlance ``.cfg``) is imported once into
    :func:`imported_maps_dir` and that file's path is returned. Raises VariantError/OSError."""
    path = Path(value)
    if path.suffix.lower() not in (".mdf", ".cfg"):
        return value
    data = import_files(path)
    folder = imported_maps_dir()
    folder.mkdir(parents=True, exist_ok=True)
    out = folder / f"{data['name']}.json"
    out.write_text(map_json(data), encoding="utf-8")
    return str(out)


def map_json(data: dict[str, Any]) -> str:
    """A map's JSON as the bundled files are written: one line per province, power and
    adjacency entry."""
    lines = ["{"]
    items = list(data.items())
    for i, (key, value) in enumerate(items):
        comma = "," if i < len(items) - 1 else ""
        if isinstance(value, dict) and key in (
            "powers",
            "provinces",
            "adjacency",
            "positions",
            "picture",
        ):
            lines.append(f" {json.dumps(key)}: {{")
            inner = list(value.items())
            for j, (k, v) in enumerate(inner):
                c = "," if j < len(inner) - 1 else ""
                if key == "adjacency":
                    lines.append(f"  {json.dumps(k)}: {{")
                    rows = list(v.items())
                    for r, (loc, dests) in enumerate(rows):
                        rc = "," if r < len(rows) - 1 else ""
                        lines.append(f"   {json.dumps(loc)}: {json.dumps(dests)}{rc}")
                    lines.append(f"  }}{c}")
                else:
                    lines.append(f"  {json.dumps(k)}: {json.dumps(v)}{c}")
            lines.append(f" }}{comma}")
        else:
            lines.append(f" {json.dumps(key)}: {json.dumps(value)}{comma}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _import(args: argparse.Namespace) -> int:
    try:
        data = import_files(args.file, args.name)
    except (OSError, VariantError, MapError) as exc:
        print(f"diplomat map import: {exc}", file=sys.stderr)
        return 2
    text = map_json(data)
    out = args.output or f"{data['name']}.json"
    if out == "-":
        sys.stdout.write(text)
    else:
        Path(out).write_text(text, encoding="utf-8")
        gmap = GameMap.from_dict(data)
        print(f"wrote {out}: {_summary(gmap)} (use it with --map {out})")
    return 0


def _export(args: argparse.Namespace) -> int:
    try:
        gmap = load_map(args.name)
        files = export_variant(gmap)
        args.dir.mkdir(parents=True, exist_ok=True)
        for suffix in ("mdf", "now", "sco", "rem"):
            text = getattr(files, suffix)
            (args.dir / f"{gmap.name}.{suffix}").write_text(text, encoding="ascii")
    except (OSError, MapError, TableError) as exc:
        print(f"diplomat map export: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {gmap.name}.mdf, .now, .sco and .rem in {args.dir}")
    return 0


def _summary(gmap: GameMap) -> str:
    return (
        f"{len(gmap.powers)} powers, {len(gmap.provinces)} provinces, "
        f"{len(gmap.supply_centres)} centres, {gmap.victory_centres} to win, "
        f"starts {gmap.start_season} {gmap.start_year}"
    )


def _list(args: argparse.Namespace) -> int:
    for name in bundled_maps():
        gmap = load_map(name)
        credit = f" — {gmap.designer}" if gmap.designer else ""
        print(f"{name:18} {gmap.title}{credit}: {_summary(gmap)}")
    return 0


def _show(args: argparse.Namespace) -> int:
    try:
        gmap = load_map(args.name)
    except MapError as exc:
        print(f"diplomat map show: {exc}", file=sys.stderr)
        return 2
    print(f"{gmap.name}: {gmap.title}")
    if gmap.designer:
        print(f"designer: {gmap.designer}")
    if gmap.source:
        print(f"source: {gmap.source}")
    print(_summary(gmap))
    if gmap.build_rule != "homes":
        print("builds: in any owned supply centre")
    for p in gmap.powers:
        info = gmap.power_info[p]
        units = " ".join(f"{t} {loc}" for t, loc in gmap.start_units.get(p, ()))
        print(f"  {p} {info.name}: centres {' '.join(gmap.start_centres.get(p, ()))}; {units}")
    return 0


__all__ = ["import_files", "map_json", "read_variant_files", "register"]
