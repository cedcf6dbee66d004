"""A person at the terminal as an Agent.

Typed commands: a square ("D3" or "d3"), "pass" (the match runner plays
forced passes by itself, so this only explains), "hint" (an MCTS suggestion),
"help", "board" and "Q" to quit. Bad input gets a message and a new prompt.
"Q" and the end of input raise ``QuitGame``, so the game ends scored by discs;
Ctrl-C is left to propagate (``play_game`` turns it into ``MatchInterrupted``).
"""

from __future__ import annotations

from collections.abc import Callable

from agents.base import QuitGame
from reversi_env.errors import InvalidMoveError
from reversi_env.notation import PASS, action_name, parse_action
from reversi_env.observation import Observation, state_from_observation
from reversi_env.state import PLAYER_NAMES, PLAYER_SYMBOLS, parse_player

HELP = """Commands:
  D3, d3   play on that square (column letter A-H, row digit 1-8)
  hint     ask MCTS for a suggestion
  board    show the board again
  pass     only when you have no move (it is then played for you)
  help     this text
  Q        quit: the game ends and is scored by the discs on the board"""

HINT_SIMULATIONS = 3000
"""Simulations behind a hint: a second or less, and reproducible."""


def mcts_hint(observation: Observation) -> int:
    """The move MCTS suggests for the player to move (a fixed simulation count and seed)."""
    from agents.search.mcts import MCTSAgent

    return MCTSAgent(simulations=HINT_SIMULATIONS, seed=0).act(observation)


class HumanPlayer:
    """Asks a person for moves: reads lines with ``read(prompt)`` (default
    ``input``) and writes messages with ``write`` (default ``print``)."""

    def __init__(
        self,
        color: object,
        *,
        read: Callable[[str], str] = input,
        write: Callable[[str], object] = print,
        hint: Callable[[Observation], int] = mcts_hint,
        name: str = "human",
    ) -> None:
        """``color`` is the colour this person plays; ``hint`` suggests moves."""
        self.color = parse_player(color)
        self.read = read
        self.write = write
        self.hint = hint
        self.name = name

    def act(self, observation: Observation) -> int:
        """Prompt until the person types a legal move, or raise ``QuitGame``."""
        state = state_from_observation(observation, self.color)
        legal = state.legal_actions()
        names = " ".join(action_name(a) for a in legal)
        me = f"{PLAYER_NAMES[self.color]} ({PLAYER_SYMBOLS[self.color]})"
        while True:
            try:
                line = self.read(f"{me} move [{names} | hint | help | Q]: ")
            except EOFError:
                self.write("")
                raise QuitGame("end of input") from None
            command = line.strip().lower()
            if not command:
                continue
            if command in ("q", "quit", "exit"):
                raise QuitGame("typed Q")
            if command in ("help", "h", "?"):
                self.write(HELP)
                continue
            if command == "board":
                self.write(str(state))
                continue
            if command == "hint":
                try:
                    self.write(f"hint: {action_name(self.hint(observation))}")
                except Exception as e:  # a broken hint must not cost the person the game
                    self.write(f"no hint available: {type(e).__name__}: {e}")
                continue
            try:
                action = parse_action(command)
            except InvalidMoveError:
                self.write(f"{line.strip()!r} is not a move. Type a square like D3, or 'help'.")
                continue
            if action in legal:
                return action
            if action == PASS:
                self.write(f"You cannot pass: you have legal moves ({names}).")
            else:
                self.write(f"{action_name(action)} is not legal here. Legal moves: {names}")
