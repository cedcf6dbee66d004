"""The game behind the window under the tournament rules, without pygame.

``GameFlow`` keeps the positions played (for undo), each side's clock, the
illegal tries of the turn and, once the game is over, its ``GameResult``:

- a turn longer than ``time_limit`` seconds loses ("timeout"), people too;
- ``max_illegal`` illegal answers at one turn lose ("illegal"); each one is
  reported with the tries left;
- a program that raises loses ("error"); a person may resign ("resign");
- a forced pass is played at once; the game ends when neither side can move.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field

from agents.play.match import GameResult
from agents.play.records import record
from reversi_env.notation import PASS, action_name, parse_action
from reversi_env.state import PLAYER_NAMES, GameState, Player


@dataclass
class Snapshot:
    """Everything undo restores: the position, its marks and the clocks."""

    state: GameState
    last_move: int | None = None
    flipped: tuple[int, ...] = ()
    last_time: list[float] = field(default_factory=lambda: [0.0, 0.0])
    total_time: list[float] = field(default_factory=lambda: [0.0, 0.0])
    moves: tuple[str, ...] = ()
    """Every ply from the start, in notation ("PASS" for a pass)."""
    times: tuple[float, ...] = ()
    """The thinking time of each ply in ``moves``."""


class GameFlow:
    """One game's positions, clocks and rules (see the module docstring)."""

    def __init__(self, start: GameState | None = None, time_limit: float | None = 60.0, max_illegal: int = 3) -> None:
        """``start`` is where a new game begins; ``time_limit`` the seconds a
        turn may take (None: no limit); ``max_illegal`` the illegal answers that lose."""
        if start is not None and not isinstance(start, GameState):
            raise TypeError(f"start must be a GameState or None, got {type(start).__name__}")
        self.start = GameState.initial() if start is None else start
        self.time_limit = time_limit
        self.max_illegal = max_illegal
        self.names = ["black", "white"]
        self.new_game()

    @property
    def state(self) -> GameState:
        """The current position."""
        return self.history[-1].state

    @property
    def over(self) -> bool:
        """True once the game has a result."""
        return self.result is not None

    def new_game(self) -> str:
        """Start again from the start position; a message for the person."""
        self.result: GameResult | None = None
        self.history = [Snapshot(self.start)]
        return self._after_move("New game.")

    def restart_clock(self) -> None:
        """A new turn (or new players): the clock from now, no tries used."""
        self.turn_started = time.perf_counter()
        self.tries = 0

    def elapsed(self) -> float:
        """Seconds the side to move has been thinking."""
        return time.perf_counter() - self.turn_started

    def time_left(self) -> float | None:
        """Seconds left of this turn (None: no limit)."""
        return None if self.time_limit is None else max(0.0, self.time_limit - self.elapsed())

    def play(self, action: int, seconds: float | None = None) -> str:
        """Play the legal ``action`` for the side to move (its thinking time
        ``seconds``, default the clock's); returns the message to show."""
        prev = self.history[-1]
        state = prev.state
        if self.over or not state.is_legal(action):
            raise ValueError(f"{action_name(action)} is not legal here\n{state}")
        mover = state.player
        spent = self.elapsed() if seconds is None else seconds
        last_time, total_time = list(prev.last_time), list(prev.total_time)
        last_time[mover] = spent
        total_time[mover] += spent
        flipped = tuple(state.flipped(action)) if action != PASS else ()
        self.history.append(
            Snapshot(
                state.apply(action),
                action,
                flipped,
                last_time,
                total_time,
                (*prev.moves, action_name(action)),
                (*prev.times, spent),
            )
        )
        return self._after_move(f"{PLAYER_NAMES[mover].capitalize()} played {action_name(action)}.")

    def _after_move(self, message: str) -> str:
        """Play a forced pass, notice the end, start the next clock."""
        state = self.state
        if not state.is_terminal() and state.legal_actions() == [PASS]:
            prev = self.history[-1]
            self.history.append(
                dataclasses.replace(
                    prev, state=state.apply(PASS), moves=(*prev.moves, "PASS"), times=(*prev.times, 0.0)
                )
            )
            message += f" {PLAYER_NAMES[state.player].capitalize()} has no legal move and passes."
        if self.state.is_terminal():
            self.result = self.record()
        self.restart_clock()
        return message

    def reject(self, answer: object, why: str) -> str:
        """The side to move answered ``answer``, which is not a legal move:
        count it; the last allowed try loses. Returns the message to show."""
        who = PLAYER_NAMES[self.state.player].capitalize()
        self.tries += 1
        left = self.max_illegal - self.tries
        line = f"{who} tried {answer}: {why}"
        if left <= 0:
            self.lose(self.state.player, "illegal", f"{line}; {self.max_illegal} illegal moves lose")
            return f"{line}. {self.max_illegal} illegal moves: {who.lower()} loses."
        return f"{line}, {left} {'try' if left == 1 else 'tries'} left."

    def check_clock(self) -> bool:
        """End the game if the side to move ran out of time; True if it did."""
        if self.over or self.time_limit is None or self.elapsed() <= self.time_limit:
            return False
        who = PLAYER_NAMES[self.state.player]
        self.lose(self.state.player, "timeout", f"{who} took over {self.time_limit:g} s")
        return True

    def lose(self, loser: Player, reason: str, details: str) -> None:
        """End the game now: ``loser`` loses for ``reason`` (a match runner reason)."""
        self.result = dataclasses.replace(
            self.record(),
            winner=PLAYER_NAMES[1 - loser],
            loser=PLAYER_NAMES[loser],
            reason=reason,
            details=details,
        )

    def resign(self) -> str:
        """The side to move resigns."""
        who = PLAYER_NAMES[self.state.player]
        self.lose(self.state.player, "resign", f"{who} resigned")
        return f"{who.capitalize()} resigned."

    def undo(self, until: Player | None = None) -> bool:
        """Take back the last move (and a forced pass before it), or with
        ``until`` back to the last position where that side was to move and
        had a move. The result, if any, is forgotten. False if nothing to undo."""
        if len(self.history) <= 1:
            return False
        self.history.pop()
        while len(self.history) > 1 and (
            (until is not None and self.state.player != until) or self.state.legal_actions() == [PASS]
        ):
            self.history.pop()
        self.result = None
        self.restart_clock()
        return True

    def record(self) -> GameResult:
        """The game as a record: the result once over, else the game so far."""
        if self.result is not None:
            return self.result
        snap = self.history[-1]
        start = None if self.start == GameState.initial() else self.start
        game = record(list(snap.moves), list(snap.times), start)
        game.black_name, game.white_name = self.names
        return game

    def load(self, game: GameResult) -> None:
        """Continue (or show) the recorded game: its start, moves and times."""
        self.start = game.start_state()
        self.history = [Snapshot(self.start)]
        self.result = None
        self._after_move("")  # a pass forced at the start
        for ply, (move, seconds) in enumerate(zip(game.moves, game.times, strict=True)):
            if len(self.history[-1].moves) > ply:
                continue  # a forced pass, played by _after_move already
            self.play(parse_action(move), seconds)
        if game.reason != "end" and game.reason != "interrupted":
            self.result = game
        elif self.state.is_terminal():
            self.result = dataclasses.replace(self.record(), black_name=game.black_name, white_name=game.white_name)
