"""No function of the packages or the benchmarks runs over ``MAX_LINES`` lines: a longer
one does several jobs, and each job is easier to read, test and change on its own.

Two kinds are let off. A numba kernel (decorated with ``njit``, ``jit``, ``intrinsic``
and the like) keeps its loop in one body: a call between kernels is not free, and
numba types one function at a time. A benchmark's ``main()`` reads as the script's
table of contents: parse, measure each side, print.
"""

from __future__ import annotations

import ast

import pytest
from conftest import REPO_ROOT

MAX_LINES = 80
"""The most lines a function may take, from its ``def`` to its last line, docstring included."""

NUMBA_DECORATORS = {"njit", "jit", "intrinsic", "vectorize", "guvectorize", "cfunc", "generated_jit", "overload"}
"""numba's decorators: what they decorate is a kernel."""

CHECKED = ("agents", "reversi_env", "benchmarks")


def decorator_name(node: ast.expr) -> str:
    """``njit`` for ``@njit``, ``@njit(...)``, ``@numba.njit`` and ``@numba.njit(...)``."""
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""


def is_let_off(function: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> bool:
    """Whether ``function`` (of the file ``name``, relative to the repository) is a numba
    kernel or a benchmark's ``main``."""
    if any(decorator_name(d) in NUMBA_DECORATORS for d in function.decorator_list):
        return True
    return name.startswith("benchmarks/") and function.name == "main"


def long_functions(source: str, name: str) -> list[str]:
    """``name:line function (n lines)`` of each function of ``source`` over ``MAX_LINES`` lines, not let off."""
    found = []
    for node in ast.walk(ast.parse(source, name)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and not is_let_off(node, name):
            lines = (node.end_lineno or node.lineno) - node.lineno + 1
            if lines > MAX_LINES:
                found.append(f"{name}:{node.lineno} {node.name} ({lines} lines)")
    return found


SOURCES = sorted(
    p.relative_to(REPO_ROOT).as_posix() for package in CHECKED for p in (REPO_ROOT / package).rglob("*.py")
)


def test_the_walk_finds_the_sources() -> None:
    assert len(SOURCES) > 100
    assert {name.split("/")[0] for name in SOURCES} == set(CHECKED)


@pytest.mark.parametrize("name", SOURCES)
def test_no_function_is_over_the_limit(name: str) -> None:
    long = long_functions((REPO_ROOT / name).read_text(), name)
    assert not long, f"over {MAX_LINES} lines, split it along its jobs: " + "; ".join(long)


def function(lines: int, decorator: str = "", name: str = "work") -> str:
    """The source of a function ``lines`` lines long, under ``decorator`` (a line of its own, not counted)."""
    body = "".join(f"    x{i} = {i}\n" for i in range(lines - 2))
    return f"{decorator}\ndef {name}() -> int:\n{body}    return 0\n"


def test_a_function_over_the_limit_is_found_and_one_at_it_is_not() -> None:
    assert long_functions(function(MAX_LINES + 1), "agents/x.py") == [f"agents/x.py:2 work ({MAX_LINES + 1} lines)"]
    assert long_functions(function(MAX_LINES), "agents/x.py") == []


def test_methods_and_nested_functions_count() -> None:
    method = "class A:\n" + "".join("    " + line + "\n" for line in function(MAX_LINES + 1).splitlines())
    assert long_functions(method, "reversi_env/x.py") == [f"reversi_env/x.py:3 work ({MAX_LINES + 1} lines)"]


@pytest.mark.parametrize(
    "decorator", ["@njit", "@njit(cache=True)", "@numba.njit(cache=True, nogil=True)", "@intrinsic"]
)
def test_numba_kernels_are_let_off(decorator: str) -> None:
    assert long_functions(function(MAX_LINES + 20, decorator), "agents/x.py") == []


def test_a_benchmarks_main_is_let_off_and_no_other_main() -> None:
    assert long_functions(function(MAX_LINES + 20, name="main"), "benchmarks/bench_x.py") == []
    assert long_functions(function(MAX_LINES + 20, name="measure"), "benchmarks/bench_x.py")
    assert long_functions(function(MAX_LINES + 20, name="main"), "agents/__main__.py")
