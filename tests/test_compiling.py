"""The first run's notice: a cold numba cache is a minute of compiling, which is said, not silent."""

from __future__ import annotations

import importlib.machinery
import io
import os
import signal
import subprocess
import sys
import time
import types
from pathlib import Path

import pytest
from conftest import REPO_ROOT, engine_imports

from agents.compiling import _Compiling, compile_notice

NOTICE = "compiling the engine for this machine (first run only; later runs start at once)"


def _compile_something_new() -> None:
    """Compile a numba function that no cache holds (a fresh closure, ``cache=False``)."""
    from numba import njit

    offset = time.time_ns()

    @njit(cache=False)
    def shifted(x: int) -> int:
        return x + offset

    shifted(1)


def test_a_slow_block_that_compiles_is_announced_with_its_seconds() -> None:
    """Off a terminal (a log, a pipe: this StringIO) in two whole lines, not a clock redrawn with
    carriage returns every second."""
    out = io.StringIO()
    with compile_notice("the engine", after=0.2, stream=out):
        start = time.monotonic()
        _compile_something_new()
        time.sleep(2.3)
        lasted = time.monotonic() - start
    shown = out.getvalue()
    assert "\r" not in shown
    lines = shown.splitlines()
    assert lines[0] == f"{NOTICE} ..."
    # the clock counts the block's whole seconds (a busy machine compiles slowly), not the notice's
    assert lines[1:] in ([f"{NOTICE}: 00:{seconds:02d}"] for seconds in range(2, int(lasted) + 2))


def test_a_slow_block_that_compiles_nothing_says_nothing() -> None:
    """A warm import slowed down by a busy machine is not a first run: nothing is said."""
    import numba  # noqa: F401  (imported, as in an engine import; nothing compiled)

    out = io.StringIO()
    with compile_notice("the engine", after=0.2, stream=out):
        time.sleep(1.0)
    assert out.getvalue() == ""


def test_a_numba_still_being_imported_by_the_block_is_waited_for(monkeypatch: pytest.MonkeyPatch) -> None:
    """The notice's thread looks for numba while the block's thread imports it: a half-built
    ``numba.core.event`` (in sys.modules, its import not finished) is left alone until it is whole."""
    import numba.core.event as whole

    half = types.ModuleType("numba.core.event")
    half.__spec__ = importlib.machinery.ModuleSpec("numba.core.event", None)
    half.__spec__._initializing = True  # what importlib marks a module whose import is under way
    monkeypatch.setitem(sys.modules, "numba.core.event", half)
    compiling = _Compiling()
    compiling.watch()  # no Listener in it yet: an AttributeError here would kill the notice's thread
    assert compiling._listener is None
    monkeypatch.setitem(sys.modules, "numba.core.event", whole)
    compiling.watch()
    try:
        assert isinstance(compiling._listener, whole.Listener)
    finally:
        compiling.stop()


def test_a_quick_block_says_nothing() -> None:
    out = io.StringIO()
    with compile_notice("the engine", after=5.0, stream=out):
        time.sleep(0.05)
    assert out.getvalue() == ""


def _import_agents(cache: Path | None) -> subprocess.CompletedProcess[str]:
    """``from agents import MCTSAgent``, the public API, in a fresh interpreter."""
    env = dict(os.environ)
    if cache is not None:
        env["NUMBA_CACHE_DIR"] = str(cache)
    return subprocess.run(
        [sys.executable, "-c", "from agents import MCTSAgent"],
        cwd=REPO_ROOT,  # the checkout's code and, without NUMBA_CACHE_DIR, its warm cache
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )


def test_a_cold_first_import_says_it_is_compiling(tmp_path: Path) -> None:
    """An empty numba cache, as after an install: the import compiles for a minute or more and says so."""
    cold = _import_agents(tmp_path / "numba-cache")
    assert cold.returncode == 0, cold.stderr
    assert cold.stdout == ""
    assert NOTICE in cold.stderr
    assert "Traceback" not in cold.stderr


def test_a_warm_import_says_nothing() -> None:
    from agents import MCTSAgent  # noqa: F401  (fills the checkout's cache, if this worker has not yet)

    warm = _import_agents(None)
    assert warm.returncode == 0, warm.stderr
    assert warm.stderr == ""


def test_import_agents_alone_compiles_nothing() -> None:
    """The package's names are imported at their first use: ``import agents`` (as the
    ``reversi`` command does before it parses its options) imports no engine module."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import agents; print(set(agents.__all__) <= set(dir(agents)))"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0 and done.stdout == "True\n", done.stderr[-2000:]
    assert engine_imports(done.stderr) == []
    import agents

    assert agents.MCTSAgent.__module__ == "agents.search.mcts" and callable(agents.make_agent)
    with pytest.raises(AttributeError, match="no attribute 'MTCSAgent'"):
        agents.MTCSAgent  # noqa: B018  (a misspelt name fails as a module's attribute does)


def test_a_ctrl_c_while_compiling_ends_a_program_in_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delattr(sys, "ps1", raising=False)
    out = io.StringIO()
    try:
        with compile_notice("the engine", stream=out):
            raise KeyboardInterrupt
    except KeyboardInterrupt:
        pytest.fail("the Ctrl-C went on as a KeyboardInterrupt: a traceback, outside a prompt")
    except SystemExit as stopped:
        assert stopped.code == 130
    assert out.getvalue() == "interrupted while compiling the engine; the next run compiles what is left\n"


class PressedInAFinaliser:
    """Ctrl-C landing where Python drops exceptions, as in numba's compiler (an LLVM callback)."""

    def __del__(self) -> None:
        os.kill(os.getpid(), signal.SIGINT)
        for _ in range(10_000):  # the handler runs here, inside the finaliser
            pass


@pytest.mark.parametrize("then", ["goes on", "fails"])
def test_a_ctrl_c_that_the_compiler_swallows_still_ends_the_program(
    then: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Seen in a fresh clone: the press was dropped in llvmlite's callback, then numba failed with
    'RuntimeError: no compiled object yet', a traceback; or it goes on compiling, the press lost."""
    monkeypatch.delattr(sys, "ps1", raising=False)
    out = io.StringIO()
    try:
        with compile_notice("the engine", stream=out):
            PressedInAFinaliser()
            if then == "fails":
                raise RuntimeError("no compiled object yet")
    except SystemExit as stopped:
        assert stopped.code == 130
    else:
        pytest.fail("the block ended as if no Ctrl-C had come")
    assert out.getvalue() == "interrupted while compiling the engine; the next run compiles what is left\n"
    assert "KeyboardInterrupt" not in capsys.readouterr().err  # not shown as an exception ignored
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # given back


def test_a_ctrl_c_while_compiling_at_a_prompt_stays_an_interrupt(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "ps1", ">>> ", raising=False)
    out = io.StringIO()
    with pytest.raises(KeyboardInterrupt), compile_notice("the engine", stream=out):
        raise KeyboardInterrupt
    assert out.getvalue() == ""


def test_a_ctrl_c_during_a_cold_first_command_is_one_line(tmp_path: Path) -> None:
    """``reversi analyze`` on an empty cache says it is compiling (its options were read
    first, with nothing compiled); interrupted then: status 130, no traceback."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba-cache")}
    with subprocess.Popen(
        [sys.executable, "-m", "agents", "analyze"],
        cwd=REPO_ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as proc:
        assert proc.stderr is not None
        seen = ""
        while NOTICE not in seen:  # the notice's first frame ends in its clock, with no newline
            char = proc.stderr.read(1)
            assert char, f"the command ended before it said it was compiling: {seen!r}"
            seen += char
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=600)  # a press numba swallowed ends the run once the compile does
    assert proc.returncode == 130, seen + err
    assert out == ""
    assert "Traceback" not in err
    assert err.endswith("interrupted while compiling the engine; the next run compiles what is left\n")
