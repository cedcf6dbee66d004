"""``EvaluateCallback``: ``agents.evaluate`` during a Stable-Baselines3 run, logged to SB3's own logger.

Every ``every`` training steps the model plays its masked deterministic policy
(``agents.adapt(model)``: ``predict(obs, action_masks=mask, deterministic=True)``)
against fixed opponents, and each opponent's score goes to the model's logger as
``eval/score_vs_<opponent>`` (with ``eval/score_low_vs_``, ``eval/score_high_vs_``
for its 95 % interval and ``eval/discs_vs_`` for the mean disc difference), so
TensorBoard (``tensorboard_log=``), CSV or stdout show it beside SB3's own curves.

Needs the ``sb3`` extra (``pip install 'reversi-env[sb3]'``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from stable_baselines3.common.callbacks import BaseCallback

from agents.arena.evaluate import EvaluationReport, evaluate
from agents.play.adapters import adapt
from agents.play.specs import parse_spec


def log_key(opponent: str) -> str:
    """An opponent's name as a logger key's tail: ``alphabeta:2`` is ``alphabeta_2`` (TensorBoard
    tags take letters, digits, ``_``, ``-``, ``.`` and ``/``)."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", opponent).strip("_") or "opponent"


class EvaluateCallback(BaseCallback):
    """Evaluates the model being trained every ``every`` steps and logs the scores.

    Args:
        opponents: player specs (``"random"``, ``"greedy"``, ``"alphabeta:2"``) or agents.
        every: training steps (``model.num_timesteps``) between evaluations.
        games: games against each opponent (even: each opening with both colours).
        seed: the seed of every evaluation (the same openings each time, so scores compare).
        verbose: 1 prints each report.

    Raises:
        ValueError: ``every`` below 1, or an opponent spec that cannot be read (one line).

    The games are played in the training process (the model itself is called); ``reports``
    keeps ``(timesteps, EvaluationReport)`` of each evaluation.
    """

    def __init__(
        self, opponents: Sequence[object], *, every: int, games: int = 10, seed: int = 0, verbose: int = 0
    ) -> None:
        super().__init__(verbose)
        if isinstance(every, bool) or not isinstance(every, int) or every < 1:
            raise ValueError(f"every must be an int >= 1, got {every!r}")
        for spec in opponents:
            if isinstance(spec, str):
                parse_spec(spec)  # a typo fails here, in one line, not at the first evaluation
        self.opponents = list(opponents)
        self.every = every
        self.games = games
        self.seed = seed
        self.reports: list[tuple[int, EvaluationReport]] = []
        self._next = every

    def _on_step(self) -> bool:
        if self.num_timesteps >= self._next:
            self._next = (self.num_timesteps // self.every + 1) * self.every
            self.evaluate_now()
        return True

    def evaluate_now(self) -> EvaluationReport:
        """Evaluate the model now, log the scores at the current step and return the report."""
        report = evaluate(adapt(self.model), self.opponents, games=self.games, seed=self.seed)
        for row in report.results:
            key = log_key(row.name)
            self.logger.record(f"eval/score_vs_{key}", row.score)
            self.logger.record(f"eval/score_low_vs_{key}", row.score_low)
            self.logger.record(f"eval/score_high_vs_{key}", row.score_high)
            self.logger.record(f"eval/discs_vs_{key}", row.mean_disc_difference)
        self.logger.dump(self.num_timesteps)
        self.reports.append((self.num_timesteps, report))
        if self.verbose:
            print(f"{self.num_timesteps} timesteps\n{report}")
        return report
