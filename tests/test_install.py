"""The project installs under one import name.

The repository keeps its packages at its top (``engine/``, ``server/``, ``cli/``, ...), as
the design asks; ``diplomat/`` holds links to them, and the build installs only that: after
``pip install .`` into an empty environment, ``import diplomat.server`` is the server and
``import server`` finds nothing, so no other project's ``server`` or ``cli`` can collide with
ours. The distribution's name is free on the public index (``diplomat`` there is another
project); the command stays ``diplomat``.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DISTRIBUTION = "diplomat-daide"
PACKAGES = (
    "engine",
    "protocol",
    "grammar",
    "server",
    "bots",
    "replay",
    "mapdraw",
    "tournament",
    "web",
    "dipnet",
    "cli",
)
LEFT_OUT = {".git", ".venv", "build", "dist", "test-artifacts", "__pycache__"}


def _wheel(tmp: Path) -> Path:
    """The wheel ``pip`` builds from a copy of the checkout (a build writes into the tree it
    builds, and the checkout's own must stay as it is)."""
    source = tmp / "source"
    shutil.copytree(
        ROOT,
        source,
        symlinks=True,
        ignore=lambda _dir, names: [n for n in names if n in LEFT_OUT or n.endswith(".egg-info")],
    )
    dist = tmp / "dist"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
         "-w", str(dist), str(source)],
        check=True, capture_output=True, timeout=600,
    )  # fmt: skip
    (wheel,) = dist.glob("*.whl")
    return wheel


def test_an_installed_copy_is_diplomat_and_nothing_else(tmp_path: Path) -> None:
    wheel = _wheel(tmp_path)
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        top = {n.split("/")[0] for n in names}
        info = next(t for t in top if t.endswith(".dist-info"))
        assert top == {"diplomat", info}, top
        metadata = z.read(f"{info}/METADATA").decode()
        entry_points = z.read(f"{info}/entry_points.txt").decode()
    assert f"Name: {DISTRIBUTION}\n" in metadata
    assert "diplomat = diplomat.cli.main:main" in entry_points
    # Every package, with the data files it reads at run time.
    for package in PACKAGES:
        assert f"diplomat/{package}/__init__.py" in names, package
    assert "diplomat/engine/maps/standard.json" in names
    assert any(n.startswith("diplomat/grammar/") and n.endswith(".lark") for n in names)
    assert "diplomat/web/static/app.js" in names

    # Installed into an empty environment (its dependencies left out: only the names matter).
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps",
         str(wheel)],
        check=True, capture_output=True, timeout=600,
    )  # fmt: skip
    elsewhere = tmp_path / "elsewhere"  # not the checkout, whose folders would be found
    elsewhere.mkdir()

    def imports(name: str) -> subprocess.CompletedProcess[str]:
        code = f"import {name}; print({name}.__file__)"
        return subprocess.run(
            [str(python), "-c", code], cwd=elsewhere, capture_output=True, text=True
        )

    found = imports("diplomat")
    assert found.returncode == 0, found.stderr
    assert str(venv) in found.stdout
    for package in PACKAGES:
        missing = imports(package)
        assert missing.returncode != 0, f"import {package} found {missing.stdout}"
        assert f"No module named '{package}'" in missing.stderr


def test_the_links_are_the_packages() -> None:
    """``diplomat/`` holds the package's own ``__init__.py`` and a link to each package
    folder, nothing else (a new package needs its link, or it is not installed)."""
    here = ROOT / "diplomat"
    entries = {p.name for p in here.iterdir() if p.name != "__pycache__"}
    assert entries == {"__init__.py", *PACKAGES}
    for package in PACKAGES:
        link = here / package
        assert link.is_symlink() and link.resolve() == (ROOT / package).resolve(), package


def test_the_docker_image_copies_every_package() -> None:
    """The Dockerfile copies the folders one by one (to keep the image's layers small): the
    links and each package they point to must all be there, or ``pip install .`` in the
    image installs a broken ``diplomat``."""
    copied = {
        line.split()[1]
        for line in (ROOT / "Dockerfile").read_text().splitlines()
        if line.startswith("COPY ")
    }
    assert {"diplomat", *PACKAGES} <= copied
