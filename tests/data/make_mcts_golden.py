"""Regenerate mcts_golden.json: what fixed-seed searches of MCTS and PUCT find.

For each search setting (``SETTINGS``: MCTSAgent keyword arguments) and each
position (``positions()``: seeded random games, 4 to 44 plies in) the file keeps
the move chosen and the root's visits per legal move after a search of
``SIMULATIONS`` simulations with seed ``SEED``; for PUCT (``run_searches`` with a
deterministic evaluator) the move and the 65 visit counts. ``tests/search/test_mcts_golden.py``
searches again and compares: a change to the search's code that is meant to keep
its behaviour keeps every count.

    PYTHONPATH=. python tests/data/make_mcts_golden.py --out tests/data/mcts_golden.json
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import numpy as np

from agents.search.evaluation import BatchEvaluator
from agents.search.mcts import TEXTBOOK_UCT, MCTSAgent, handwritten_value
from agents.search.puct import PUCTConfig, PUCTTree, run_searches
from reversi_env import GameState

SIMULATIONS = 1500
SEED = 3
PUCT_SIMULATIONS = 200

SETTINGS: dict[str, dict[str, Any]] = {
    "default": {},
    "textbook": dict(TEXTBOOK_UCT),
    "ply0-playouts": {"ply": 0, "mix": 0.5, "informed_playouts": True},
    "hand-bias": {"heuristic": "hand", "fpu": False, "minimax": 0.0, "bias": 2.0, "c": 0.8},
    "no-solver": {"solver": False, "minimax": 0.25, "mix": 0.7},
    "root-parallel": {"threads": 2, "parallel": "root"},
}
"""MCTSAgent's keyword arguments (``"heuristic": "hand"`` stands for ``handwritten_value``)."""


def positions(count: int = 24) -> list[GameState]:
    """``count`` positions from seeded uniformly random games, from the opening to 16 empties."""
    found: list[GameState] = []
    for seed in range(count):
        rng = np.random.default_rng(1000 + seed)
        state = GameState.initial()
        for _ in range(4 + (seed * 40) // count):
            if state.is_terminal() or state.num_empty() <= 16:
                break
            state = state.apply(int(rng.choice(state.legal_actions())))
        if not state.is_terminal():
            found.append(state)
    return found


def agent(setting: dict[str, Any]) -> MCTSAgent:
    """A search of ``setting`` with the file's budget and seed, no exact endgame."""
    kwargs = dict(setting)
    if kwargs.get("heuristic") == "hand":
        kwargs["heuristic"] = handwritten_value
    return MCTSAgent(simulations=SIMULATIONS, seed=SEED, endgame_exact=0, reuse_tree=False, **kwargs)


class HashEvaluator:
    """Priors and values computed from the position alone (a deterministic stand-in for a network)."""

    def evaluate(self, mover: np.ndarray, opponent: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        keys = (mover.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15)) ^ opponent.astype(np.uint64)
        rows = np.array([np.random.default_rng(int(k)).random(66) for k in keys]).reshape(len(keys), 66)
        return rows[:, :65].astype(np.float32), (2 * rows[:, 65] - 1).astype(np.float32)


def mcts_rows() -> list[dict[str, Any]]:
    """One row a setting and position: the move chosen and the root's visits by legal move."""
    rows = []
    for name, setting in SETTINGS.items():
        for i, state in enumerate(positions()):
            result = agent(setting).search(state)
            visits = [int(v) for v in result.visits]
            rows.append({"setting": name, "position": i, "action": result.action, "visits": visits})
    return rows


def puct_rows(evaluator: BatchEvaluator | None = None) -> list[dict[str, Any]]:
    """One row a position: PUCT's move and its 65 visit counts (``HashEvaluator``, batches of 8, root noise)."""
    evaluator = HashEvaluator() if evaluator is None else evaluator
    config = PUCTConfig(simulations=PUCT_SIMULATIONS, batch_size=8, dirichlet_alpha=0.3)
    rng = np.random.default_rng(SEED)
    trees = [PUCTTree(*state.kernel_boards(), config, rng) for state in positions()]
    calls = run_searches(trees, evaluator)
    rows = []
    for i, tree in enumerate(trees):
        result = tree.result(calls)
        rows.append({"position": i, "action": result.action, "visits": [int(v) for v in result.visits]})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="the JSON file to write")
    args = parser.parse_args()
    data = {"mcts": mcts_rows(), "puct": puct_rows()}
    args.out.write_text(json.dumps(data, indent=None, separators=(",", ":")) + "\n")
    print(f"{len(data['mcts'])} MCTS rows, {len(data['puct'])} PUCT rows -> {args.out}")


if __name__ == "__main__":
    main()
