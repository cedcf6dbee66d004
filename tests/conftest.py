"""Shared test fixtures: paths, helpers to reach positions by seeded play, and
the check that a player (a trained policy, say) plays full legal games."""

from __future__ import annotations

import importlib
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import numpy as np
import pytest

from agents import Agent, play_game
from agents.base import stop_agent
from agents.search.ladder import RandomAgent
from reversi_env import GameState
from reversi_env.observation import observe

# pygame (render and GUI tests) must never try to open a real display or audio device.
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

# A run started in the background by a shell without job control (`pytest &` in
# a script, nohup) inherits SIGINT ignored: Python then never raises
# KeyboardInterrupt, nor do the programs the tests start (an ignored signal
# stays ignored across exec). The Ctrl-C tests need it as a terminal gives it.
signal.signal(signal.SIGINT, signal.default_int_handler)

REPO_ROOT = Path(__file__).resolve().parents[1]
TEST_DATA = REPO_ROOT / "tests" / "data"

# The programs the tests start (examples, benchmarks, `reversi`) import this
# checkout, as the tests themselves do, and share its numba cache: an installed
# copy's first import compiles the engine for a minute and a half and says so
# on stderr, which would land in whichever test started it first.
os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), os.environ.get("PYTHONPATH")]))


def random_game(seed: int, plies: int | None = None) -> list[GameState]:
    """The states of a uniformly random game (seeded), start included."""
    rng = np.random.default_rng(seed)
    states = [GameState.initial()]
    while not states[-1].is_terminal() and (plies is None or len(states) <= plies):
        legal = states[-1].legal_actions()
        states.append(states[-1].apply(int(rng.choice(legal))))
    return states


def assert_plays_full_legal_games(player: Agent, games: int = 4, opponents: Sequence[Agent] = ()) -> None:
    """``player`` finishes ``games`` games with only legal moves, on
    both colours in turn, against ``opponents`` in turn (default: seeded random
    players). One illegal move would lose the game at once."""
    for game in range(games):
        other = opponents[game % len(opponents)] if opponents else RandomAgent(game)
        black, white = (player, other) if game % 2 == 0 else (other, player)
        result = play_game(black, white, time_limit=None, max_illegal=1)
        assert result.reason == "end", result.summary() + "\n" + result.details
        assert result.final_state().is_terminal()


def stop_after(agent: Agent, state: GameState, seconds: float) -> tuple[object, float]:
    """``agent.act`` on a thread of its own, stopped after ``seconds``: its move
    (or the exception it raised) and the seconds from the stop to its end (the
    thread must end within 2 s)."""
    moves: list[object] = []

    def move() -> None:
        try:
            moves.append(agent.act(observe(state, state.player)))
        except Exception as e:
            moves.append(e)

    thread = threading.Thread(target=move, daemon=True)
    thread.start()
    time.sleep(seconds)
    stopped = time.perf_counter()
    stop_agent(agent)
    thread.join(2.0)
    assert not thread.is_alive(), "the stopped search went on"
    return moves[0], time.perf_counter() - stopped


@pytest.fixture
def pygame_display() -> Iterator[None]:
    """pygame's display and fonts up for one test, on the dummy driver set above."""
    import pygame

    pygame.display.init()
    pygame.font.init()
    yield
    pygame.display.quit()


@pytest.fixture
def start() -> GameState:
    """The start position."""
    return GameState.initial()


EXAMPLES = REPO_ROOT / "examples"


def run_example(
    script: str,
    *args: str,
    cwd: Path,
    stdin: str = "",
    timeout: float = 900.0,
    returncode: int = 0,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run ``examples/<script>`` with this interpreter in ``cwd`` (``env``: variables
    added to this process's environment); an exit status other than ``returncode``
    fails the test with the output shown."""
    proc = subprocess.run(
        [sys.executable, str(EXAMPLES / script), *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=None if env is None else {**os.environ, **env},
    )
    assert proc.returncode == returncode, (
        f"{script} {' '.join(args)} exited {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    )
    return proc


def interrupt_example(
    script: str, *args: str, cwd: Path, ready: Callable[[str], object], settle: float = 0.2
) -> tuple[int, str, str]:
    """``interrupt_command`` of ``examples/<script>``."""
    return interrupt_command([sys.executable, str(EXAMPLES / script), *args], cwd=cwd, ready=ready, settle=settle)


def interrupt_command(
    command: list[str], *, cwd: Path, ready: Callable[[str], object], settle: float = 0.2
) -> tuple[int, str, str]:
    """Run ``command`` with Ctrl-C as a terminal gives it (stdin a pipe left open),
    read its stdout line by line until ``ready(line)``, wait ``settle`` seconds, then
    send it a real SIGINT: its exit status, the stdout read, and its stderr. A process
    that ends before, or does not end within two minutes, fails the test."""
    proc = subprocess.Popen(
        command,
        cwd=cwd,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # not ignored, whoever started pytest
    )
    watchdog = threading.Timer(120, proc.kill)
    watchdog.start()
    try:
        assert proc.stdout is not None
        seen = []
        while not seen or not ready(seen[-1]):
            seen.append(proc.stdout.readline())
            assert seen[-1], f"{command} ended first:\n{''.join(seen)}{proc.communicate()[1]}"
        time.sleep(settle)  # where the line said it is (at a prompt, in the next game)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        watchdog.cancel()
        proc.kill()
    return proc.returncode, "".join(seen) + out, err


def run_benchmark(script: str, *args: str, timeout: float = 600.0) -> subprocess.CompletedProcess[str]:
    """Run ``benchmarks/<script>`` as a user runs it, from the repository root; the
    test reads the exit status and output (a bad option's usage error among them)."""
    return subprocess.run(
        [sys.executable, f"benchmarks/{script}", *args], cwd=REPO_ROOT, capture_output=True, text=True, timeout=timeout
    )


@pytest.fixture
def examples_importable(monkeypatch: pytest.MonkeyPatch) -> Path:
    """examples/ on sys.path, so a test can import an example's loader as its users do."""
    monkeypatch.syspath_prepend(str(EXAMPLES))
    return EXAMPLES


@pytest.fixture
def usage_error(examples_importable: Path, capsys: pytest.CaptureFixture[str]) -> Callable[[str, list[str]], str]:
    """A function running ``examples/<script>``'s ``main(args)``: it must stop with
    argparse's usage error (exit status 2); returns what it wrote to stderr."""

    def run(script: str, args: list[str]) -> str:
        module = importlib.import_module(script.removesuffix(".py"))
        with pytest.raises(SystemExit) as exit_info:
            module.main(args)
        assert exit_info.value.code == 2
        return capsys.readouterr().err

    return run


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """The ``reversi`` command run in-process (the same ``main`` the console script
    calls, without a subprocess start-up): its exit status and what it wrote to stderr."""
    from agents.ui.cli import main

    try:
        status = main(args)
    except SystemExit as e:
        status = int(e.code or 0)
    return status, capsys.readouterr().err


ENGINE = ("numba", "reversi_env", "torch", "agents.search", "agents.learn")
"""The engine: what numba compiles on a first run (``agents.search`` and
``agents.learn`` hold it, ``reversi_env`` its rules core) and what only it needs."""


def engine_imports(importtime: str) -> list[str]:
    """The engine's modules among those a ``python -X importtime`` run imported, read from its stderr."""
    names = {line.rsplit("|", 1)[1].strip() for line in importtime.splitlines() if line.startswith("import time:")}
    return sorted(n for n in names if any(n == e or n.startswith(e + ".") for e in ENGINE))


def two_recorded_games(out: Path, first: str, second: str, seed: int, capsys: pytest.CaptureFixture[str]) -> Path:
    """``out``: a results file of two real games of ``reversi arena`` (a 2-ply
    opening, colours swapped), for the benchmarks that read recorded games."""
    status, err = run_cli(["arena", first, second, "--games", "2", "--jobs", "1", "--seed", str(seed),
                           "--opening-plies", "2", "--out", str(out), "--no-progress"], capsys)  # fmt: skip
    assert status == 0, err
    return out


def search_cpu_clock(threads: int = 1) -> Callable[[], float]:
    """The clock a test bounds a search's spending by: the CPU seconds of this
    thread (a one-thread search runs in its caller's), or with more threads the
    process's. A search that ignores its time limit spends them; a host that
    stalls the process adds to the wall clock but not to them (docs/engine.md,
    the time manager)."""
    return time.thread_time if threads == 1 else time.process_time
