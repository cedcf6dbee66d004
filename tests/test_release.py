"""The release: ``python -m build`` makes an sdist and a wheel that ``twine check`` passes, and the
wheel, installed into a fresh venv, plays a game with the data it ships (the pattern weights, the network)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BUILD_TIME = 1800
"""Seconds for a build, an install or a first game, a bound that catches a hang only: the first game
compiles the engine for the fresh install (under a minute on an idle machine, ten on a loaded one)."""
NOT_SOURCE = shutil.ignore_patterns(
    ".git", "__pycache__", "*.egg-info", "build", "dist", ".*_cache", ".hypothesis", "models", "*.pyc", "*.nb[ic]"
)


def run(*args: str | Path, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=BUILD_TIME)
    assert done.returncode == 0, f"{args}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


def test_the_wheel_installs_in_a_fresh_venv_and_plays_with_its_shipped_data(tmp_path: Path) -> None:
    version = re.findall(r'^__version__ = "(.+)"$', (REPO / "reversi_env" / "__init__.py").read_text(), re.M)[0]
    source = tmp_path / "source"  # a copy: building writes build/ and *.egg-info beside the sources
    shutil.copytree(REPO, source, ignore=NOT_SOURCE)
    dist = tmp_path / "dist"
    run(sys.executable, "-m", "build", "--no-isolation", "--outdir", dist, source, cwd=tmp_path)
    wheels, sdists = list(dist.glob("*.whl")), list(dist.glob("*.tar.gz"))
    assert [w.name for w in wheels] == [f"reversi_env-{version}-py3-none-any.whl"] and len(sdists) == 1
    run(sys.executable, "-m", "twine", "check", "--strict", *wheels, *sdists, cwd=tmp_path)
    shipped = zipfile.ZipFile(wheels[0]).namelist()
    for data in (
        "agents/search/data/patterns.npz",
        "agents/search/data/book.npz",
        "agents/learn/data/alphazero.pt",
        "agents/py.typed",
    ):
        assert data in shipped

    # A venv of its own, seeing this interpreter's packages (numpy, numba, torch) through a .pth
    # file after its own site-packages, where the wheel goes: the package comes from the wheel.
    venv = tmp_path / "venv"
    run(sys.executable, "-m", "venv", "--without-pip", venv, cwd=tmp_path)
    python = venv / "bin" / "python"
    purelib = Path(
        run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])", cwd=tmp_path).stdout.strip()
    )
    # No PYTHONPATH: through the checkout on it (and the reversi_env.egg-info an install from the
    # checkout leaves there), pip would see reversi-env installed already and install nothing.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    pip = (sys.executable, "-m", "pip", "--python", python, "install", "--no-deps", "--no-index", "--ignore-installed")
    run(*pip, wheels[0], cwd=tmp_path, env=env)
    # Written after the install, for the same reason.
    (purelib / "outer.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")

    away = tmp_path / "elsewhere"  # no checkout here, and no PYTHONPATH: only the installed package
    away.mkdir()
    where = run(
        python, "-c", "import agents, reversi_env; print(agents.__file__, reversi_env.__file__)", cwd=away, env=env
    )
    assert all(Path(f).is_relative_to(purelib) for f in where.stdout.split()), where.stdout
    reversi = venv / "bin" / "reversi"
    assert run(reversi, "--version", cwd=away, env=env).stdout == f"reversi {version}\n"
    game = run(
        reversi, "play", "--black", "pattern", "--white", "alphazero:sims=4", "--save", "g.json", cwd=away, env=env
    )
    assert "Game over" in game.stdout
    record = json.loads((away / "g.json").read_text())
    assert (record["reason"], record["black_name"], record["white_name"]) == ("end", "pattern", "alphazero:sims=4")
