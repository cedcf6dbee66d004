"""A tournament and its schedule: who plays whom, with which colour, from which opening,
with which seed; what tells two players apart (``player_key``).
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from agents.arena.openings import Opening, random_openings
from agents.clocks import TimeControl
from agents.limits import MAX_SECONDS
from agents.play.specs import SpecError, canonical_spec

MODES = ("round-robin", "gauntlet")
"""How the agents are paired: every one against every other, or the first against the rest."""


@dataclass(frozen=True)
class ScheduledGame:
    """One game of a tournament: who plays black and white from which opening.

    Picklable (plain strings and ints), so it travels to process and Ray
    workers, which build the agents from the specs with the given seeds.
    """

    game_id: str
    black: str
    white: str
    opening: str
    seed: int

    def agent_seed(self, colour: str) -> int:
        """The seed for the agent playing ``colour`` ("black" or "white")."""
        return derive_seed(self.seed, colour)


MCTS_TIME = 1.0
"""An MCTS player's seconds a move in the arena when its spec gives no budget: ``mcts`` is ``mcts:time=1``."""


@functools.lru_cache(maxsize=4096)
def player_key(spec: str) -> str:
    """What tells two players apart: the spec's one spelling (``canonical_spec``: ``alphabeta:2,eval=hand``
    is ``alphabeta:2``, ``mcts:time=1`` is ``mcts``), or its text if it is no spec; the arena rates specs
    with one key as one player."""
    try:
        return canonical_spec(spec, default_time=MCTS_TIME)
    except SpecError:
        return spec


def derive_seed(*parts: object) -> int:
    """A 63-bit seed from any parts: the same on every machine and Python run."""
    digest = hashlib.sha256(":".join(str(p) for p in parts).encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


@dataclass
class Tournament:
    """What to play: the agents (player specs), the mode, the games per pairing,
    the openings, the seed and the match rules (``time_control``: ``time_limit``
    seconds a move and a game ``clock``). Its ``schedule()`` lists the games."""

    agents: list[str]
    mode: str = "round-robin"
    games: int = 20
    openings: list[str] = field(default_factory=list)
    seed: int = 0
    time_limit: float | None = 60.0
    max_illegal: int = 3
    clock: TimeControl | None = None
    """Each side's game clock (its increment and moves to go), or None; ``time_limit`` is the move's limit."""

    @property
    def time_control(self) -> TimeControl:
        """The games' time rule: ``time_limit`` seconds a move and the ``clock``."""
        return TimeControl.per_move(self.time_limit, self.clock)

    def __post_init__(self) -> None:
        if not isinstance(self.agents, (list, tuple)) or not all(isinstance(a, str) for a in self.agents):
            raise ValueError(f"agents must be a list of player specs, got {self.agents!r:.200}")
        self.agents = list(self.agents)
        tl = self.time_limit
        if tl is not None and (isinstance(tl, bool) or not isinstance(tl, (int, float)) or not 0 < tl <= MAX_SECONDS):
            raise ValueError(f"time_limit must be None or seconds > 0 and <= {MAX_SECONDS:g}, got {tl!r}")
        clock = self.clock
        if clock is not None and (
            not isinstance(clock, TimeControl)
            or clock != TimeControl.parse_clock(clock.clock_text() or "0")  # what the results file can hold
        ):
            raise ValueError(f"clock must be None or a game clock as --clock writes it, got {clock!r:.200}")
        for key in ("seed", "max_illegal"):
            value = getattr(self, key)
            if isinstance(value, bool) or not isinstance(value, int) or value < (0 if key == "seed" else 1):
                raise ValueError(f"{key} must be an int >= {0 if key == 'seed' else 1}, got {value!r}")
        if not isinstance(self.openings, (list, tuple)) or not all(isinstance(o, str) for o in self.openings):
            raise ValueError("openings must be a list of transcripts")
        if self.mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, got {self.mode!r}")
        if len(self.agents) < 2:
            raise ValueError(f"a tournament needs at least two agents, got {self.agents!r}")
        first: dict[str, str] = {}
        for i, a in enumerate(self.agents):
            other = first.setdefault(player_key(a), a)
            if other != a:  # said, not merged: the user learns the option they set is the default
                raise ValueError(
                    f"each agent may appear once: {a!r} is {other!r} again (both are the player {player_key(a)!r}; "
                    "an option at its default, or options in another order, change nothing)"
                )
            if a in self.agents[:i]:
                raise ValueError(f"each agent may appear once, repeated: {a}")
        if isinstance(self.games, bool) or not isinstance(self.games, int) or self.games < 2 or self.games % 2:
            raise ValueError(
                f"games per pairing must be a positive even number (each opening is played twice), got {self.games!r}"
            )
        if len(self.openings) < self.games // 2:
            needed = self.games // 2
            raise ValueError(f"{self.games} games per pairing need {needed} openings, got {len(self.openings)}")
        self.openings = [Opening.parse(o).name for o in self.openings]

    @classmethod
    def create(
        cls,
        agents: Sequence[str],
        *,
        mode: str = "round-robin",
        games: int = 20,
        opening_plies: int = 4,
        openings: Sequence[Opening] | None = None,
        seed: int = 0,
        time_limit: float | None = 60.0,
        max_illegal: int = 3,
        clock: TimeControl | None = None,
    ) -> Tournament:
        """A tournament with ``games // 2`` openings per pairing: the first ones of
        ``openings`` if given, else random ``opening_plies``-ply ones from ``seed``."""
        if isinstance(games, bool) or not isinstance(games, int) or games < 2 or games % 2:
            raise ValueError(
                f"games per pairing must be a positive even number (each opening is played twice), got {games!r}"
            )
        needed = games // 2
        if openings is None:
            chosen = random_openings(needed, opening_plies, seed)
        else:
            if len(openings) < needed:
                raise ValueError(f"{games} games per pairing need {needed} openings, the file has {len(openings)}")
            chosen = list(openings[:needed])
        return cls(list(agents), mode, games, [o.name for o in chosen], seed, time_limit, max_illegal, clock)

    def pairings(self) -> list[tuple[str, str]]:
        """The pairs that meet: all pairs, or the first agent against each other one."""
        if self.mode == "gauntlet":
            return [(self.agents[0], other) for other in self.agents[1:]]
        return [(a, b) for i, a in enumerate(self.agents) for b in self.agents[i + 1 :]]

    def schedule(self) -> list[ScheduledGame]:
        """Every game, pairing by pairing, each opening with both colour orders."""
        games = []
        for a, b in self.pairings():
            for opening in self.openings[: self.games // 2]:
                for black, white in ((a, b), (b, a)):
                    game_id = f"{black} vs {white} @ {opening}"
                    games.append(ScheduledGame(game_id, black, white, opening, derive_seed(self.seed, game_id)))
        return games

    def to_dict(self) -> dict[str, Any]:
        """The tournament as plain JSON data (the results file's first line); a clock as
        ``parse_clock`` reads it ("300+2"), and none left out."""
        data = asdict(self)
        del data["clock"]
        if self.clock is not None:
            data["clock"] = self.clock.clock_text()
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Tournament:
        """The inverse of ``to_dict``; ValueError for a malformed one."""
        if not isinstance(data, dict):
            raise ValueError(f"a tournament record is a JSON object, got {type(data).__name__}")
        fields = {k: data[k] for k in cls.__dataclass_fields__ if k in data}
        if "clock" in fields:
            try:
                fields["clock"] = TimeControl.parse_clock(str(fields["clock"]))
            except ValueError as e:
                raise ValueError(f"malformed tournament record: {e}") from e
        agents = fields.get("agents")
        if isinstance(agents, list) and all(isinstance(a, str) for a in agents):
            # Older versions let one player in twice under two spellings: it is kept once, under its first.
            fields["agents"] = list({player_key(a): a for a in reversed(agents)}.values())[::-1]
        try:
            return cls(**fields)
        except TypeError as e:
            raise ValueError(f"malformed tournament record: {e}") from e

    def runs_code(self) -> list[str]:
        """The agents whose specs start a program or import a module
        (``gtp:``, ``python:``, ``classic:``): never started from a file unasked."""
        from agents.play.specs import runs_code

        return [a for a in self.agents if runs_code(a)]
