"""Progress of a learner in the RL examples: win rates against fixed agents, and a plot;
the end of a run (its save) held against Ctrl-C.

Library-neutral: a policy is anything ``agents.adapt`` turns into a player (an
SB3 model, a callable ``observation -> action``...). Games are full games
through ``agents.play_game``, half with the learner as black, half as white.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import signal
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from types import FrameType, TracebackType

from agents import Agent, play_game
from agents.datafiles import check_writable, write_bytes_atomic, write_text_atomic
from agents.play.adapters import adapt
from agents.search.ladder import GreedyAgent, RandomAgent
from agents.ui.options import bounded_int

BENCHMARKS: dict[str, Callable[[int], Agent]] = {"random": RandomAgent, "greedy": GreedyAgent}
"""The fixed opponents of the evaluation, each built from a seed."""


@dataclass
class EvalPoint:
    """Win rates (a draw counts half) against each benchmark after ``timesteps`` steps."""

    timesteps: int
    minutes: float
    win_rate: dict[str, float]


SEATS = ("both", "black", "white")
"""The colours a learner is evaluated in: alternating, or one of them."""


def win_rate(player: object, opponent: Callable[[int], Agent], games: int, seed: int = 0, seat: str = "both") -> float:
    """Score of ``player`` (anything ``adapt`` takes) over ``games`` games against
    fresh seeded opponents, half as black and half as white (``seat="both"``) or
    all in one colour; a draw counts half. Raises ValueError for an unknown seat,
    RuntimeError if a game is not played out (an illegal move, an error)."""
    if seat not in SEATS:
        raise ValueError(f"seat must be one of {SEATS}, got {seat!r}")
    agent = adapt(player)
    score = 0.0
    for g in range(games):
        other = opponent(seed + g)
        as_black = g % 2 == 0 if seat == "both" else seat == "black"
        result = play_game(agent, other, time_limit=None) if as_black else play_game(other, agent, time_limit=None)
        if result.reason != "end":  # a masked policy never plays illegally; a broken benchmark must be loud
            raise RuntimeError(f"evaluation game not played out: {result.summary()}\n{result.details}")
        mine = "black" if as_black else "white"
        score += 1.0 if result.winner == mine else 0.5 if result.winner == "draw" else 0.0
    return score / games


STEPS_LABEL = "training timesteps (learner moves)"
"""The x axis of a learning curve unless the example names its own."""


class Evaluator:
    """Evaluates a policy now and then; keeps the history, prints each point."""

    def __init__(
        self, games: int, benchmarks: tuple[str, ...] = (), start: float | None = None, seat: str = "both"
    ) -> None:
        """``games`` per benchmark (names in BENCHMARKS, default all); ``start``: the
        ``time.perf_counter()`` of the run's start (default now); ``seat``: see ``win_rate``."""
        unknown = [b for b in benchmarks if b not in BENCHMARKS]
        if unknown:
            raise ValueError(f"unknown benchmarks {unknown}; choose among {list(BENCHMARKS)}")
        if games < 1:
            raise ValueError(f"games must be >= 1, got {games}")
        if seat not in SEATS:
            raise ValueError(f"seat must be one of {SEATS}, got {seat!r}")
        self.seat = seat
        self.games = games
        self.benchmarks = benchmarks or tuple(BENCHMARKS)
        self.start = time.perf_counter() if start is None else start
        self.history: list[EvalPoint] = []

    def evaluate(self, policy: object, timesteps: int) -> EvalPoint:
        """Play the evaluation games of ``policy`` now and record the point."""
        # The same opponent seeds at every point (common random numbers): differences between points come
        # from the policy, not from a new draw of opponents.
        rates = {name: win_rate(policy, BENCHMARKS[name], self.games, 0, self.seat) for name in self.benchmarks}
        point = EvalPoint(int(timesteps), (time.perf_counter() - self.start) / 60, rates)
        self.history.append(point)
        shown = ", ".join(f"vs {name} {rate:.0%}" for name, rate in rates.items())
        games = f"{self.games} games each" + ("" if self.seat == "both" else f", as {self.seat}")
        print(f"[{point.timesteps:>8} steps, {point.minutes:5.1f} min] {shown} ({games})", flush=True)
        return point

    def save(self, path: Path) -> None:
        """The history as JSON (written atomically)."""
        path.parent.mkdir(parents=True, exist_ok=True)
        write_text_atomic(path, json.dumps([asdict(p) for p in self.history], indent=1))

    def write(self, model: Path, plot: str | None, title: str, xlabel: str = STEPS_LABEL) -> None:
        """The history beside the saved ``model`` (``.history.json``) and, if
        ``plot`` names a file, the curve there (see ``plot``)."""
        self.save(model.with_suffix(".history.json"))
        if plot:
            self.plot(Path(plot), title, xlabel)
            print(f"plot: {plot}")

    def plot(self, path: Path, title: str, xlabel: str = STEPS_LABEL) -> None:
        """Win rate against each benchmark over timesteps, as a PNG."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(7, 4.2), dpi=110)
        for name in self.benchmarks:
            steps = [p.timesteps for p in self.history]
            ax.plot(steps, [100 * p.win_rate[name] for p in self.history], marker="o", label=f"vs {name}")
        ax.axhline(90, color="grey", linestyle=":", linewidth=1)
        ax.set_ylim(0, 100)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(f"win rate, % ({self.games} games; draw = half)")
        ax.set_title(title)
        ax.grid(alpha=0.3)
        ax.legend(loc="lower right")
        fig.tight_layout()
        path.parent.mkdir(parents=True, exist_ok=True)
        image = io.BytesIO()
        fig.savefig(image, format=path.suffix[1:] or None)  # the format the name asks for, as savefig(path)
        plt.close(fig)
        write_bytes_atomic(path, image.getvalue())


class CtrlCHeld:
    """A block that Ctrl-C does not cut: the save of a run. A second Ctrl-C while the first one's
    save was written ended it with a traceback, the run unsaved. ``interrupted``: whether the run
    was stopped by a Ctrl-C already (its line printed), or one came during the block."""

    def __init__(self, interrupted: bool) -> None:
        """``interrupted``: whether a Ctrl-C stopped the run before the block."""
        self.interrupted = interrupted
        self._already = interrupted

    def __enter__(self) -> CtrlCHeld:
        """Hold Ctrl-C off until the block ends (main thread only, as every signal handler)."""
        self._previous = signal.signal(signal.SIGINT, self._press)
        return self

    def _press(self, _signum: int, _frame: FrameType | None) -> None:
        self.interrupted = True

    def __exit__(
        self, _type: type[BaseException] | None, _error: BaseException | None, _traceback: TracebackType | None
    ) -> None:
        """Give Ctrl-C back its handler; one line if the first Ctrl-C came during the block."""
        signal.signal(signal.SIGINT, self._previous)
        if self.interrupted and not self._already and _error is None:
            print("interrupted while saving: saved all the same", file=sys.stderr)


library_seed = bounded_int(0, 2**32 - 1)
"""An argument type: a ``--seed`` the RL libraries take (they seed numpy's global generator: 0 to 2**32 - 1)."""


def add_evaluation_options(parser: argparse.ArgumentParser, every: int) -> None:
    """``--eval-every``, ``--eval-games``, ``--benchmarks random,greedy`` and ``--plot PNG``."""

    def names(text: str) -> tuple[str, ...]:
        chosen = tuple(n.strip() for n in text.split(",") if n.strip())
        unknown = [n for n in chosen if n not in BENCHMARKS]
        if unknown or not chosen:
            raise argparse.ArgumentTypeError(f"choose among {', '.join(BENCHMARKS)}, got {text!r}")
        return chosen

    def positive(text: str) -> int:
        value = int(text)
        if value < 1:
            raise argparse.ArgumentTypeError(f"must be >= 1, got {value}")
        return value

    parser.add_argument("--eval-every", type=positive, default=every, help=f"evaluate every N steps (default {every})")
    parser.add_argument("--eval-games", type=positive, default=100, help="games per benchmark (default 100)")
    parser.add_argument(
        "--benchmarks", type=names, default=tuple(BENCHMARKS), help="evaluation opponents (default random,greedy)"
    )
    parser.add_argument("--plot", metavar="PNG", help="write a win-rate-vs-timesteps plot there")


def check_outputs(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """A usage error unless ``--save`` and ``--plot`` can be written (their directories
    are made now, and removed again on a usage error): checked before training, so a
    run is not lost at its end."""
    made: list[Path] = []
    for flag in ("save", "plot"):
        path = getattr(args, flag, None)
        if path is not None:  # an empty name too: it would fail at the end
            missing = [d for d in Path(path).expanduser().parents if not d.exists()]
            with contextlib.suppress(OSError):  # if it cannot be made, check_writable says why
                Path(path).expanduser().parent.mkdir(parents=True, exist_ok=True)
            made.extend(d for d in missing if d.is_dir())
            try:
                check_writable(path)
            except OSError as e:
                for directory in made:  # deepest first: nothing of a refused run is left behind
                    with contextlib.suppress(OSError):
                        directory.rmdir()
                parser.error(f"--{flag} {path!r}: {e.strerror}")
