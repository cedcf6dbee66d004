"""Who plays each colour in the window: a person, two people or the AI, and which AI.

``Seats`` is the panel's "who plays" state without pygame: the mode (one of
``MODES``), the person's colour against the AI, and the AI chosen among
``opponents()`` with its strength.
"""

from __future__ import annotations

from agents.play.specs import parse_spec, player_kinds
from reversi_env.state import Player, parse_player

MODES = {"ai": "you vs AI", "humans": "two people", "demo": "AI vs AI"}
"""Who plays: a person against the AI, two people at one window, or the AI against itself."""


def opponents() -> list[tuple[str, list[tuple[str, str]]]]:
    """The AI opponents the panel offers, each with its strengths (label, spec): the registered
    kinds that have strengths (``PlayerKind.strengths``), the strongest first, as the registry
    lists the simplest first."""
    return [(kind.title, list(kind.strengths)) for kind in reversed(player_kinds()) if kind.strengths]


class Seats:
    """The mode, the person's colour and the AI opponent with its strength."""

    def __init__(self, ai: str, human: object, mode: str) -> None:
        """``ai`` is a player spec (one not in ``opponents()`` is offered as "Custom"),
        ``human`` the person's colour against the AI, ``mode`` one of ``MODES``."""
        if mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}, got {mode!r}")
        if parse_spec(ai).kind == "human":
            raise ValueError("the window's opponent must be a program, not 'human' (use mode='humans' for two people)")
        self.opponents = opponents()
        if ai not in [spec for _, strengths in self.opponents for _, spec in strengths]:
            self.opponents.insert(0, ("Custom", [(ai, ai)]))
        self.opponent, self.strength = next(
            (i, j) for i, (_, s) in enumerate(self.opponents) for j, (_, spec) in enumerate(s) if spec == ai
        )
        self.mode = mode
        self.human: Player = parse_player(human)

    @property
    def ai_spec(self) -> str:
        """The spec of the AI currently chosen."""
        return self.opponents[self.opponent][1][self.strength][1]

    def ai_labels(self) -> tuple[str, str]:
        """The chosen AI's name and its strength's label ("fixed" if it has one only)."""
        name, strengths = self.opponents[self.opponent]
        return name, strengths[self.strength][0] if len(strengths) > 1 else "fixed"

    def is_human(self, color: Player) -> bool:
        """True if a person plays ``color``."""
        return self.mode == "humans" or (self.mode == "ai" and color == self.human)

    def seat_name(self, color: Player) -> str:
        """Who plays ``color``, as the panel says it."""
        if self.mode == "ai":
            return "you" if color == self.human else "AI"
        return "human" if self.mode == "humans" else "AI"

    def names(self) -> list[str]:
        """Each colour's player for the game's record: "human" or the AI's spec, black first."""
        return ["human" if self.is_human(c) else self.ai_spec for c in (0, 1)]

    def next_mode(self) -> None:
        """You vs AI, two people, AI vs AI, in turn."""
        modes = list(MODES)
        self.mode = modes[(modes.index(self.mode) + 1) % len(modes)]

    def next_opponent(self) -> None:
        """Choose the next AI opponent (at its middle strength)."""
        self.opponent = (self.opponent + 1) % len(self.opponents)
        self.strength = (len(self.opponents[self.opponent][1]) - 1) // 2

    def change_strength(self, step: int) -> None:
        """A stronger (+1) or weaker (-1) setting of the same opponent."""
        strengths = self.opponents[self.opponent][1]
        self.strength = max(0, min(len(strengths) - 1, self.strength + step))
