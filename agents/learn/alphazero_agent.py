"""The player of a trained policy-value network: PUCT search guided by it, or
its raw policy (``simulations=0``: the most probable legal move, no search).

``AlphaZeroAgent()`` plays the network shipped with the package
(``agents/learn/data/alphazero.pt``); the ``alphazero`` player spec builds one
(``alphazero:sims=200``, ``alphazero:sims=0``, ``alphazero:time=1``,
``alphazero:net=runs/az/iter_0010.pt``).
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import torch

from agents.base import state_to_move
from agents.learn.network import SHIPPED_NETWORK, NetworkEvaluator, check_device, load_network
from agents.search.puct import DEFAULT_SIMULATIONS, PUCTConfig, PUCTTree, run_searches
from agents.search.scored import check_seconds, check_seed
from agents.search.timecontrol import StopSignal
from reversi_env.notation import PASS
from reversi_env.observation import Observation

_SIMS_PER_SECOND_CAP = 50_000
"""Tree sizing of a timed search: more simulations a second than the search reaches."""

_LOADED: dict[tuple[str, int, str], NetworkEvaluator] = {}


def network_evaluator(path: str | Path | None = None, device: str = "cpu") -> NetworkEvaluator:
    """The evaluator of the network at ``path`` (the shipped one by default),
    loaded once per process and file version."""
    check_device(device)
    file = Path(path).expanduser().resolve() if path is not None else SHIPPED_NETWORK
    if not file.is_file():
        raise ValueError(f"no such network file: {str(file)!r}")
    key = (str(file), file.stat().st_mtime_ns, device)
    if key not in _LOADED:
        net, _ = load_network(file, device)
        _LOADED[key] = NetworkEvaluator(net, device)
    return _LOADED[key]


PLAY_BATCH = 4
"""Leaves a move's search gathers per network call. Fewer leaves a call keep
the search closer to one-at-a-time PUCT (virtual losses distort a small
budget): at 200 simulations against alphabeta:3 (40 games a seed), batches of
16 scored 0.55 and 0.46, of 8 0.75, of 4 0.81 and 0.85 (docs/training.md)."""


class AlphaZeroAgent:
    """Plays by PUCT search over a policy-value network (``simulations`` a move,
    or ``time_limit`` seconds), or by its raw policy when ``simulations == 0``."""

    def __init__(
        self,
        net: str | Path | None = None,
        *,
        simulations: int = DEFAULT_SIMULATIONS,
        time_limit: float | None = None,
        batch_size: int = PLAY_BATCH,
        gumbel: bool = False,
        seed: int | None = None,
        device: str = "cpu",
    ) -> None:
        """Validate the settings (ValueError naming the bad one) and load the network."""
        if isinstance(simulations, bool) or not isinstance(simulations, (int, np.integer)) or simulations < 0:
            raise ValueError(f"simulations must be an int >= 0 (0: the raw policy), got {simulations!r}")
        check_seconds("time_limit", time_limit)
        if isinstance(batch_size, bool) or not isinstance(batch_size, (int, np.integer)) or batch_size < 1:
            raise ValueError(f"batch_size must be an int >= 1, got {batch_size!r}")
        check_seed(seed)
        self.evaluator = network_evaluator(net, device)
        self.simulations = int(simulations)
        self.time_limit = time_limit
        self.batch_size = batch_size
        self.gumbel = gumbel
        self.rng = np.random.default_rng(seed)
        label = f"time={time_limit}" if time_limit is not None else f"sims={simulations}"
        self.name = f"alphazero:{label}"
        self._stop = StopSignal()

    def stop(self) -> None:
        """End the search running on another thread after its current batch: it plays the best move so far."""
        self._stop.stop()

    def act(self, observation: Observation) -> int:
        """The chosen action for the player to move."""
        self._stop.begin()
        state = state_to_move(observation)
        legal = state.legal_actions()
        if legal == [PASS] or len(legal) == 1:
            return legal[0]
        mover, opponent = state.kernel_boards()
        if self.simulations == 0 and self.time_limit is None:
            with torch.inference_mode():
                priors, _ = self.evaluator.evaluate(np.array([mover]), np.array([opponent]))
            return int(legal[int(np.argmax(priors[0][legal]))])
        deadline = None
        budget = self.simulations
        if self.time_limit is not None:
            deadline = time.monotonic() + self.time_limit
            budget = max(1, int(self.time_limit * _SIMS_PER_SECOND_CAP))
        config = PUCTConfig(simulations=budget, batch_size=self.batch_size, gumbel=self.gumbel)
        tree = PUCTTree(mover, opponent, config, self.rng)
        calls = run_searches([tree], self.evaluator, deadline, self._stop)
        return tree.result(calls).action
