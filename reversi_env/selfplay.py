"""Self-play for the single-agent env: the opponent is drawn from a pool of players.

A learner that only meets one fixed opponent learns to beat that opponent.
``OpponentPool`` holds past frozen copies of the learner (or any players) and
hands out opponents for ``ReversiGymEnv``; each of them draws a new member of
the pool at every episode reset, uniformly, from its own seeded RNG::

    pool = OpponentPool(max_size=10)
    pool.add(frozen_copy_of(model))          # e.g. agents.play.adapters.ModelAgent(deepcopy(model.policy))
    envs = [ReversiGymEnv(opponent=pool.opponent(seed=i), play_as="random") for i in range(8)]
    ...                                      # every N steps: pool.add(frozen_copy_of(model))

Members are callables ``observation -> action`` or objects with
``act(observation)`` (every ``agents.Agent``), as ``ReversiGymEnv`` takes.
The pool is shared by reference, so the envs must live in the process that
adds to it (SB3's ``DummyVecEnv``, not ``SubprocVecEnv``).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from typing import Any

import numpy as np

from reversi_env.observation import Observation


def _check_player(player: object) -> None:
    if not callable(player) and not callable(getattr(player, "act", None)):
        raise TypeError(f"a pool member must be a callable observation -> action or have act(), got {player!r}")


class OpponentPool:
    """Players to meet, the oldest dropped beyond ``max_size``."""

    def __init__(self, players: Iterable[Any] = (), *, max_size: int | None = None) -> None:
        """Start with ``players`` (any iterable, read once); ``max_size`` None keeps every one added."""
        if max_size is not None and (isinstance(max_size, bool) or not isinstance(max_size, int) or max_size < 1):
            raise ValueError(f"max_size must be None or a positive int, got {max_size!r}")
        players = list(players)  # a generator would be used up by the checks below
        for p in players:
            _check_player(p)
        self.max_size = max_size
        self._players: deque[Any] = deque(players, maxlen=max_size)
        self.added = len(self._players)

    def add(self, player: Any) -> None:
        """Add ``player`` (a frozen copy: the pool keeps the object, it does not copy it)."""
        _check_player(player)
        self._players.append(player)
        self.added += 1

    @property
    def players(self) -> list[Any]:
        """The members now, oldest first."""
        return list(self._players)

    def __len__(self) -> int:
        return len(self._players)

    def opponent(self, seed: int | None = None) -> PoolOpponent:
        """A new opponent for one env, drawing from this pool (``seed`` fixes its draws)."""
        return PoolOpponent(self, seed)


class PoolOpponent:
    """One env's opponent: a member of the pool, drawn anew at each ``reset()``."""

    def __init__(self, pool: OpponentPool, seed: int | None = None) -> None:
        """Draw from ``pool``; ``seed`` fixes the sequence of draws."""
        if not isinstance(pool, OpponentPool):
            raise TypeError(f"pool must be an OpponentPool, got {type(pool).__name__}")
        self.pool = pool
        self.name = "pool"
        self._rng = np.random.default_rng(seed)
        self.current: Any = None

    def reset(self) -> None:
        """Draw this game's player (and reset it, if it has ``reset``)."""
        players = self.pool.players
        if not players:
            raise ValueError("the opponent pool is empty: add a player before the first reset")
        self.current = players[int(self._rng.integers(len(players)))]
        reset = getattr(self.current, "reset", None)
        if callable(reset):
            reset()

    def act(self, observation: Observation) -> Any:
        """The current player's action (one is drawn first if none is yet)."""
        if self.current is None:
            self.reset()
        act = getattr(self.current, "act", None)
        return act(observation) if callable(act) else self.current(observation)
