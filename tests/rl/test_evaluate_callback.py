"""``EvaluateCallback``: a tiny real MaskablePPO run that logs its evaluations to SB3's logger."""

from __future__ import annotations

import csv
from pathlib import Path

import gymnasium
import pytest
from sb3_contrib import MaskablePPO
from stable_baselines3.common.logger import configure

import reversi_env
from agents.arena.sb3_callback import EvaluateCallback, log_key


def test_a_training_run_logs_each_opponents_score(tmp_path: Path) -> None:
    env = gymnasium.make(reversi_env.GYM_ENV_ID, play_as="random")
    model = MaskablePPO("MultiInputPolicy", env, n_steps=64, batch_size=64, n_epochs=1, seed=0)
    model.set_logger(configure(str(tmp_path), ["csv"]))
    callback = EvaluateCallback(["random", "greedy"], every=128, games=2, seed=0)
    model.learn(total_timesteps=256, callback=callback)
    assert [steps for steps, _ in callback.reports] == [128, 256]
    with open(tmp_path / "progress.csv", newline="") as f:
        rows = [row for row in csv.DictReader(f) if row.get("eval/score_vs_random")]
    assert len(rows) == 2
    for row, (_, report) in zip(rows, callback.reports, strict=True):
        for name in ("random", "greedy"):
            assert float(row[f"eval/score_vs_{name}"]) == pytest.approx(report[name].score)
            assert float(row[f"eval/score_low_vs_{name}"]) <= float(row[f"eval/score_vs_{name}"])
            assert float(row[f"eval/discs_vs_{name}"]) == pytest.approx(report[name].mean_disc_difference)


def test_a_bad_opponent_fails_at_construction_in_one_line() -> None:
    with pytest.raises(ValueError, match="nosuchagent") as error:
        EvaluateCallback(["random", "nosuchagent"], every=100)
    assert len(str(error.value).splitlines()) == 1
    with pytest.raises(ValueError, match="every must be"):
        EvaluateCallback(["random"], every=0)


def test_opponent_names_become_logger_keys() -> None:
    assert log_key("alphabeta:2") == "alphabeta_2"
    assert log_key("mcts:sims=50,seed=1") == "mcts_sims_50_seed_1"
