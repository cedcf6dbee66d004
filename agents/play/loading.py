"""Loading players written as Python code: a course player class from a file, an Agent or a
policy from a module or a file (the ``classic:`` and ``python:`` player kinds).

What is loaded runs: these are called only for specs a person gave (``specs.runs_code``).
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import os
import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

from agents.play.kinds import SpecError


def load_file_module(path: str) -> ModuleType:
    """Import a Python file as a module of its own.

    Its directory is on ``sys.path`` while it loads, so its sibling modules
    import; it loads inside ``course.loading()``, so course files doing
    ``from board import Board`` / ``from game import Game`` get the course
    framework, and a game such a file plays at module level does not start.
    """
    from agents.play import course

    file = Path(path).expanduser()
    if not file.is_file():
        raise SpecError(f"no such file: {str(file)!r}")
    file = file.resolve()
    name = f"_reversi_player_{file.stem}_{abs(hash(str(file))):x}"
    if name in sys.modules:
        return sys.modules[name]
    module_spec = importlib.util.spec_from_file_location(name, file)
    if module_spec is None or module_spec.loader is None:
        raise SpecError(f"cannot import {str(file)!r} as a Python module")
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[name] = module
    sys.path.insert(0, str(file.parent))
    skipped = course.game.skipped_runs()
    try:
        with course.loading():
            module_spec.loader.exec_module(module)
    except Exception as e:
        del sys.modules[name]
        lines = [f for f in traceback.extract_tb(e.__traceback__) if f.filename == str(file)]
        where = f" at line {lines[-1].lineno} ({(lines[-1].line or '').strip()})" if lines else ""
        why = f"{str(file)!r} failed to load{where}: {type(e).__name__}: {e}"
        if course.game.skipped_runs() > skipped and "NoneType" in str(e):
            why += (
                "; while a file is loaded for its players, Game(...).run() plays nothing and returns None,"
                " so code that uses its result fails: put the game under if __name__ == '__main__':"
            )
        raise SpecError(why) from e
    finally:
        sys.path.remove(str(file.parent))
    return module


def load_classic_class(path: str, class_name: str | None = None) -> Callable[[str], Any]:
    """The classic player class ``class_name`` from the file ``path`` (or its
    only class with a ``get_move`` method)."""
    module = load_file_module(path)
    players = [
        n
        for n, obj in vars(module).items()
        if inspect.isclass(obj) and obj.__module__ == module.__name__ and callable(getattr(obj, "get_move", None))
    ]
    if class_name is None:
        if len(players) != 1:
            found = ", ".join(players) or "none"
            raise SpecError(f"{path!r}: name the player class (classes with get_move: {found})")
        class_name = players[0]
    player_class: Any = getattr(module, class_name, None)
    if player_class is None or not callable(getattr(player_class, "get_move", None)):
        found = ", ".join(players) or "none"
        raise SpecError(f"{path!r} has no player class {class_name!r} with get_move (found: {found})")
    return player_class


def _import_from_cwd(name: str) -> ModuleType:
    """Import the module ``name`` with the current directory first on ``sys.path``
    while it loads, as ``python -c`` (an isolated player's process) and ``python
    -m`` have it, so ``python:my_bot:...`` finds ``./my_bot.py`` under the
    installed ``reversi`` script too, whose ``sys.path`` starts at its own bin
    directory."""
    here = os.getcwd()
    added = "" not in sys.path and here not in sys.path
    if added:
        sys.path.insert(0, here)
    try:
        return importlib.import_module(name)
    except ImportError as e:
        raise SpecError(f"cannot import module {name!r}: {e}") from e
    finally:
        if added:
            sys.path.remove(here)


def python_object(target: str, attribute: str) -> object:
    """The object ``attribute`` (dotted) of the module or file ``target``: a thing that plays
    (``act``, ``get_move`` or ``predict``) as it is, a class or a zero-argument factory called,
    anything else (a policy function) as it is. SpecError if it cannot be had."""
    from agents.play.adapters import required_positional_args

    if target.endswith(".py") or "/" in target or "\\" in target:
        module = load_file_module(target)
    else:
        module = _import_from_cwd(target)
    obj: Any = module
    for part in attribute.split("."):
        if not hasattr(obj, part):
            raise SpecError(f"{target!r} has no attribute {attribute!r}")
        obj = getattr(obj, part)
    plays = any(callable(getattr(obj, m, None)) for m in ("act", "get_move", "predict"))
    if not inspect.isclass(obj) and plays:
        return obj
    if inspect.isclass(obj) or (callable(obj) and required_positional_args(obj) == 0):
        try:
            return obj()
        except TypeError as e:
            raise SpecError(f"{target}:{attribute} must be callable with no arguments: {e}") from e
    return obj
