"""OpponentPool: past players drawn per episode as the single-agent env's opponent."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

import reversi_env
from reversi_env.observation import Observation
from reversi_env.selfplay import OpponentPool, PoolOpponent


class FirstLegal:
    """Plays the lowest legal action and counts its games and moves."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.resets = 0
        self.moves = 0

    def reset(self) -> None:
        self.resets += 1

    def act(self, observation: Observation) -> int:
        self.moves += 1
        return int(np.flatnonzero(observation["action_mask"])[0])


def last_legal(observation: Observation) -> int:
    """A plain callable member: the highest legal action."""
    return int(np.flatnonzero(observation["action_mask"])[-1])


def test_each_reset_draws_a_member_that_then_plays_the_whole_game() -> None:
    a, b = FirstLegal("a"), FirstLegal("b")
    opponent = OpponentPool([a, b]).opponent(seed=3)
    env = reversi_env.ReversiGymEnv(opponent=opponent, play_as="white")
    drawn = []
    for episode in range(40):
        env.reset(seed=episode)
        current = opponent.current
        drawn.append(current.name)
        moves = {m.name: m.moves for m in (a, b)}
        for _ in range(3):
            env.step(int(np.flatnonzero(env.action_masks())[0]))
        other = b if current is a else a
        assert current.moves > moves[current.name]  # the drawn member answers...
        assert other.moves == moves[other.name]  # ...and only it
    counts = Counter(drawn)
    assert set(counts) == {"a", "b"} and min(counts.values()) >= 10  # uniform enough over 40 draws
    assert a.resets == counts["a"] and b.resets == counts["b"]  # the drawn member is reset


def test_draws_are_reproducible_from_the_seed() -> None:
    pool = OpponentPool([FirstLegal(str(i)) for i in range(5)])

    def draws(seed: int) -> list[str]:
        opponent = pool.opponent(seed=seed)
        out = []
        for _ in range(20):
            opponent.reset()
            out.append(opponent.current.name)
        return out

    assert draws(7) == draws(7)
    assert draws(7) != draws(8)


def test_added_members_are_drawn_and_the_oldest_dropped() -> None:
    pool = OpponentPool(max_size=2)
    members = [FirstLegal(str(i)) for i in range(3)]
    for m in members:
        pool.add(m)
    assert pool.players == members[1:] and len(pool) == 2 and pool.added == 3
    opponent = pool.opponent(seed=0)
    seen = set()
    for _ in range(30):
        opponent.reset()
        seen.add(opponent.current.name)
    assert seen == {"1", "2"}


def test_a_plain_callable_member_plays() -> None:
    env = reversi_env.ReversiGymEnv(opponent=OpponentPool([last_legal]).opponent(seed=0), play_as="white")
    env.reset(seed=0)
    # Black's legal moves at the start are D3, C4, F5, E6; the highest is E6 (44).
    assert env.state.black >> 44 & 1


def test_act_before_any_reset_draws_first() -> None:
    opponent = OpponentPool([FirstLegal("a")]).opponent()
    obs = reversi_env.GameState.initial().legal_mask()
    assert opponent.act({"observation": np.zeros((8, 8, 2), np.int8), "action_mask": obs}) == 19  # D3


def test_players_may_come_from_a_generator() -> None:
    pool = OpponentPool(FirstLegal(name) for name in "abc")
    assert [p.name for p in pool.players] == ["a", "b", "c"] and pool.added == 3


def test_bad_input() -> None:
    with pytest.raises(ValueError, match="max_size"):
        OpponentPool(max_size=0)
    with pytest.raises(ValueError, match="max_size"):
        OpponentPool(max_size=True)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="pool member"):
        OpponentPool([42])
    with pytest.raises(TypeError, match="pool member"):
        OpponentPool().add("greedy")
    with pytest.raises(TypeError, match="OpponentPool"):
        PoolOpponent([FirstLegal("a")])  # type: ignore[arg-type]
    empty = OpponentPool().opponent()
    env = reversi_env.ReversiGymEnv(opponent=empty, play_as="white")
    with pytest.raises(ValueError, match="empty"):
        env.reset(seed=0)
