"""Random and hostile command lines and files against every subcommand: never a traceback.

The subcommands are read from the parser itself, so a new one is fuzzed too.
Each case runs ``main()`` in this process (no interpreter start-up per case);
a case that is valid and would run for long (a game, a tournament, a window)
is cut after ``CUT`` seconds by SIGALRM, which is not a failure (and again
every ``RECUT`` seconds: a cut that lands in a finaliser, ``__del__`` or a
weakref callback, is swallowed there, and the case would run on). What fails:
an exception escaping ``main`` (other than SystemExit), "Traceback" on
stderr, or a program named in a file being started.
"""

from __future__ import annotations

import argparse
import random
import signal
from collections.abc import Iterator
from pathlib import Path
from types import FrameType

import pytest

from agents.ui.cli import build_parser, main

SEED = 2026
CASES = 24  # per subcommand
CUT = 1.0  # seconds a valid, long-running case may run
RECUT = 0.5  # seconds between further cuts, until the case ends


class Cut(BaseException):
    """SIGALRM: a valid case ran long enough."""


def _caused_by_a_cut(error: BaseException) -> bool:
    cause = error.__cause__
    while cause is not None and not isinstance(cause, Cut):
        cause = cause.__cause__
    return cause is not None


def subcommands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    raise AssertionError("the parser has no subcommands")


def hostile_files(tmp: Path, marker: Path) -> list[str]:
    files = {
        "nested.json": "[" * 50_000 + "]" * 50_000,
        "huge.json": '{"winner": 1e400, "black": 1e400}',
        "nan.jsonl": '{"type":"game","game_id":"g","black":"a","white":"b","black_score":NaN,"disc_difference":1}\n',
        "empty.txt": "",
        "long.txt": "f5" * 500_000,
        "pwn.jsonl": (
            '{"type":"tournament","version":1,"tournament":{"agents":["random","gtp:/bin/sh -c \'touch '
            + str(marker)
            + '\'"],"games":2,"openings":["f5"],"seed":0}}\n'
        ),
        "game.json": '{"winner":"black","black":64,"white":0,"reason":"end","moves":["A1"],"times":[0]}',
    }
    paths = []
    for name, text in files.items():
        (tmp / name).write_text(text)
        paths.append(str(tmp / name))
    (tmp / "binary.bin").write_bytes(bytes(range(256)) * 64)
    (tmp / "adir").mkdir()
    return [*paths, str(tmp / "binary.bin"), str(tmp / "adir"), str(tmp / "missing.json"), "/dev/null"]


VALUES = [
    "inf", "-inf", "-1", "nan", "1e400", "0", "1", "2", "61", "100000", "1e20", "", " ", "x", "off", "-",
    "99999999999999999999999", "3.5", "white", "black",
    "random", "greedy", "human", "mcts:sims=100000000000000000000", "mcts:sims=1e20", "mcts:time=inf",
    "alphabeta:99", "level:0", "gtp:", "gtp:/nonexistent/engine", "python:nowhere:x", "classic:x.py",
    "python:os:system", "mcts:seed=-1", "random:seed=99999999999999999999999",
]  # fmt: skip


def value_for(action: argparse.Action, pool: list[str], rng: random.Random) -> str:
    """A hostile value half the time, else a plausible one (the default, a choice)."""
    plausible = [str(c) for c in action.choices or []]
    if action.default not in (None, False, True) and not isinstance(action.default, list):
        plausible.append(str(action.default))
    return rng.choice(plausible) if plausible and rng.random() < 0.5 else rng.choice(pool)


def cases(name: str, parser: argparse.ArgumentParser, files: list[str], rng: random.Random) -> Iterator[list[str]]:
    """Half the cases are random tokens; half follow the subcommand's own
    arguments (each option now and then, with a hostile or plausible value)."""
    actions = [a for a in parser._actions if not isinstance(a, argparse._HelpAction)]
    options = [s for a in actions for s in a.option_strings]
    pool = VALUES + files
    for case in range(CASES):
        args = [name]
        if case % 2 == 0:
            for _ in range(rng.randint(0, 4)):
                if options and rng.random() < 0.6:
                    args.append(rng.choice(options))
                args.append(rng.choice(pool))
        else:
            for action in actions:
                if action.option_strings:
                    if rng.random() < 0.3:
                        args.append(rng.choice(action.option_strings))
                        if action.nargs != 0:
                            args.append(value_for(action, pool, rng))
                else:
                    count = rng.randint(0, 3) if action.nargs in ("*", "+") else 1
                    args += [value_for(action, pool, rng) for _ in range(count)]
        if name in ("play", "gui") and rng.random() < 0.7:
            # A valid game should end soon: fast players (the defaults think for seconds).
            args += ["--black", "random", "--white", "random"] if name == "play" else ["--ai", "random"]
        yield args


def test_no_command_line_or_file_ends_in_a_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)  # files a valid case writes (arena.jsonl...) land here
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    monkeypatch.setenv("SDL_AUDIODRIVER", "dummy")
    marker = tmp_path / "pwned"
    files = hostile_files(tmp_path, marker)
    rng = random.Random(SEED)

    armed = [False]  # cuts only inside main(), never in this test's own bookkeeping

    def cut(signum: int, frame: FrameType | None) -> None:
        if armed[0]:
            raise Cut

    previous = signal.signal(signal.SIGALRM, cut)
    ran = 0
    try:
        for name, parser in subcommands().items():
            for args in cases(name, parser, files, rng):
                armed[0] = True
                signal.setitimer(signal.ITIMER_REAL, CUT, RECUT)
                try:
                    try:
                        main(args)
                    finally:
                        armed[0] = False
                        signal.setitimer(signal.ITIMER_REAL, 0)
                except SystemExit:
                    pass
                except Cut:
                    pass
                except SystemError as e:
                    # A cut that lands in numba's boxing callback fails the call with the cut among its
                    # causes: the cut is this test's own signal (a Ctrl-C there is agents.interrupts').
                    if not _caused_by_a_cut(e):
                        pytest.fail(f"reversi {' '.join(args)!r} raised SystemError: {e}")
                except BaseException as e:
                    pytest.fail(f"reversi {' '.join(args)!r} raised {type(e).__name__}: {e}")
                # A player's own traceback may be shown on stdout as its game's details; ours never.
                err = capsys.readouterr().err
                assert "Traceback" not in err, f"reversi {args!r}:\n{err[-2000:]}"
                assert not marker.exists(), f"reversi {args!r} started a program named in a file"
                ran += 1
    finally:
        signal.signal(signal.SIGALRM, previous)
    assert ran >= CASES * 4
