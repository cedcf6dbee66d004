"""The house's structure, read from the imports of every module (lazy ones included):
rooms import only downwards, no module imports itself back in a circle, and the
rules core never imports what plays on it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from conftest import REPO_ROOT

# A room may import its own modules and the rooms below it, never one above.
RANKS = {
    "reversi_env": 0,
    "agents.base": 1,
    "agents.datafiles": 1,  # files as data (atomic writes, strict reads): weights, records, results, checkpoints
    "agents.compiling": 1,  # the first run's notice while numba compiles: agents/__init__ and the CLI use it
    "agents.interrupts": 1,  # Ctrl-C as one KeyboardInterrupt in the program's code: the CLI and the compile notice
    "agents.limits": 1,  # the bounds of settings (time limits, openings, solves): read by the CLI's parser uncompiled
    "agents.cluster": 1,  # joining a Ray cluster, failing fast: the arena's and the AlphaZero loop's ray backends
    "agents.clocks": 1,  # the time control (seconds a move, game clock, increment): referee, searches, CLI
    "agents.search": 2,
    "agents.learn": 3,
    "agents.play": 4,
    "agents.arena": 5,
    "agents.ui": 6,
    "agents": 7,  # agents/__init__.py and __main__.py re-export the public names
}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO_ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {
    module_name(p): p for package in ("reversi_env", "agents") for p in sorted((REPO_ROOT / package).rglob("*.py"))
}


def imports_of(name: str) -> set[str]:
    """The project modules ``name`` imports, anywhere in its body."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join([*package.split(".")[: len(package.split(".")) - node.level + 1], base]).strip(".")
            submodules = [f"{base}.{alias.name}" for alias in node.names if f"{base}.{alias.name}" in MODULES]
            # "from pkg import submodule" needs the submodule; the package's __init__
            # runs for any submodule anyway, so it is not an edge of its own.
            targets = submodules or [base]
        found.update(t for t in targets if t in MODULES)
    # A package's own __init__ is always imported before its modules: not an edge.
    return {t for t in found if t != name and not name.startswith(t + ".")}


GRAPH = {name: imports_of(name) for name in MODULES}


def room(name: str) -> str:
    return max((r for r in RANKS if name == r or name.startswith(r + ".")), key=len)


def test_every_module_belongs_to_a_room() -> None:
    assert {room(name) for name in MODULES} <= set(RANKS)
    assert len(MODULES) > 20, MODULES  # the walk found the packages


@pytest.mark.parametrize("name", sorted(MODULES))
def test_imports_point_down(name: str) -> None:
    upward = [t for t in GRAPH[name] if RANKS[room(t)] > RANKS[room(name)]]
    assert not upward, f"{name} ({room(name)}) imports from rooms above it: {upward}"


def test_rules_core_never_imports_agents() -> None:
    offenders = {n: sorted(t for t in GRAPH[n] if t.startswith("agents")) for n in MODULES if room(n) == "reversi_env"}
    assert not any(offenders.values()), offenders


def test_no_import_circle() -> None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(GRAPH[node]):
            if state.get(nxt) == 1:
                pytest.fail("import circle: " + " -> ".join([*stack[stack.index(nxt) :], nxt]))
            if nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = 2

    for name in sorted(GRAPH):
        if name not in state:
            visit(name)
