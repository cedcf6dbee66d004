"""The course framework, so a course file runs unchanged: ``board`` (``Board``)
and ``game`` (``Game``), as the Zhejiang University "miniAlphaGo for Reversi"
course gives them to students.

A course file begins ``from board import Board`` / ``from game import Game``.
Inside ``framework()`` those two names are this package's modules, whatever
sits beside the file: the platform's framework wins over a copy of the
course's board.py or game.py kept in the student's directory, so every file
is judged by the same rules (``shadowed(path)`` names the copies that are
ignored, for a note to the user). After the block the names stay ours unless
other modules held them before.

- ``run_file(path, argv)``: run a course file as a script (``reversi course FILE.py``);
- ``loading()``: ``framework()`` in which ``Game.run`` plays nothing, for loading
  a file's player classes (``classic:FILE.py:Class``) without playing the game
  a course notebook starts at module level.
"""

from __future__ import annotations

import runpy
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

from agents.play.course import board, console, game
from agents.play.course.board import Board
from agents.play.course.game import Game

__all__ = ["Board", "Game", "framework", "loading", "run_file", "shadowed"]

FRAMEWORK_MODULES: dict[str, ModuleType] = {"board": board, "game": game}
"""The module names course files import, and the modules they get."""


@contextmanager
def framework() -> Iterator[None]:
    """``import board`` / ``import game`` give the course framework here."""
    before = {name: sys.modules.get(name) for name in FRAMEWORK_MODULES}
    sys.modules.update(FRAMEWORK_MODULES)
    try:
        yield
    finally:
        for name, module in before.items():
            if module is not None:
                sys.modules[name] = module


@contextmanager
def loading() -> Iterator[None]:
    """``framework()``, and ``Game.run`` returns None without playing."""
    already = game._LOADING.is_set()
    game._LOADING.set()
    try:
        with framework():
            yield
    finally:
        if not already:
            game._LOADING.clear()


def shadowed(path: str | Path) -> list[Path]:
    """The course framework files beside ``path`` that ``framework()`` ignores."""
    folder = Path(path).resolve().parent
    return [folder / f"{name}.py" for name in FRAMEWORK_MODULES if (folder / f"{name}.py").is_file()]


def run_file(path: str | Path, argv: Sequence[str] = ()) -> None:
    """Run the course file ``path`` as ``python path argv...`` would, with the
    framework importable and ``input`` served to live turns only
    (``console.serving``; the file's own exceptions propagate)."""
    file = Path(path).resolve()
    saved_argv, saved_path = sys.argv, list(sys.path)
    sys.argv = [str(file), *argv]
    sys.path.insert(0, str(file.parent))
    try:
        with framework(), console.serving():
            runpy.run_path(str(file), run_name="__main__")
    finally:
        sys.argv = saved_argv
        sys.path[:] = saved_path
