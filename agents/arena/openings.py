"""The openings a tournament's games start from: short move sequences from the standard start,
drawn at random from a seed or read from a file of transcripts.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from agents.datafiles import read_data
from agents.limits import MAX_OPENING_PLIES, MAX_TEXT_FILE
from agents.play.match import TRANSCRIPT_PASS
from reversi_env.errors import IllegalMoveError
from reversi_env.notation import action_name, parse_action
from reversi_env.state import GameState


@dataclass(frozen=True)
class Opening:
    """A short move sequence from the standard start, e.g. ``("F5", "D6")``."""

    moves: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        """The transcript (``"f5d6"``, a pass as ``"--"``), or ``"start"``."""
        if not self.moves:
            return "start"
        return "".join(TRANSCRIPT_PASS if m == "PASS" else m.lower() for m in self.moves)

    def state(self) -> GameState:
        """The position after the opening (checked)."""
        state = GameState.initial()
        for m in self.moves:
            state = state.apply(m)
        return state

    @classmethod
    def parse(cls, text: str) -> Opening:
        """An opening from a transcript: ``"f5d6c3"``, ``"F5 D6 C3"``, ``"start"``;
        raises ValueError (InvalidMoveError / IllegalMoveError) naming the move, in one line."""
        t = "".join(text.replace(",", " ").split())
        if t.lower() in ("", "start"):
            return cls()
        if len(t) % 2:
            raise ValueError(f"an opening transcript has two characters per move, got {text!r}")
        state = GameState.initial()
        moves = []
        for i in range(0, len(t), 2):
            chunk = t[i : i + 2]
            action = parse_action("PASS" if chunk == TRANSCRIPT_PASS else chunk)
            try:
                state = state.apply(action)
            except IllegalMoveError as e:  # its message shows the board below: a line for a file's error
                raise IllegalMoveError(f"move {i // 2 + 1}: {str(e).splitlines()[0]}") from None
            moves.append(action_name(action))
        if state.is_terminal():
            raise ValueError(f"opening {text!r} ends the game")
        return cls(tuple(moves))


GIVE_UP = 2000
"""Random openings drawn in a row without a new position before giving up."""


def random_openings(
    count: int, plies: int, seed: int = 0, keep: Callable[[GameState], bool] | None = None
) -> list[Opening]:
    """``count`` openings of ``plies`` random legal plies leading to distinct
    positions, reproducible from ``seed``; ValueError (quickly) if there are
    not enough, or ``plies`` is not 0 to ``MAX_OPENING_PLIES``.

    With ``keep``, each ply is drawn among the moves to a position ``keep``
    accepts (e.g. one an opening book holds), and a line with none is dropped."""
    if count < 0 or not 0 <= plies <= MAX_OPENING_PLIES:
        raise ValueError(f"count must be >= 0 and plies 0 to {MAX_OPENING_PLIES}, got {count} and {plies}")
    rng = random.Random(f"openings:{seed}:{plies}")
    found: dict[GameState, Opening] = {}
    misses = 0
    while len(found) < count and misses < GIVE_UP:
        misses += 1
        state = GameState.initial()
        moves = []
        for _ in range(plies):
            if state.is_terminal():
                break
            actions = state.legal_actions()
            if keep is not None:
                actions = [a for a in actions if keep(state.apply(a))]
                if not actions:
                    break
            action = rng.choice(actions)
            state = state.apply(action)
            moves.append(action_name(action))
        if len(moves) == plies and not state.is_terminal() and state not in found:
            found[state] = Opening(tuple(moves))
            misses = 0
    if len(found) < count:
        raise ValueError(
            f"found only {len(found)} distinct {plies}-ply openings but {count} are needed: "
            "use more opening plies or fewer games per pairing"
        )
    return list(found.values())


def load_openings(path: str | Path) -> list[Opening]:
    """Openings from a text file, one transcript per line (``#`` starts a comment);
    ValueError naming the line for a bad or repeated one."""
    openings: list[Opening] = []
    seen: dict[GameState, int] = {}
    try:
        lines = read_data(path, MAX_TEXT_FILE, "an openings file").decode("utf-8").splitlines()
    except UnicodeDecodeError as e:
        raise ValueError(f"{path}: not a text file of openings ({e.reason} at byte {e.start})") from None
    for number, line in enumerate(lines, 1):
        text = line.split("#", 1)[0].strip()
        if not text:
            continue
        try:
            opening = Opening.parse(text)
        except ValueError as e:
            raise ValueError(f"{path}:{number}: {e}") from e
        state = opening.state()
        if state in seen:
            raise ValueError(f"{path}:{number}: opening {text!r} repeats the position of line {seen[state]}")
        seen[state] = number
        openings.append(opening)
    if not openings:
        raise ValueError(f"{path}: no openings in the file")
    return openings
