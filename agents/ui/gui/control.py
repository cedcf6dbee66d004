"""``GameControl``: what the window's buttons do to the game, and the AI's turns, without pygame.

Each action (new game, undo, swap, mode, AI and strength, resign, save, load,
a click on a square) changes the game in ``flow.GameFlow`` or the players in
``seats.Seats`` and leaves a line for the person in ``message``; ``update``
takes the AI's answers from ``worker.AIWorker`` and starts its next search.
"""

from __future__ import annotations

from pathlib import Path

from agents.clocks import TimeControl
from agents.play.records import RecordError, load_record, write_record
from agents.ui.gui.flow import GameFlow
from agents.ui.gui.seats import MODES, Seats
from agents.ui.gui.worker import AIWorker, Answer
from reversi_env.errors import InvalidMoveError
from reversi_env.notation import action_name, to_action
from reversi_env.state import BLACK, PLAYER_NAMES, GameState

DEMO_PAUSE = 0.5
"""Seconds between the moves of an AI vs AI game, so people can follow it."""


class GameControl:
    """The game behind the window: people and AIs under the tournament rules."""

    def __init__(
        self,
        ai: str = "mcts:time=1",
        human: object = BLACK,
        seed: int | None = None,
        start: GameState | None = None,
        *,
        mode: str = "ai",
        time_limit: float | None = 60.0,
        max_illegal: int = 3,
        save_path: str | Path = "reversi-game.json",
        demo_pause: float = DEMO_PAUSE,
        time_control: TimeControl | None = None,
    ) -> None:
        """``ai`` is a player spec (see ``agents.play.specs``), ``human`` the
        person's colour, ``seed`` the AI's seed, ``start`` where a new game
        starts, ``mode`` one of MODES, ``time_limit`` the seconds a move may
        take (None: no limit), ``save_path`` where Save writes and Load reads,
        ``demo_pause`` the seconds between moves of an AI vs AI game,
        ``time_control`` a game clock (with ``time_limit`` as its move limit)."""
        self.seats = Seats(ai, human, mode)
        self.flow = GameFlow(start, time_limit=time_limit, max_illegal=max_illegal, time_control=time_control)
        self.seed = seed
        self.save_path = Path(save_path)
        self.demo_pause = demo_pause
        self.worker = AIWorker()
        self.message = ""
        self.new_game()

    @property
    def state(self) -> GameState:
        """The current position."""
        return self.flow.state

    def _players_changed(self, message: str) -> None:
        self.worker.forget()
        self.flow.names = self.seats.names()
        self.flow.restart_clock()
        self.message = message

    def new_game(self) -> None:
        """Start again from the start position (the players stay)."""
        self._players_changed(self.flow.new_game() + " Click a square with a dot to move.")

    def undo(self) -> None:
        """Take back moves: to the person's previous turn against the AI, else one move."""
        if self.flow.undo(self.seats.human if self.seats.mode == "ai" else None):
            self._players_changed("Move taken back.")

    def swap_colors(self) -> None:
        """The person takes the other colour; the AI moves if it is now its turn."""
        if self.seats.mode != "ai":
            self.message = "Swap is for a game against the AI."
            return
        self.seats.human = 1 - self.seats.human
        self._players_changed(f"You now play {PLAYER_NAMES[self.seats.human]}.")

    def next_mode(self) -> None:
        """You vs AI, two people, AI vs AI, in turn (the game goes on)."""
        self.seats.next_mode()
        self._players_changed(f"Now: {MODES[self.seats.mode]}.")

    def next_opponent(self) -> None:
        """Choose the next AI opponent (at its middle strength)."""
        self.seats.next_opponent()
        self._players_changed(f"AI: {self.seats.ai_spec}.")

    def change_strength(self, step: int) -> None:
        """A stronger (+1) or weaker (-1) setting of the same opponent."""
        self.seats.change_strength(step)
        self._players_changed(f"AI: {self.seats.ai_spec}.")

    def resign(self) -> None:
        """The person resigns (of two people, the one to move)."""
        if self.flow.over or self.seats.mode == "demo":
            return
        loser = self.seats.human if self.seats.mode == "ai" else self.state.player
        who = PLAYER_NAMES[loser]
        self.flow.lose(loser, "resign", f"{who} resigned")
        self.worker.forget()
        self.message = f"{who.capitalize()} resigned."

    def save(self) -> None:
        """Write the game so far to ``save_path`` (.ggf GGF, .txt a transcript, else JSON)."""
        try:
            write_record(self.flow.record(), self.save_path)
        except OSError as e:
            self.message = f"Cannot save to {self.save_path}: {e.strerror or e}"
            return
        except RecordError as e:
            self.message = f"Cannot save: {e}"
            return
        self.message = f"Saved to {self.save_path}."

    def load(self) -> None:
        """Continue the game saved at ``save_path``."""
        try:
            game = load_record(self.save_path)
        except RecordError as e:
            self.message = f"Cannot load: {e}"
            return
        self.flow.load(game)
        self._players_changed(f"Loaded {self.save_path} ({len(game.moves)} moves).")

    def click(self, square: int | None) -> bool:
        """A person clicked ``square`` (None: off the board): play it if it is
        their legal move. Returns True if a move was made; an illegal square of
        theirs is only named in ``message``, anything else changes nothing."""
        state = self.state
        if square is None or self.flow.over or not self.seats.is_human(state.player):
            return False
        if not state.is_legal(square):
            self.message = f"{action_name(square)} is not a legal move."
            return False
        self.message = self.flow.play(square)
        return True

    def update(self) -> None:
        """Take the AI's answer, apply the clock, start the AI's next search."""
        answer = self.worker.answer()
        if answer is not None and not self.flow.over:
            self._take(answer)
        if self.flow.over:
            return
        if self.flow.check_clock():
            self.worker.forget()
            self.message = self.flow.result.details.capitalize() + "." if self.flow.result else ""
            return
        color = self.state.player
        if self.seats.is_human(color) or self.worker.busy:
            return
        if self.seats.mode == "demo" and self.flow.elapsed() < self.demo_pause:
            return
        on_clock = self.flow.time_control.clock is not None  # the AI gets what its clock leaves
        limit = self.flow.reading() if on_clock else self.flow.time_limit
        self.worker.start(self.seats.ai_spec, color, self.state, self.seed, limit)

    def _take(self, answer: Answer) -> None:
        who = f"{PLAYER_NAMES[answer.color].capitalize()} (AI)"
        if answer.tampered:
            self.flow.lose(answer.color, "tamper", f"{who} changed the board")
            self.message = f"{who} changed the board, and loses."
            return
        if answer.error:
            self.flow.lose(answer.color, "error", f"{who} failed: {answer.error}")
            self.message = f"{who} failed: {answer.error}"
            return
        if answer.rejected is not None:
            self.message = self.flow.reject(*answer.rejected)
            return
        try:
            action = to_action(answer.action)
        except InvalidMoveError:
            self.message = self.flow.reject(repr(answer.action), "not a move")
            return
        if not self.state.is_legal(action):
            self.message = self.flow.reject(action_name(action), "not a legal move")
            return
        self.message = self.flow.play(action, answer.seconds)
