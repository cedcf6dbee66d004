"""Rating math against hand-computed cases, the table, the JSON summary and the plot."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from agents.arena.ratings import (
    ELO_PER_NAT,
    Outcome,
    Ratings,
    compute_ratings,
    wilson_interval,
)


def rated(r: Ratings, name: str) -> tuple[float, float, float]:
    """(elo, low, high) of a rated agent."""
    a = r.by_name(name)
    assert a.elo is not None and a.elo_low is not None and a.elo_high is not None
    return a.elo, a.elo_low, a.elo_high


def games(a: str, b: str, wins: int, draws: int, losses: int) -> list[Outcome]:
    """``wins``/``draws``/``losses`` of ``a`` against ``b``, colours alternating."""
    out = []
    for pts, n in ((1.0, wins), (0.5, draws), (0.0, losses)):
        for k in range(n):
            if k % 2:
                out.append(Outcome(b, a, 1.0 - pts, 0))
            else:
                out.append(Outcome(a, b, pts, 0))
    return out


@pytest.mark.parametrize(("wins", "draws", "losses"), [(7, 0, 3), (30, 10, 10), (5, 0, 5), (1, 2, 9)])
def test_two_players_elo_difference_is_the_logit_of_the_score(wins: int, draws: int, losses: int) -> None:
    r = compute_ratings(games("a", "b", wins, draws, losses), anchor="b")
    n = wins + draws + losses
    s = (wins + 0.5 * draws) / n
    assert r.by_name("a").elo == pytest.approx(400 * math.log10(s / (1 - s)), abs=1e-6)
    assert r.by_name("b").elo == 0.0
    assert not r.regularized
    # Fisher information of one logit parameter: n p (1 - p) per nat^2.
    se = ELO_PER_NAT / math.sqrt(n * s * (1 - s))
    elo, low, high = rated(r, "a")
    assert high - elo == pytest.approx(1.959964 * se, rel=1e-5)
    assert elo - low == pytest.approx(1.959964 * se, rel=1e-5)


def test_anchor_shifts_all_ratings_and_keeps_differences() -> None:
    data = games("a", "b", 6, 2, 2) + games("b", "c", 5, 1, 4) + games("a", "c", 7, 0, 3)
    r1 = compute_ratings(data, anchor="c")
    r2 = compute_ratings(data, anchor="a")
    assert r2.by_name("a").elo == 0.0
    for x in "abc":
        assert rated(r1, x)[0] - rated(r1, "a")[0] == pytest.approx(rated(r2, x)[0], abs=1e-6)


def test_three_players_in_a_cycle_are_rated_equal() -> None:
    data = games("a", "b", 8, 0, 2) + games("b", "c", 8, 0, 2) + games("c", "a", 8, 0, 2)
    r = compute_ratings(data, anchor="a")
    for x in "abc":
        assert r.by_name(x).elo == pytest.approx(0.0, abs=1e-6)
        assert r.by_name(x).score == pytest.approx(0.5)


def test_three_players_transitive_matches_hand_solution() -> None:
    # a-b 3:1 and b-c 3:1 only (a never meets c): each gap is 400 log10 3.
    data = games("a", "b", 3, 0, 1) + games("b", "c", 3, 0, 1)
    r = compute_ratings(data, anchor="c")
    step = 400 * math.log10(3)
    assert r.by_name("b").elo == pytest.approx(step, abs=1e-6)
    assert r.by_name("a").elo == pytest.approx(2 * step, abs=1e-6)
    assert [a.name for a in r.agents] == ["a", "b", "c"]


def test_intervals_shrink_with_more_games() -> None:
    small = compute_ratings(games("a", "b", 6, 2, 2), anchor="b")
    big = compute_ratings(games("a", "b", 60, 20, 20), anchor="b")
    elo_small, low_small, high_small = rated(small, "a")
    elo_big, low_big, high_big = rated(big, "a")
    assert elo_small == pytest.approx(elo_big)
    assert high_big - low_big == pytest.approx((high_small - low_small) / math.sqrt(10), rel=1e-6)
    s_lo, s_hi = small.by_name("a").score_interval
    b_lo, b_hi = big.by_name("a").score_interval
    assert b_hi - b_lo < s_hi - s_lo


def test_perfect_score_is_regularized_with_one_virtual_draw() -> None:
    r = compute_ratings(games("a", "b", 10, 0, 0), anchor="b")
    assert r.regularized
    # ten wins plus one virtual draw: 10.5 / 11
    s = 10.5 / 11
    assert r.by_name("a").elo == pytest.approx(400 * math.log10(s / (1 - s)), abs=1e-6)
    assert math.isfinite(rated(r, "a")[2])
    assert "virtual draw" in r.table()


def test_wilson_interval_hand_values() -> None:
    lo, hi = wilson_interval(0, 10)
    assert lo == 0.0
    assert hi == pytest.approx(0.2775, abs=1e-4)  # the textbook value for 0/10
    lo, hi = wilson_interval(5, 10)
    assert lo == pytest.approx(0.2366, abs=1e-4)
    assert hi == pytest.approx(0.7634, abs=1e-4)


def test_counts_disc_difference_and_colours() -> None:
    data = [Outcome("a", "b", 1.0, 10), Outcome("b", "a", 0.5, 0), Outcome("b", "a", 1.0, 4)]
    r = compute_ratings(data, anchor="a")
    a = r.by_name("a")
    assert (a.games, a.wins, a.draws, a.losses) == (3, 1, 1, 1)
    assert a.mean_disc_difference == pytest.approx((10 + 0 - 4) / 3)
    assert r.by_name("b").mean_disc_difference == pytest.approx(-2.0)
    assert r.pairwise["a"]["b"] == [3, 1.5]


def test_unconnected_agents_are_unrated() -> None:
    data = games("a", "b", 3, 0, 1) + games("c", "d", 3, 0, 1)
    r = compute_ratings(data, anchor="a")
    assert r.by_name("c").elo is None and r.by_name("d").elo is None
    assert "unrated" in r.table()


def test_default_anchor_is_random_when_present() -> None:
    r = compute_ratings(games("greedy", "random", 3, 0, 1))
    assert r.anchor == "random"
    assert r.by_name("random").elo == 0.0


def test_bad_input_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="anchor 'nobody'"):
        compute_ratings(games("a", "b", 1, 0, 1), anchor="nobody")
    with pytest.raises(ValueError, match="black_score"):
        Outcome("a", "b", 0.7)
    with pytest.raises(ValueError, match="itself"):
        Outcome("a", "a", 1.0)


def test_table_json_and_plot(tmp_path: Path) -> None:
    data = games("a", "b", 6, 2, 2) + games("b", "c", 5, 1, 4)
    r = compute_ratings(data, anchor="c")
    text = r.table()
    assert text.splitlines()[0].split()[:3] == ["#", "agent", "Elo"]
    assert text.index(" a ") < text.index(" b ") < text.index(" c ")
    summary = json.loads(r.to_json())
    assert summary["anchor"] == "c"
    assert [row["name"] for row in summary["agents"]] == ["a", "b", "c"]
    assert summary["agents"][0]["wins"] == 6
    assert summary["pairwise"]["a"]["b"] == [10, 7.0]  # games counted in whole numbers (it said 10.0)
    assert isinstance(summary["pairwise"]["a"]["b"][0], int)
    out = tmp_path / "ratings.png"
    r.plot(out)
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
