"""The game behind the window under the tournament rules, without pygame.

``GameFlow`` keeps the positions played (for undo and drawing), the clocks
shown and, once the game is over, its ``GameResult``; the rules are its
``Referee``'s (``agents.play.referee``), to which it pushes each answer:

- a turn longer than ``time_limit`` seconds loses ("timeout"), people too
  (the window polls ``check_clock`` on its tick);
- ``max_illegal`` illegal answers at one turn lose ("illegal"); each one is
  reported with the tries left;
- a program that raises loses ("error"); a person may resign ("resign");
- a forced pass is played at once; the game ends when neither side can move.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from agents.clocks import TimeControl, TimeLeft
from agents.play.records import record
from agents.play.referee import Ply, Referee, Verdict
from agents.play.result import GameResult, Reason
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

    def __init__(
        self,
        start: GameState | None = None,
        time_limit: float | None = 60.0,
        max_illegal: int = 3,
        time_control: TimeControl | None = None,
    ) -> None:
        """``start`` is where a new game begins; ``time_limit`` the seconds a
        turn may take (None: no limit), unless ``time_control`` says more (a game
        clock); ``max_illegal`` the illegal answers that lose."""
        if start is not None and not isinstance(start, GameState):
            raise TypeError(f"start must be a GameState or None, got {type(start).__name__}")
        self.start = GameState.initial() if start is None else start
        self.time_limit = time_limit
        self.time_control = TimeControl.per_move(time_limit) if time_control is None else time_control
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

    @property
    def tries(self) -> int:
        """The illegal answers of this turn so far."""
        return len(self.referee.tries)

    def new_game(self) -> str:
        """Start again from the start position; a message for the person."""
        self.result: GameResult | None = None
        self.history = [Snapshot(self.start)]
        self.referee = self._referee()
        return self._after_move("New game.", self.referee.begin())

    def _referee(self) -> Referee:
        start = None if self.start == GameState.initial() else self.start
        return Referee(start, time_control=self.time_control, max_illegal=self.max_illegal)

    def restart_clock(self) -> None:
        """A new turn (or new players): the clock from now, no tries used."""
        self.turn_started = time.perf_counter()
        self.referee.restart_turn()

    def elapsed(self) -> float:
        """Seconds the side to move has been thinking."""
        return time.perf_counter() - self.turn_started

    def time_left(self) -> float | None:
        """Seconds left of this turn (None: no limit)."""
        left = self.referee.clocks[self.state.player].allowance(self.elapsed())
        return None if left is None else max(0.0, left)

    def reading(self) -> TimeLeft:
        """The side to move's time as its player is told it (``Referee.reading``), thinking since the turn began."""
        return self.referee.clocks[self.state.player].reading(self.elapsed())

    def play(self, action: int, seconds: float | None = None) -> str:
        """Play the legal ``action`` for the side to move (its thinking time
        ``seconds``, default the clock's); returns the message to show."""
        prev = self.history[-1]
        state = prev.state
        if self.over or not state.is_legal(action):
            raise ValueError(f"{action_name(action)} is not legal here\n{state}")
        mover = state.player
        spent = self.elapsed() if seconds is None else seconds
        ruling = self.referee.play(action, spent)
        (_, after), *passes = ruling.plies
        last_time, total_time = list(prev.last_time), list(prev.total_time)
        last_time[mover] = spent
        total_time[mover] += spent
        flipped = tuple(state.flipped(action)) if action != PASS else ()
        moves, times = (*prev.moves, action_name(action)), (*prev.times, spent)
        self.history.append(Snapshot(after, action, flipped, last_time, total_time, moves, times))
        return self._after_move(f"{PLAYER_NAMES[mover].capitalize()} played {action_name(action)}.", passes)

    def _after_move(self, message: str, passes: Sequence[Ply]) -> str:
        """Show the forced passes the referee played, notice the end, start the next clock."""
        for ply, state in passes:
            prev = self.history[-1]
            self.history.append(
                dataclasses.replace(prev, state=state, moves=(*prev.moves, "PASS"), times=(*prev.times, 0.0))
            )
            message += f" {PLAYER_NAMES[ply.player].capitalize()} has no legal move and passes."
        if self.referee.over:
            self.result = self.record()
        self.restart_clock()
        return message

    def reject(self, answer: object, why: str) -> str:
        """The side to move answered ``answer``, which is not a legal move:
        count it; the last allowed try loses. Returns the message to show."""
        who = PLAYER_NAMES[self.state.player].capitalize()
        line = f"{who} tried {answer}: {why}"
        details = f"{line}; {self.max_illegal} illegal moves lose"
        ruling = self.referee.reject(line, 0.0, details)  # the window times the turn as a whole
        if ruling.verdict is Verdict.LOST:
            self._conclude(details)
            return f"{line}. {self.max_illegal} illegal moves: {who.lower()} loses."
        return f"{ruling.text}."

    def check_clock(self) -> bool:
        """End the game if the side to move ran out of time; True if it did."""
        left = None if self.over else self.referee.clocks[self.state.player].allowance(self.elapsed())
        if left is None or left >= 0:
            return False
        who = PLAYER_NAMES[self.state.player]
        if self.referee.on_clock():
            details = f"{who} {self.referee.overtime_words()}"
        else:
            details = f"{who} took over {self.time_control.move:g} s"
        self.referee.time_out(self.elapsed(), details)
        self._conclude(details)
        return True

    def lose(self, loser: Player, reason: str, details: str) -> None:
        """End the game now: ``loser`` loses for ``reason`` (a ``Reason``'s word)."""
        self.referee.lose(Reason(reason), details, loser)
        self._conclude(details)

    def _conclude(self, details: str) -> None:
        """The referee's verdict on the game so far, with the window's ``details``."""
        verdict = self.referee.result
        assert verdict is not None
        self.result = dataclasses.replace(
            self.record(), winner=verdict.winner, loser=verdict.loser, reason=verdict.reason, details=details
        )

    def resign(self) -> str:
        """The side to move resigns."""
        who = PLAYER_NAMES[self.state.player]
        self.lose(self.state.player, "resign", f"{who} resigned")
        return f"{who.capitalize()} resigned."

    def undo(self, until: Player | None = None) -> bool:
        """Take back the last move (and a forced pass before it), or with
        ``until`` back to the last position where that side was to move and
        had a move. The result, if any, is forgotten; the clocks stay as they
        stand (the turn under way charged to its side): an undo gives no time
        back. False if nothing to undo."""
        if len(self.history) <= 1:
            return False
        self.history.pop()
        while len(self.history) > 1 and (
            (until is not None and self.state.player != until) or self.state.legal_actions() == [PASS]
        ):
            self.history.pop()
        clocks = self.referee.clocks  # an undo takes moves back, not time
        clocks[self.referee.to_move].charge(self.referee.used + (0.0 if self.over else self.elapsed()))
        self.result = None
        self.referee = self._replayed()
        self.referee.clocks = clocks
        self.restart_clock()
        return True

    def _replayed(self) -> Referee:
        """A referee that has seen the moves (and clocks) of the position undo went back to."""
        referee = self._referee()
        referee.begin()
        snap = self.history[-1]
        for ply, (move, seconds) in enumerate(zip(snap.moves, snap.times, strict=True)):
            if len(referee.moves) <= ply:  # else a forced pass the referee played
                referee.play(parse_action(move), seconds)
        return referee

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
        self.referee = self._referee()
        self._after_move("", self.referee.begin())  # a pass forced at the start
        for ply, (move, seconds) in enumerate(zip(game.moves, game.times, strict=True)):
            if len(self.history[-1].moves) > ply:
                continue  # a forced pass, played by the referee already
            self.play(parse_action(move), seconds)
        if game.reason != "end" and game.reason != "interrupted":
            self.result = game
        elif self.state.is_terminal():
            self.result = dataclasses.replace(self.record(), black_name=game.black_name, white_name=game.white_name)
