"""``GuiApp``: the window's events and its game flow, wiring the parts together.

The rules live in ``flow.GameFlow``, the AI's searches in ``worker.AIWorker``,
the pixels in ``draw`` and ``reversi_env.render``. ``GuiApp`` has
``handle_event(event)``, ``update()`` and ``draw(surface)``; ``run()`` is only
the window loop around them, so the app can be driven without a display.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pygame

from agents.play.records import RecordError, load_record, write_record
from agents.play.specs import parse_spec
from agents.ui.gui.draw import BOARD_SIZE, WINDOW_SIZE, Fonts, Side, draw_dialog, draw_panel
from agents.ui.gui.flow import GameFlow
from agents.ui.gui.worker import AIWorker, Answer
from reversi_env.errors import InvalidMoveError
from reversi_env.notation import action_name, to_action
from reversi_env.render import draw_board, square_at
from reversi_env.state import BLACK, PLAYER_NAMES, GameState, Player, parse_player

FPS = 30
MODES = {"ai": "you vs AI", "humans": "two people", "demo": "AI vs AI"}
"""Who plays: a person against the AI, two people at one window, or the AI against itself."""
DEMO_PAUSE = 0.5
"""Seconds between the moves of an AI vs AI game, so people can follow it."""

OPPONENTS: list[tuple[str, list[tuple[str, str]]]] = [
    ("MCTS", [("0.5 s", "mcts:time=0.5"), ("1 s", "mcts:time=1"), ("3 s", "mcts:time=3"), ("10 s", "mcts:time=10")]),
    ("Alpha-beta", [("depth 2", "alphabeta:2"), ("depth 4", "alphabeta:4"), ("depth 6", "alphabeta:6")]),
    ("Positional", [("-", "positional")]),
    ("Greedy", [("-", "greedy")]),
    ("Random", [("-", "random")]),
]
"""The AI opponents the panel offers, each with its strengths (label, spec)."""

KEYS = {
    pygame.K_n: "new",
    pygame.K_u: "undo",
    pygame.K_s: "swap",
    pygame.K_a: "ai",
    pygame.K_m: "mode",
    pygame.K_r: "resign",
    pygame.K_l: "load",
    pygame.K_PLUS: "stronger",
    pygame.K_EQUALS: "stronger",
    pygame.K_KP_PLUS: "stronger",
    pygame.K_MINUS: "weaker",
    pygame.K_KP_MINUS: "weaker",
}
"""Keys and the buttons they press (Ctrl+S saves, Esc closes the dialog or the window)."""


class GuiApp:
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
    ) -> None:
        """``ai`` is a player spec (see ``agents.play.specs``), ``human`` the
        person's colour, ``seed`` the AI's seed, ``start`` where a new game
        starts, ``mode`` one of MODES, ``time_limit`` the seconds a move may
        take (None: no limit), ``save_path`` where Save writes and Load reads,
        ``demo_pause`` the seconds between moves of an AI vs AI game."""
        if mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}, got {mode!r}")
        if parse_spec(ai).kind == "human":
            raise ValueError("the window's opponent must be a program, not 'human' (use mode='humans' for two people)")
        self.flow = GameFlow(start, time_limit=time_limit, max_illegal=max_illegal)
        self.opponents = list(OPPONENTS)
        if ai not in [spec for _, strengths in self.opponents for _, spec in strengths]:
            self.opponents.insert(0, ("Custom", [(ai, ai)]))
        self.opponent, self.strength = next(
            (i, j) for i, (_, s) in enumerate(self.opponents) for j, (_, spec) in enumerate(s) if spec == ai
        )
        self.mode = mode
        self.human: Player = parse_player(human)
        self.seed = seed
        self.save_path = Path(save_path)
        self.demo_pause = demo_pause
        self.worker = AIWorker()
        self.fonts = Fonts()
        self.buttons: dict[str, Any] = {}
        self.running = True
        self.dialog_closed = False
        self.message = ""
        self.new_game()

    # -- who plays -------------------------------------------------------------------

    @property
    def ai_spec(self) -> str:
        """The spec of the AI currently chosen."""
        return self.opponents[self.opponent][1][self.strength][1]

    @property
    def state(self) -> GameState:
        """The current position."""
        return self.flow.state

    @property
    def history(self) -> list[Any]:
        """The positions played, the start first (``flow.Snapshot``)."""
        return self.flow.history

    @property
    def thinking(self) -> bool:
        """True while the AI is searching."""
        return self.worker.busy

    def is_human(self, color: Player) -> bool:
        """True if a person plays ``color``."""
        return self.mode == "humans" or (self.mode == "ai" and color == self.human)

    def seat_name(self, color: Player) -> str:
        """Who plays ``color``, as the panel says it."""
        if self.mode == "ai":
            return "you" if color == self.human else "AI"
        return "human" if self.mode == "humans" else "AI"

    def _players_changed(self, message: str) -> None:
        self.worker.forget()
        self.flow.names = ["human" if self.is_human(c) else self.ai_spec for c in (0, 1)]
        self.flow.restart_clock()
        self.message = message

    # -- the buttons -----------------------------------------------------------------

    def new_game(self) -> None:
        """Start again from the start position (the players stay)."""
        self.message = self.flow.new_game() + " Click a square with a dot to move."
        self.dialog_closed = False
        self._players_changed(self.message)

    def undo(self) -> None:
        """Take back moves: to the person's previous turn against the AI, else one move."""
        until = self.human if self.mode == "ai" else None
        if self.flow.undo(until):
            self.dialog_closed = False
            self._players_changed("Move taken back.")

    def swap_colors(self) -> None:
        """The person takes the other colour; the AI moves if it is now its turn."""
        if self.mode != "ai":
            self.message = "Swap is for a game against the AI."
            return
        self.human = 1 - self.human
        self._players_changed(f"You now play {PLAYER_NAMES[self.human]}.")

    def next_mode(self) -> None:
        """You vs AI, two people, AI vs AI, in turn (the game goes on)."""
        modes = list(MODES)
        self.mode = modes[(modes.index(self.mode) + 1) % len(modes)]
        self._players_changed(f"Now: {MODES[self.mode]}.")

    def next_opponent(self) -> None:
        """Choose the next AI opponent (at its middle strength)."""
        self.opponent = (self.opponent + 1) % len(self.opponents)
        self.strength = (len(self.opponents[self.opponent][1]) - 1) // 2
        self._players_changed(f"AI: {self.ai_spec}.")

    def change_strength(self, step: int) -> None:
        """A stronger (+1) or weaker (-1) setting of the same opponent."""
        strengths = self.opponents[self.opponent][1]
        self.strength = max(0, min(len(strengths) - 1, self.strength + step))
        self._players_changed(f"AI: {self.ai_spec}.")

    def resign(self) -> None:
        """The person resigns (of two people, the one to move)."""
        if self.flow.over or self.mode == "demo":
            return
        loser = self.human if self.mode == "ai" else self.state.player
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
        self.message = f"Saved to {self.save_path}."

    def load(self) -> None:
        """Continue the game saved at ``save_path``."""
        try:
            game = load_record(self.save_path)
        except RecordError as e:
            self.message = f"Cannot load: {e}"
            return
        self.flow.load(game)
        self.dialog_closed = False
        self._players_changed(f"Loaded {self.save_path} ({len(game.moves)} moves).")

    def click(self, square: int | None) -> bool:
        """A person clicked ``square``: play it if it is their legal move.
        Returns True if a move was made; anything else changes nothing."""
        state = self.state
        if square is None or self.flow.over or not self.is_human(state.player) or not state.is_legal(square):
            return False
        self.message = self.flow.play(square)
        return True

    # -- time passing ----------------------------------------------------------------

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
        if self.is_human(color) or self.worker.busy:
            return
        if self.mode == "demo" and self.flow.elapsed() < self.demo_pause:
            return
        self.worker.start(self.ai_spec, color, self.state, self.seed, self.flow.time_limit)

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
        try:
            action = to_action(answer.action)
        except InvalidMoveError:
            self.message = self.flow.reject(repr(answer.action), "not a move")
            return
        if not self.state.is_legal(action):
            self.message = self.flow.reject(action_name(action), "not a legal move")
            return
        self.message = self.flow.play(action, answer.seconds)

    # -- events ----------------------------------------------------------------------

    def handle_event(self, event: Any) -> None:
        """React to one pygame event: clicks on the board, the buttons or the
        dialog, keys, quit."""
        if event.type == pygame.QUIT:
            self.running = False
        elif event.type == pygame.MOUSEBUTTONDOWN and event.button == 1:
            for name, rect in self.buttons.items():
                if rect.collidepoint(event.pos):
                    self.press(name)
                    return
            if self.dialog_shown:
                return
            square = square_at(event.pos, size=BOARD_SIZE)
            human_turn = self.is_human(self.state.player) and not self.flow.over
            if not self.click(square) and square is not None and human_turn:
                self.message = f"{action_name(square)} is not a legal move."
        elif event.type == pygame.KEYDOWN:
            if event.key == pygame.K_ESCAPE:
                if self.dialog_shown:
                    self.press("close")
                else:
                    self.running = False
            elif event.key == pygame.K_s and getattr(event, "mod", 0) & pygame.KMOD_CTRL:
                self.press("save")
            elif event.key in KEYS:
                self.press(KEYS[event.key])

    def press(self, name: str) -> None:
        """Press the button ``name``."""
        actions = {
            "new": self.new_game,
            "again": self.new_game,
            "undo": self.undo,
            "swap": self.swap_colors,
            "ai": self.next_opponent,
            "mode": self.next_mode,
            "resign": self.resign,
            "save": self.save,
            "load": self.load,
            "stronger": lambda: self.change_strength(1),
            "weaker": lambda: self.change_strength(-1),
            "close": lambda: setattr(self, "dialog_closed", True),
        }
        actions[name]()

    # -- what is shown -------------------------------------------------------------------

    @property
    def dialog_shown(self) -> bool:
        """True while the end-of-game dialog is up."""
        return self.flow.over and not self.dialog_closed

    def result_lines(self) -> tuple[str, list[str]]:
        """The end dialog's title and lines: the winner, the difference, how it ended."""
        result = self.flow.result
        assert result is not None
        title = "Draw" if result.winner == "draw" else f"{result.winner.capitalize()} wins"
        diff = abs(result.black - result.white)
        lines = [f"by {diff} disc{'s' if diff != 1 else ''} ({result.black}-{result.white})"]
        if result.reason != "end":
            lines = [f"discs {result.black}-{result.white}", result.details.splitlines()[0]]
        return title, lines

    def status(self) -> str:
        """What is happening: whose turn and the clock, "thinking...", or the result."""
        state = self.state
        result = self.flow.result
        if result is not None:
            b, w = result.black, result.white
            who = "draw" if result.winner == "draw" else f"{result.winner} wins"
            how = "" if result.reason == "end" else f" ({result.reason})"
            return f"Game over: {who} {b}-{w}{how}"
        left = self.flow.time_left()
        clock = "" if left is None else f", {left:.0f} s left"
        if self.thinking:
            return f"AI thinking... {self.flow.elapsed():.1f} s{clock}"
        if self.is_human(state.player):
            if self.mode == "humans":
                return f"{PLAYER_NAMES[state.player].capitalize()} to move{clock}"
            return f"Your move ({PLAYER_NAMES[state.player]}){clock}"
        return "AI to move"

    def panel_lines(self) -> list[str]:
        """Each side's title and clock lines, black first (what the panel writes)."""
        snap = self.history[-1]
        b, w = snap.state.score()
        lines = []
        for player, discs in ((0, b), (1, w)):
            lines.append(f"{PLAYER_NAMES[player].capitalize()} ({self.seat_name(player)}): {discs}")
            lines.append(f"last {snap.last_time[player]:.2f} s   total {snap.total_time[player]:.2f} s")
        return lines

    def draw(self, surface: Any) -> None:
        """Draw the board, the panel and, at the end, the dialog onto ``surface``."""
        snap = self.history[-1]
        state = snap.state
        to_move = not state.is_terminal() and not self.flow.over
        draw_board(
            surface,
            state,
            last_move=snap.last_move,
            flipped=snap.flipped,
            hints=to_move and self.is_human(state.player),
            size=BOARD_SIZE,
        )
        lines = self.panel_lines()
        sides = (
            Side(lines[0], lines[1], to_move and state.player == 0),
            Side(lines[2], lines[3], to_move and state.player == 1),
        )
        record = " ".join("--" if m == "PASS" else m.lower() for m in snap.moves)
        name, strengths = self.opponents[self.opponent]
        labels = [
            ("new", "New game (N)"),
            ("undo", "Undo (U)"),
            ("mode", f"{MODES[self.mode]} (M)"),
            ("swap", "Swap colours (S)"),
            ("ai", f"AI: {name} (A)"),
            ("resign", "Resign (R)"),
            ("save", "Save (Ctrl+S)"),
            ("load", "Load (L)"),
        ]
        strength = strengths[self.strength][0] if len(strengths) > 1 else "fixed"
        self.buttons = draw_panel(surface, self.fonts, sides, self.status(), self.message, record, labels, strength)
        if self.dialog_shown:
            title, dialog_lines = self.result_lines()
            self.buttons = draw_dialog(surface, self.fonts, title, dialog_lines)

    # -- the window --------------------------------------------------------------------

    def run(self, max_frames: int | None = None, screenshot: str | Path | None = None) -> int:
        """Open the window and play until it is closed (or ``max_frames`` frames
        have passed); returns 0. ``screenshot``: save the last frame there (PNG)."""
        pygame.display.init()
        pygame.font.init()
        try:
            screen = pygame.display.set_mode(WINDOW_SIZE)
            pygame.display.set_caption("Reversi")
            clock = pygame.time.Clock()
            frames = 0
            while self.running and (max_frames is None or frames < max_frames):
                for event in pygame.event.get():
                    self.handle_event(event)
                self.update()
                self.draw(screen)
                pygame.display.flip()
                clock.tick(FPS)
                frames += 1
            if screenshot is not None:
                pygame.image.save(screen, str(screenshot))
        finally:
            pygame.display.quit()
        return 0
