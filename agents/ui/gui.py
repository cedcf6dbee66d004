"""``reversi gui``: play against an AI in a pygame window.

The board is drawn by ``reversi_env.render`` (legal-move hints, the last move
and the discs it flipped); a side panel shows the disc counts, whose turn it
is, "thinking..." while the AI searches, each side's last and total thinking
time, passes, the result, and buttons for a new game, undo, swapping colours
and choosing the AI opponent and its strength (keys: N, U, S, A, +/-).

The AI searches in a daemon worker thread, so the window keeps responding.
Each search gets a freshly built agent (closed afterwards, so an external
engine's process ends) and a generation number; a new game, undo or swap
bumps the generation, so an answer that arrives late is dropped and an
abandoned search touches nothing.

``GuiApp`` holds the game and has ``handle_event(event)``, ``update()`` and
``draw(surface)``; ``run()`` is only the window loop around them, so the app
can be driven without a display (tests use ``SDL_VIDEODRIVER=dummy``).
"""

from __future__ import annotations

import os
import queue
import threading
import time
from dataclasses import dataclass, field
from typing import Any

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
import pygame

from agents.play.specs import make_agent, parse_spec
from reversi_env.errors import InvalidMoveError
from reversi_env.notation import PASS, action_name, to_action
from reversi_env.observation import observe
from reversi_env.render import (
    BLACK_DISC,
    DEFAULT_SIZE,
    LABEL_COLOR,
    MARGIN_COLOR,
    WHITE_DISC,
    draw_board,
    square_at,
)
from reversi_env.state import BLACK, PLAYER_NAMES, GameState, Player, parse_player

BOARD_SIZE = DEFAULT_SIZE
PANEL_WIDTH = 300
WINDOW_SIZE = (BOARD_SIZE + PANEL_WIDTH, BOARD_SIZE)
FPS = 30

PANEL_COLOR = MARGIN_COLOR
TEXT_COLOR = LABEL_COLOR
DIM_COLOR = (150, 175, 155)
ACCENT_COLOR = (255, 200, 80)
BUTTON_COLOR = (45, 95, 65)
BUTTON_EDGE = (120, 170, 135)

OPPONENTS: list[tuple[str, list[tuple[str, str]]]] = [
    ("MCTS", [("0.5 s", "mcts:time=0.5"), ("1 s", "mcts:time=1"), ("3 s", "mcts:time=3"), ("10 s", "mcts:time=10")]),
    ("Alpha-beta", [("depth 2", "alphabeta:2"), ("depth 4", "alphabeta:4"), ("depth 6", "alphabeta:6")]),
    ("Positional", [("-", "positional")]),
    ("Greedy", [("-", "greedy")]),
    ("Random", [("-", "random")]),
]
"""The AI opponents the panel offers, each with its strengths (label, spec)."""


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


@dataclass
class _Answer:
    generation: int
    action: object = None
    seconds: float = 0.0
    error: str = ""


class GuiApp:
    """The game behind the window: a human against an AI, with undo."""

    def __init__(
        self, ai: str = "mcts:time=1", human: object = BLACK, seed: int | None = None, start: GameState | None = None
    ) -> None:
        """``ai`` is a player spec (see ``agents.play.specs``), ``human`` the
        person's colour, ``seed`` the AI's seed, ``start`` the position a new
        game starts from (default: the standard start)."""
        if start is not None and not isinstance(start, GameState):
            raise TypeError(f"start must be a GameState or None, got {type(start).__name__}")
        self.start = GameState.initial() if start is None else start
        if parse_spec(ai).kind == "human":
            raise ValueError("the window's opponent must be a program, not 'human' (you are the human)")
        self.opponents = list(OPPONENTS)
        known = [spec for _, strengths in self.opponents for _, spec in strengths]
        if ai not in known:
            self.opponents.insert(0, ("Custom", [(ai, ai)]))
        self.opponent, self.strength = next(
            (i, j) for i, (_, s) in enumerate(self.opponents) for j, (_, spec) in enumerate(s) if spec == ai
        )
        self.human: Player = parse_player(human)
        self.seed = seed
        self.buttons: dict[str, Any] = {}
        self.running = True
        self._answers: queue.SimpleQueue[_Answer] = queue.SimpleQueue()
        self._fonts: dict[int, Any] = {}
        self.new_game()

    # -- the game ------------------------------------------------------------------

    @property
    def ai_spec(self) -> str:
        """The spec of the AI currently chosen."""
        return self.opponents[self.opponent][1][self.strength][1]

    @property
    def state(self) -> GameState:
        """The current position."""
        return self.history[-1].state

    @property
    def ai_color(self) -> Player:
        """The colour the AI plays."""
        return 1 - self.human

    @property
    def thinking(self) -> bool:
        """True while the AI is searching."""
        return self._search_started is not None

    def new_game(self) -> None:
        """Start again from the start position (the colours stay)."""
        state, passed = _forced_pass(self.start)
        self.history: list[Snapshot] = [Snapshot(state, moves=("PASS",) if passed else ())]
        self.message = "New game. Click a square with a dot to move." + passed
        self._restart_turn()

    def undo(self) -> None:
        """Take back moves up to the previous position where the human was to move."""
        if len(self.history) <= 1:
            return
        self.history.pop()
        while len(self.history) > 1 and self.state.player != self.human:
            self.history.pop()
        self.message = "Move taken back."
        self._restart_turn()

    def swap_colors(self) -> None:
        """The human takes the other colour; the AI moves if it is now its turn."""
        self.human = 1 - self.human
        self.message = f"You now play {PLAYER_NAMES[self.human]}."
        self._restart_turn()

    def next_opponent(self) -> None:
        """Choose the next AI opponent (at its middle strength)."""
        self.opponent = (self.opponent + 1) % len(self.opponents)
        self.strength = (len(self.opponents[self.opponent][1]) - 1) // 2
        self._restart_turn()

    def change_strength(self, step: int) -> None:
        """A stronger (+1) or weaker (-1) setting of the same opponent."""
        strengths = self.opponents[self.opponent][1]
        self.strength = max(0, min(len(strengths) - 1, self.strength + step))
        self._restart_turn()

    def click(self, square: int | None) -> bool:
        """The human clicked ``square``: play it if it is their legal move.
        Returns True if a move was made; anything else changes nothing."""
        state = self.state
        if square is None or state.is_terminal() or state.player != self.human or not state.is_legal(square):
            return False
        seconds = time.perf_counter() - self._turn_started
        self._play(square, seconds)
        return True

    def _restart_turn(self) -> None:
        """Forget any search under way and start timing the side to move."""
        self._generation = getattr(self, "_generation", 0) + 1
        self._search_started: float | None = None
        self._turn_started = time.perf_counter()
        self.ai_failed = ""

    def _play(self, action: int, seconds: float) -> None:
        prev = self.history[-1]
        state = prev.state
        mover = state.player
        flipped = tuple(state.flipped(action))
        last_time, total_time = list(prev.last_time), list(prev.total_time)
        last_time[mover] = seconds
        total_time[mover] += seconds
        nxt, passed = _forced_pass(state.apply(action))
        moves = (*prev.moves, action_name(action), *(("PASS",) if passed else ()))
        self.history.append(Snapshot(nxt, action, flipped, last_time, total_time, moves))
        self.message = f"{PLAYER_NAMES[mover].capitalize()} played {action_name(action)}." + passed
        self._restart_turn()

    def update(self) -> None:
        """Start the AI's search when it is its turn; take its answer when it comes."""
        while True:
            try:
                answer = self._answers.get_nowait()
            except queue.Empty:
                break
            if answer.generation == self._generation:
                self._take(answer)
        state = self.state
        if state.is_terminal() or state.player != self.ai_color or self.thinking or self.ai_failed:
            return
        self._search_started = time.perf_counter()
        generation, spec, seed = self._generation, self.ai_spec, self.seed
        observation = observe(state, self.ai_color)
        color = self.ai_color
        answers = self._answers

        def search() -> None:
            t0 = time.perf_counter()
            agent = None
            try:
                agent = make_agent(spec, color, seed=seed)
                action = agent.act(observation)
            except Exception as e:
                answers.put(_Answer(generation, error=f"{type(e).__name__}: {e}", seconds=time.perf_counter() - t0))
            else:
                answers.put(_Answer(generation, action, time.perf_counter() - t0))
            finally:
                close = getattr(agent, "close", None)  # an external engine ends its process
                if callable(close):
                    close()

        threading.Thread(target=search, name="reversi-gui-ai", daemon=True).start()

    def _take(self, answer: _Answer) -> None:
        self._search_started = None
        if answer.error:
            self.ai_failed = f"AI error: {answer.error}"
            return
        try:
            action = to_action(answer.action)
        except InvalidMoveError:
            action = None
        if action is None or not self.state.is_legal(action):
            self.ai_failed = f"AI sent an illegal move: {answer.action!r}"
            return
        self._play(action, answer.seconds)

    # -- events ----------------------------------------------------------------------

    def handle_event(self, event: Any) -> None:
        """React to one pygame event: clicks on the board or the buttons, keys, quit."""
        if event.type == pygame.QUIT:
            self.running = False
        elif event.type == pygame.MOUSEBUTTONDOWN and event.button == 1:
            for name, rect in self.buttons.items():
                if rect.collidepoint(event.pos):
                    self._press(name)
                    return
            square = square_at(event.pos, size=BOARD_SIZE)
            state = self.state
            if not self.click(square) and square is not None and state.player == self.human and not state.is_terminal():
                self.message = f"{action_name(square)} is not a legal move."
        elif event.type == pygame.KEYDOWN:
            keys = {
                pygame.K_n: "new",
                pygame.K_u: "undo",
                pygame.K_s: "swap",
                pygame.K_a: "ai",
                pygame.K_PLUS: "stronger",
                pygame.K_EQUALS: "stronger",
                pygame.K_KP_PLUS: "stronger",
                pygame.K_MINUS: "weaker",
                pygame.K_KP_MINUS: "weaker",
            }
            if event.key == pygame.K_ESCAPE:
                self.running = False
            elif event.key in keys:
                self._press(keys[event.key])

    def _press(self, name: str) -> None:
        actions = {
            "new": self.new_game,
            "undo": self.undo,
            "swap": self.swap_colors,
            "ai": self.next_opponent,
            "stronger": lambda: self.change_strength(1),
            "weaker": lambda: self.change_strength(-1),
        }
        actions[name]()

    # -- drawing ---------------------------------------------------------------------

    def status(self) -> str:
        """What is happening: whose turn, "thinking...", or the result."""
        state = self.state
        if state.is_terminal():
            b, w = state.score()
            result = "draw" if b == w else ("black wins" if b > w else "white wins")
            return f"Game over: {result} {b}-{w}"
        if self.ai_failed:
            return self.ai_failed
        if self.thinking:
            assert self._search_started is not None
            return f"AI thinking... {time.perf_counter() - self._search_started:.1f} s"
        if state.player == self.human:
            return f"Your move ({PLAYER_NAMES[self.human]})"
        return "AI to move"

    def panel_lines(self) -> list[str]:
        """The panel's text, top to bottom (what ``draw`` writes)."""
        snap = self.history[-1]
        b, w = snap.state.score()
        lines = []
        for player, discs in ((0, b), (1, w)):
            who = "you" if player == self.human else "AI"
            lines.append(f"{PLAYER_NAMES[player].capitalize()} ({who}): {discs}")
            lines.append(f"  last {snap.last_time[player]:.2f} s   total {snap.total_time[player]:.2f} s")
        return lines

    def draw(self, surface: Any) -> None:
        """Draw the board and the panel onto ``surface`` (at least WINDOW_SIZE)."""
        snap = self.history[-1]
        human_turn = snap.state.player == self.human and not snap.state.is_terminal()
        draw_board(
            surface,
            snap.state,
            last_move=snap.last_move,
            flipped=snap.flipped,
            hints=human_turn,
            size=BOARD_SIZE,
        )
        x0 = BOARD_SIZE
        surface.fill(PANEL_COLOR, pygame.Rect(x0, 0, PANEL_WIDTH, BOARD_SIZE))
        pad = 16
        y = pad
        self._text(surface, "Reversi", (x0 + pad, y), 34, ACCENT_COLOR)
        y += 40
        lines = self.panel_lines()
        for player in (0, 1):
            disc = BLACK_DISC if player == 0 else WHITE_DISC
            pygame.draw.circle(surface, disc, (x0 + pad + 10, y + 10), 10)
            pygame.draw.circle(surface, (0, 0, 0), (x0 + pad + 10, y + 10), 10, 1)
            turn = snap.state.player == player and not snap.state.is_terminal()
            self._text(surface, lines[2 * player], (x0 + pad + 28, y), 26, ACCENT_COLOR if turn else TEXT_COLOR)
            self._text(surface, lines[2 * player + 1], (x0 + pad + 28, y + 24), 20, DIM_COLOR)
            y += 56
        y += 4
        self._text(surface, self.status(), (x0 + pad, y), 24, ACCENT_COLOR)
        y += 28
        for line in _wrap(self.message, 36)[:3]:
            self._text(surface, line, (x0 + pad, y), 20, TEXT_COLOR)
            y += 20
        if snap.moves:
            y += 8
            self._text(surface, f"Moves ({len(snap.moves)}):", (x0 + pad, y), 20, DIM_COLOR)
            y += 20
            record = " ".join("--" if m == "PASS" else m.lower() for m in snap.moves)
            for line in _wrap(record, 36)[-4:]:
                self._text(surface, line, (x0 + pad, y), 20, DIM_COLOR)
                y += 20
        name, strengths = self.opponents[self.opponent]
        labels = {
            "new": "New game (N)",
            "undo": "Undo (U)",
            "swap": "Swap colours (S)",
            "ai": f"AI: {name}",
            "weaker": "-",
            "stronger": "+",
        }
        bw, bh, gap = (PANEL_WIDTH - 2 * pad - 8) // 2, 32, 8
        by = BOARD_SIZE - pad - 3 * bh - 2 * gap
        self.buttons = {
            "new": pygame.Rect(x0 + pad, by, bw, bh),
            "undo": pygame.Rect(x0 + pad + bw + 8, by, bw, bh),
            "swap": pygame.Rect(x0 + pad, by + bh + gap, bw, bh),
            "ai": pygame.Rect(x0 + pad + bw + 8, by + bh + gap, bw, bh),
            "weaker": pygame.Rect(x0 + pad, by + 2 * (bh + gap), bh, bh),
            "stronger": pygame.Rect(x0 + PANEL_WIDTH - pad - bh, by + 2 * (bh + gap), bh, bh),
        }
        for key, rect in self.buttons.items():
            pygame.draw.rect(surface, BUTTON_COLOR, rect, border_radius=6)
            pygame.draw.rect(surface, BUTTON_EDGE, rect, 1, border_radius=6)
            glyph = self._font(20).render(labels[key], True, TEXT_COLOR)
            surface.blit(glyph, glyph.get_rect(center=rect.center))
        strength = strengths[self.strength][0] if len(strengths) > 1 else "fixed"
        glyph = self._font(20).render(f"Strength: {strength}", True, TEXT_COLOR)
        surface.blit(glyph, glyph.get_rect(center=(x0 + PANEL_WIDTH // 2, by + 2 * (bh + gap) + bh // 2)))

    def _font(self, px: int) -> Any:
        if not pygame.font.get_init():
            pygame.font.init()
            self._fonts.clear()
        if px not in self._fonts:
            self._fonts[px] = pygame.font.Font(None, px)
        return self._fonts[px]

    def _text(self, surface: Any, text: str, pos: tuple[int, int], px: int, color: tuple[int, int, int]) -> None:
        surface.blit(self._font(px).render(text, True, color), pos)

    # -- the window --------------------------------------------------------------------

    def run(self, max_frames: int | None = None) -> int:
        """Open the window and play until it is closed (or ``max_frames`` frames
        have passed); returns 0."""
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
        finally:
            pygame.display.quit()
        return 0


def _forced_pass(state: GameState) -> tuple[GameState, str]:
    """Play a forced pass (the rules allow nothing else) and say so."""
    if state.is_terminal() or state.legal_actions() != [PASS]:
        return state, ""
    return state.apply(PASS), f" {PLAYER_NAMES[state.player].capitalize()} has no legal move and passes."


def _wrap(text: str, width: int) -> list[str]:
    lines: list[str] = []
    for word in text.split():
        if lines and len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return lines
