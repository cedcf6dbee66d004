"""``agents.evaluate``: a policy against fixed opponents on the arena's machinery, with real agents."""

from __future__ import annotations

import time

import numpy as np
import pytest

from agents import EvaluationReport, evaluate
from agents.clocks import TimeControl
from agents.search.ladder import GreedyAgent
from reversi_env.notation import PASS
from reversi_env.observation import Observation


def first_legal(observation: Observation) -> int:
    """The lowest legal action: a deterministic policy any process can import."""
    return int(np.flatnonzero(observation["action_mask"])[0])


def test_counts_add_up_and_the_interval_holds_the_score() -> None:
    report = evaluate(first_legal, ["random", "greedy"], games=6, seed=0)
    assert isinstance(report, EvaluationReport) and report.policy == "first_legal"
    assert [r.name for r in report.results] == ["random", "greedy"]
    for row in report.results:
        assert row.games == 6 and row.wins + row.draws + row.losses == 6
        assert row.score == pytest.approx((row.wins + 0.5 * row.draws) / 6)
        assert 0.0 <= row.score_low <= row.score <= row.score_high <= 1.0
        assert -64 <= row.mean_disc_difference <= 64
        assert row.forfeits == {}
    text = str(report).splitlines()
    assert text[1].split() == ["opponent", "games", "W", "D", "L", "score", "95%", "CI", "discs"]
    assert text[3].startswith("random ") and text[4].startswith("greedy ")
    assert len({len(line) for line in text[1:5]}) == 1  # aligned: every column but the first right-justified


class FirstDiscs:
    """First-legal, noting how many discs it sees at its first move of each game."""

    name = "first-discs"

    def __init__(self) -> None:
        self.first: list[int | None] = []

    def reset(self) -> None:
        self.first.append(None)

    def act(self, observation: Observation) -> int:
        if self.first[-1] is None:
            self.first[-1] = int(np.asarray(observation["observation"]).sum())
        return first_legal(observation)


def test_colours_alternate_over_the_openings() -> None:
    # From the start (no opening plies), black first sees 4 discs, white 5.
    policy = FirstDiscs()
    report = evaluate(policy, ["random", "greedy"], games=2, seed=2, opening_plies=0)
    assert [r.games for r in report.results] == [2, 2]
    assert policy.first.count(4) == 2 and policy.first.count(5) == 2


def test_the_same_seed_gives_the_same_report() -> None:
    one = evaluate(first_legal, ["random", "greedy"], games=4, seed=5)
    assert evaluate(first_legal, ["random", "greedy"], games=4, seed=5) == one
    assert str(evaluate(first_legal, ["random", "greedy"], games=4, seed=5)) == str(one)


def test_a_bad_opponent_spec_is_one_line_before_any_game() -> None:
    calls: list[int] = []

    def policy(observation: Observation) -> int:
        calls.append(1)
        return first_legal(observation)

    with pytest.raises(ValueError, match="nosuchagent") as error:
        evaluate(policy, ["random", "nosuchagent"], games=2)
    assert len(str(error.value).splitlines()) == 1 and calls == []


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"games": 3}, "positive even number"),
        ({"games": 2, "backend": "slurm"}, "backend must be"),
        ({"games": 2, "jobs": 0}, "jobs must be"),
    ],
)
def test_bad_arguments_are_one_line(kwargs: dict[str, object], words: str) -> None:
    with pytest.raises(ValueError, match=words) as error:
        evaluate(first_legal, ["random"], **kwargs)  # type: ignore[arg-type]
    assert len(str(error.value).splitlines()) == 1


def test_no_opponent_is_refused() -> None:
    with pytest.raises(ValueError, match="non-empty list"):
        evaluate(first_legal, [], games=2)
    with pytest.raises(ValueError, match="non-empty list"):
        evaluate(first_legal, "random", games=2)


def test_a_policy_that_plays_illegally_loses_those_games_and_the_report_says_so() -> None:
    report = evaluate(lambda observation: PASS, ["random"], games=4, seed=1)  # PASS while it can place
    row = report["random"]
    assert (row.wins, row.draws, row.losses) == (0, 0, 4) and row.score == 0.0
    assert row.forfeits == {"illegal": 4}
    assert "<lambda> lost 4 of 4 games against random by illegal moves" in str(report)


def test_agents_and_specs_as_players_and_a_repeated_name_kept_apart() -> None:
    report = evaluate("greedy", [GreedyAgent(seed=3), "greedy:seed=1"], games=2, seed=0)
    assert report.policy == "greedy"
    assert [r.name for r in report.results] == ["greedy #2", "greedy:seed=1"]
    assert all(r.games == 2 for r in report.results)
    with pytest.raises(KeyError, match="the opponents are greedy #2, greedy:seed=1"):
        report["random"]


def test_worker_processes_play_the_same_games_as_this_process() -> None:
    here = evaluate(first_legal, ["greedy"], games=4, seed=7)
    assert evaluate(first_legal, ["greedy"], games=4, seed=7, jobs=2) == here


def test_a_policy_that_does_not_pickle_is_refused_for_workers_in_one_line() -> None:
    with pytest.raises(ValueError, match=r"does not pickle .*jobs=1 and time_limit=None") as error:
        evaluate(lambda observation: first_legal(observation), ["random"], games=2, jobs=2)
    assert len(str(error.value).splitlines()) == 1


def slow_first_legal(observation: Observation) -> int:
    """``first_legal`` after a fifth of a second: any process can import it."""
    time.sleep(0.2)
    return first_legal(observation)


def test_a_game_clock_travels_to_the_games_and_running_out_loses() -> None:
    clock = TimeControl.parse_clock("0.5+0.01")
    report = evaluate(slow_first_legal, ["random"], games=2, seed=3, clock=clock)
    assert report["random"].forfeits == {"timeout": 2}
    assert "slow_first_legal lost 2 of 2 games against random by time" in str(report)
    untimed = evaluate(first_legal, ["random"], games=2, seed=3, clock=TimeControl.parse_clock("30"))
    assert untimed["random"].forfeits == {}
