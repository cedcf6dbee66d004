"""MCTSAgent: solver and exact endgame against brute force, reproducibility,
strength against the ladder, the evaluator seam (PUCT), tree reuse, budgets
and bad input. Seeds and simulation counts only; no clocks but one generous
bound on a timed search."""

from __future__ import annotations

import math
import os
import re
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pytest
from conftest import REPO_ROOT, interrupt_example, random_game, search_cpu_clock
from numba import njit
from test_alphabeta import _positions_by_outcome
from test_endgame import brute_force, endgame_positions

from agents import Agent, play_game
from agents.play.specs import SpecError, make_agent
from agents.search.endgame import Solver
from agents.search.ladder import GreedyAgent, RandomAgent
from agents.search.mcts import (
    MAX_ENDGAME_EXACT,
    MAX_NODES,
    MAX_SIMULATIONS,
    NODE_DTYPE,
    TEXTBOOK_UCT,
    MCTSAgent,
    SearchResult,
    handwritten_value,
)
from agents.search.mcts_tree import LOSS, UNKNOWN, WIN, Tree
from reversi_env import PASS, GameState, InvalidPositionError
from reversi_env.bitboard import U1, popcount
from reversi_env.observation import observe


def obs(state: GameState) -> dict[str, np.ndarray]:
    return observe(state, state.player)


def outcome(score: int) -> str:
    return "win" if score > 0 else ("loss" if score < 0 else "draw")


def match(agent: Agent, rival: Agent, games: int) -> list[int]:
    """Disc margins of ``agent`` over ``rival``, colours alternating."""
    margins = []
    for game in range(games):
        black, white = (agent, rival) if game % 2 == 0 else (rival, agent)
        result = play_game(black, white, time_limit=None)
        assert result.reason == "end", result.details
        margins.append(result.disc_difference if game % 2 == 0 else -result.disc_difference)
    return margins


def test_node_fits_in_64_bytes() -> None:
    assert NODE_DTYPE.itemsize <= 64


@pytest.mark.parametrize("empties", [3, 5, 6, 7])
def test_solver_proves_small_endgames(empties: int) -> None:
    for state in endgame_positions(empties, 5):
        if len(state.legal_actions()) < 2:
            continue
        agent = MCTSAgent(simulations=20_000, seed=1, endgame_exact=0)
        result = agent.search(state)
        best = brute_force(state)
        # The chosen move keeps the best outcome; wins and losses get proven
        # (proving a draw needs every alternative refuted, which may take longer).
        assert outcome(-brute_force(state.apply(result.action))) == outcome(best), str(state)
        if best != 0:
            assert result.proven == outcome(best), str(state)
            assert result.simulations < 20_000  # a proven root stops the search
        else:
            assert result.proven in ("draw", None)


def test_without_solver_nothing_is_proven() -> None:
    state = endgame_positions(5, 1)[0]
    result = MCTSAgent(simulations=3000, seed=1, endgame_exact=0, solver=False).search(state)
    assert result.proven is None
    assert result.simulations == 3000


@pytest.mark.parametrize("empties", [7, 9])
def test_exact_endgame_maximises_the_disc_difference(empties: int) -> None:
    for state in endgame_positions(empties, 3):
        if len(state.legal_actions()) < 2:
            continue
        result = MCTSAgent(simulations=100, seed=0, endgame_exact=empties).search(state)
        best = brute_force(state)
        assert result.disc_difference == best
        assert -brute_force(state.apply(result.action)) == best
        assert result.proven == outcome(best)


def test_a_timed_move_solves_a_hard_16_empty_endgame_exactly() -> None:
    # A position of a game of mcts:time=1 against Zebra (mcts to move): the root solve takes 2.0 M
    # nodes, more than a node budget at an assumed 3 M a second would allow in 1 s (the solver does
    # tens of millions a second), so the solve's budget is time: a node budget searched instead and
    # gave 10 discs away.
    state = GameState.from_string("...XXXX..OXXXXX.OXOXXXOOXXXOXXOOXXOXXOOO.XOOOOO..XOO.XO..XO..X.. X")
    result = MCTSAgent(time_limit=1.0, seed=0).search(state)
    solution = Solver().solve(state)
    assert solution is not None and state.num_empty() == 16
    assert result.simulations == 0 and result.action in solution.best_actions
    assert result.disc_difference == solution.score


def test_an_exact_solve_too_big_for_the_move_leaves_the_search_its_time() -> None:
    # 24 empties of a random game: the root solve runs past 30 s here; in a 0.2 s move it stops by the
    # clock at half the time and MCTS searches the rest (an unlimited solve would blow the bound).
    state = next(s for s in endgame_positions(24, 3) if len(s.legal_actions()) > 1)
    clock = search_cpu_clock()
    start = clock()
    result = MCTSAgent(time_limit=0.2, seed=0, endgame_exact=24, endgame_proof=0).search(state)
    assert clock() - start < 1.0
    assert result.simulations > 0 and result.disc_difference is None


def test_endgame_proof_given_the_time_ends_with_the_solver_result() -> None:
    # A won, a drawn and a lost position: the proof finishes (the exact score, or a draw) and plays a best move.
    for score, (state, solution) in _positions_by_outcome(12).items():
        agent = MCTSAgent(time_limit=30.0, seed=0, endgame_exact=0, endgame_proof=12)
        result = agent.search(state)
        assert result.simulations == 0 and result.action in solution.best_actions
        assert result.proven == outcome(score) and result.disc_difference == solution.score


def test_endgame_proof_under_a_clock_claims_only_true_outcomes() -> None:
    # Clocks from too short to plenty: every claimed win or draw is one (the move played keeps it); a
    # proof cut short leaves the tree search the rest of the move; plenty of time proves every position.
    solver = Solver()
    states = [s for s in endgame_positions(16, 4) if len(s.legal_actions()) > 1]
    for state in states:
        claims = []
        for seconds in (0.01, 0.05, 0.2, 20.0):
            result = MCTSAgent(time_limit=seconds, seed=0, endgame_exact=0, endgame_proof=16).search(state)
            if result.proven is None:
                assert result.simulations > 0
                continue
            after = solver.solve(state.apply(result.action))
            assert after is not None and outcome(-after.score) == result.proven, (str(state), seconds)
            claims.append(seconds)
        assert 20.0 in claims


def test_endgame_proof_only_in_a_timed_search_and_on_request() -> None:
    state = next(s for s in endgame_positions(18, 8) if len(s.legal_actions()) > 1)
    assert MCTSAgent(simulations=300, seed=0, endgame_exact=0, endgame_proof=18).search(state).simulations == 300
    timed = MCTSAgent(time_limit=0.2, seed=0, endgame_exact=0, endgame_proof=0).search(state)
    assert timed.simulations > 0 and timed.disc_difference is None


def test_single_move_and_forced_pass_return_at_once() -> None:
    forced_pass = GameState.from_string("OX" + "." * 62 + " X")
    single = GameState.from_string(".OX" + "." * 61 + " X")
    for state, expected in ((forced_pass, PASS), (single, 0)):
        result = MCTSAgent(simulations=10_000, seed=0).search(state)
        assert result.action == expected
        assert result.simulations == 0


def test_same_seed_same_search() -> None:
    state = random_game(2, plies=12)[-1]
    a = MCTSAgent(simulations=3000, seed=7).search(state)
    b = MCTSAgent(simulations=3000, seed=7).search(obs(state))
    assert a.action == b.action
    assert a.principal_variation == b.principal_variation
    np.testing.assert_array_equal(a.visits, b.visits)
    np.testing.assert_array_equal(a.values, b.values)
    # The default search has no random part; with playouts in the leaf values the seed matters.
    c, d = (MCTSAgent(simulations=3000, seed=seed, mix=0.5).search(state) for seed in (7, 8))
    assert not np.array_equal(c.visits, d.visits)


def test_search_result_is_consistent() -> None:
    state = random_game(4, plies=20)[-1]
    result = MCTSAgent(simulations=2000, seed=3).search(state)
    assert isinstance(result, SearchResult)
    assert result.actions == tuple(state.legal_actions())
    assert result.visits.sum() == result.simulations  # the root is expanded before the first one
    assert result.action == result.actions[int(np.argmax(result.visits))]
    assert result.principal_variation[0] == result.action
    assert np.all(np.abs(result.values) <= 1)
    line = state
    for a in result.principal_variation:
        line = line.apply(a)  # the principal variation is a legal line


def test_strength_against_random() -> None:
    margins = match(MCTSAgent(simulations=2000, seed=11), RandomAgent(seed=12), games=20)
    assert sum(m > 0 for m in margins) >= 19


def test_textbook_uct_beats_random() -> None:
    # No Othello knowledge at all: uniform playouts, no bias, playout values only.
    agent = MCTSAgent(simulations=1000, seed=31, **TEXTBOOK_UCT)  # type: ignore[arg-type]
    margins = match(agent, RandomAgent(seed=32), games=6)
    assert sum(m > 0 for m in margins) >= 5


def test_strength_against_greedy() -> None:
    margins = match(MCTSAgent(simulations=5000, seed=21), GreedyAgent(seed=22), games=10)
    assert sum(m > 0 for m in margins) >= 6


def test_tree_reuse_keeps_the_played_subtree() -> None:
    agent = MCTSAgent(simulations=3000, seed=5)
    s0 = GameState.initial()
    r0 = agent.search(s0)
    assert r0.reused == 0
    s1 = s0.apply(r0.action)
    r1 = agent.search(s1)
    # The new root is the old child: its visits, and its children's, carry over.
    assert r1.reused == r0.visits[r0.actions.index(r0.action)]
    assert r1.visits.sum() == r1.reused - 1 + r1.simulations
    s3 = s1.apply(r1.action)
    s3 = s3.apply(s3.legal_actions()[0])
    s3_child = s3.legal_actions()[0]
    r3 = agent.search(s3)  # two plies below the last root
    assert r3.visits.sum() == r3.reused - 1 + r3.simulations
    assert s3_child in r3.actions
    fresh = MCTSAgent(simulations=3000, seed=5, reuse_tree=False)
    fresh.search(s0)
    assert fresh.search(s1).reused == 0
    agent.reset()
    assert agent.search(s1).reused == 0


def test_memory_is_bounded_over_a_game() -> None:
    agent = MCTSAgent(simulations=3000, seed=2, max_nodes=2000)
    state = GameState.initial()
    while not state.is_terminal():
        result = agent.search(state)
        if result.disc_difference is None:  # a tree search, not the exact endgame solver
            assert result.nodes <= 2000
        state = state.apply(result.action)


@pytest.mark.parametrize("threads", [1, 2])
def test_a_timed_search_sizes_its_pool_for_the_speed_it_searched_at(threads: int) -> None:
    # Room for 16 nodes a simulation (ply=1) at the speed of the search before: a fixed guess of the speed
    # was outrun by a fast machine, whose pool then filled before the time was up.
    state = random_game(3, plies=44)[-1]  # a late position: fast simulations
    agent = MCTSAgent(time_limit=0.2, seed=0, endgame_exact=0, endgame_proof=0, reuse_tree=False, threads=threads)
    first = agent.search(state)
    agent.search(state)  # a new tree, sized by the first search's speed
    speed = first.simulations / first.seconds  # all threads; the seconds include the setup, so a little low
    pool = len(agent._tree.nodes)
    assert pool >= min(agent.max_nodes, 16 * speed * 0.2 * 0.95), (pool, speed)


def test_time_limit_stops_the_search() -> None:
    agent = MCTSAgent(time_limit=0.3, seed=0, endgame_exact=0)
    state = random_game(6, plies=10)[-1]
    clock = search_cpu_clock()
    t, cpu = time.perf_counter(), clock()
    result = agent.search(state)
    assert clock() - cpu < 0.3 + 1.0  # generous: the clock is checked between batches
    assert result.simulations > 0
    assert result.seconds <= time.perf_counter() - t


def test_timed_search_stops_once_proven() -> None:
    state = next(s for s in endgame_positions(4, 6) if len(s.legal_actions()) > 1)
    t = time.perf_counter()
    result = MCTSAgent(time_limit=20.0, seed=0, endgame_exact=0, endgame_proof=0).search(state)
    assert result.proven is not None
    assert time.perf_counter() - t < 10.0  # far less than the 20 s allowed


class SquareWeightEvaluator:
    """A small numpy evaluator: value from a linear disc count, prior from
    fixed square preferences; counts its calls."""

    def __init__(self, prior: np.ndarray | None) -> None:
        self.prior = prior
        self.calls = 0

    def evaluate(self, state: GameState) -> tuple[float, np.ndarray | None]:
        self.calls += 1
        assert not state.is_terminal()
        planes = state.planes().astype(np.float64)
        value = float(np.tanh(0.05 * (planes[..., 0].sum() - planes[..., 1].sum())))
        return value, self.prior


def test_evaluator_priors_switch_to_puct() -> None:
    start = GameState.initial()
    favourite = 26  # C4
    prior = np.full(65, 0.01)
    prior[favourite] = 1.0
    with_prior = SquareWeightEvaluator(prior)
    result = MCTSAgent(simulations=300, seed=0, evaluator=with_prior).search(start)
    # PUCT follows the prior: the favourite gets most of the visits.
    assert result.action == favourite
    assert result.visits[result.actions.index(favourite)] > 0.8 * result.visits.sum()
    assert with_prior.calls == 301  # the root, then one new leaf per simulation
    # Without priors it is UCT: the four symmetric openings share the visits.
    plain = SquareWeightEvaluator(None)
    result = MCTSAgent(simulations=300, seed=0, evaluator=plain).search(start)
    assert result.visits.max() < 0.5 * result.visits.sum()


def test_evaluator_plays_a_game() -> None:
    prior = np.ones(65)
    agent = MCTSAgent(simulations=50, seed=0, evaluator=SquareWeightEvaluator(prior), endgame_exact=6)
    margins = match(agent, RandomAgent(seed=1), games=1)
    assert len(margins) == 1


class BadEvaluator:
    def __init__(self, value: object, prior: object) -> None:
        self.value, self.prior = value, prior

    def evaluate(self, state: GameState) -> tuple[object, object]:
        return self.value, self.prior


@pytest.mark.parametrize(
    ("value", "prior", "match_text"),
    [
        (2.0, None, "value"),
        (float("nan"), None, "value"),
        (0.0, np.ones(64), "prior"),
        (0.0, -np.ones(65), "prior"),
    ],
)
def test_bad_evaluator_output(value: object, prior: object, match_text: str) -> None:
    agent = MCTSAgent(simulations=10, evaluator=BadEvaluator(value, prior))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=match_text):
        agent.search(GameState.initial())


def test_bad_settings() -> None:
    bad = [
        {},
        {"time_limit": 1.0, "simulations": 100},
        {"simulations": 0},
        {"simulations": -5},
        {"simulations": 10.5},
        {"simulations": True},
        {"simulations": MAX_SIMULATIONS + 1},
        {"simulations": 10**20},
        {"time_limit": 0},
        {"time_limit": -1.0},
        {"time_limit": float("inf")},
        {"time_limit": "1"},
        {"simulations": 10, "c": 0},
        {"simulations": 10, "c": -1.0},
        {"simulations": 10, "seed": -1},
        {"simulations": 10, "seed": 1.5},
        {"simulations": 10, "endgame_exact": -1},
        {"simulations": 10, "endgame_proof": -1},
        {"simulations": 10, "endgame_proof": 1.5},
        {"simulations": 10, "max_nodes": 10},
        {"simulations": 10, "mix": 1.5},
        {"simulations": 10, "mix": -0.1},
        {"simulations": 10, "bias": -1.0},
        {"simulations": 10, "bias": "1"},
    ]
    for kwargs in bad:
        with pytest.raises(ValueError):
            MCTSAgent(**kwargs)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="evaluate"):
        MCTSAgent(simulations=10, evaluator=object())  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="at most 1,000,000,000"):
        MCTSAgent(simulations=10**20)


@pytest.mark.parametrize(
    ("setting", "most", "option"),
    [("endgame_exact", MAX_ENDGAME_EXACT, "exact"), ("endgame_proof", 60, "proof"), ("max_nodes", MAX_NODES, "nodes")],
)
def test_settings_past_what_a_search_can_carry_are_refused_by_name(setting: str, most: int, option: str) -> None:
    # endgame_exact=60 under simulations waited for a whole-game solve; 2**40 nodes overflow the tree's int32 links.
    for value in (most + 1, 2**40):
        with pytest.raises(ValueError, match=f"{setting} must be .*{most:,}|{setting} must be an int from 0 to {most}"):
            MCTSAgent(simulations=10, **{setting: value})  # type: ignore[arg-type]
        with pytest.raises(SpecError, match=f"{option} must be at most {most}, got '{value}'$") as spec_error:
            make_agent(f"mcts:time=1,{option}={value}")
        assert "\n" not in str(spec_error.value)
    assert getattr(MCTSAgent(simulations=10, **{setting: most}), setting) == most  # type: ignore[arg-type]


C4 = 26


@njit
def c4_owner_value(p: np.uint64, o: np.uint64, weights: np.ndarray) -> float:
    """+1 for the player to move if he owns C4, -1 if the opponent does, else 0."""
    bit = U1 << np.uint64(C4)
    return 1.0 if p & bit else (-1.0 if o & bit else 0.0)


@njit
def disc_share(p: np.uint64, o: np.uint64, weights: np.ndarray) -> float:
    """A crude static value: the mover's share of the discs, squashed by ``weights[0]``."""
    return math.tanh((np.float64(popcount(p)) - np.float64(popcount(o))) / weights[0])


def test_a_plugged_heuristic_values_the_leaves() -> None:
    # Leaves valued by the heuristic alone (mix=1, no playouts, no bias, no search at the leaf).
    kwargs = {"simulations": 400, "seed": 0, "bias": 0.0, "mix": 1.0, "ply": 0, "minimax": 0.0}
    guided = MCTSAgent(heuristic=c4_owner_value, **kwargs).search(GameState.initial())  # type: ignore[arg-type]
    assert guided.action == C4
    assert guided.visits[guided.actions.index(C4)] > 0.5 * guided.visits.sum()
    plain = MCTSAgent(heuristic=handwritten_value, **kwargs).search(GameState.initial())  # type: ignore[arg-type]
    assert plain.visits.max() < 0.5 * plain.visits.sum()  # the four openings are symmetric


def test_a_plugged_heuristic_orders_the_first_visits() -> None:
    # With progressive bias, unvisited children are tried best heuristic first.
    kwargs = {"simulations": 1, "seed": 0, "bias": 1.0, "mix": 0.0}
    guided = MCTSAgent(heuristic=c4_owner_value, **kwargs).search(GameState.initial())  # type: ignore[arg-type]
    assert guided.visits.tolist() == [int(a == C4) for a in guided.actions]
    plain = MCTSAgent(**kwargs).search(GameState.initial())  # type: ignore[arg-type]
    assert plain.visits[plain.actions.index(C4)] == 0  # symmetric openings: the lowest square goes first


def test_a_plugged_heuristic_plays_a_game() -> None:
    guided = MCTSAgent(simulations=300, seed=4, heuristic=disc_share, heuristic_weights=np.array([10.0], np.float32))
    margins = match(guided, RandomAgent(seed=5), games=1)
    assert len(margins) == 1


def test_bad_heuristics() -> None:
    with pytest.raises(TypeError, match="numba"):
        MCTSAgent(simulations=10, heuristic=lambda p, o: 0.0)

    @njit
    def two_args_too_many(p: np.uint64, o: np.uint64, w: np.ndarray, x: np.uint64) -> float:
        return 0.0

    @njit
    def out_of_range(p: np.uint64, o: np.uint64, w: np.ndarray) -> float:
        return 3.0

    with pytest.raises(TypeError, match="numba"):
        MCTSAgent(simulations=10, heuristic=two_args_too_many)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"\[-1, 1\]"):
        MCTSAgent(simulations=10, heuristic=out_of_range)
    with pytest.raises(TypeError, match="float32"):
        MCTSAgent(simulations=10, heuristic=disc_share, heuristic_weights=np.ones(3))  # float64: refused


def test_ctrl_c_interrupts_a_simulation_budget_at_once() -> None:
    # A budget of minutes; a real SIGINT half a second in must stop it between two short batches.
    agent = MCTSAgent(simulations=50_000_000, seed=0, max_nodes=100_000)
    state = random_game(3, plies=8)[-1]
    timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
    clock = search_cpu_clock()
    cpu = clock()
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        agent.search(state)
    assert clock() - cpu < 0.5 + 2.0  # generous: batches last about 20 ms
    timer.join()
    agent.simulations = 200  # the agent survives the interrupt and searches again
    assert agent.search(state).action in state.legal_actions()


def test_bad_positions() -> None:
    agent = MCTSAgent(simulations=10, seed=0)
    over = GameState.from_string("X" + "." * 63 + " O")
    with pytest.raises(InvalidPositionError, match="over"):
        agent.search(over)
    with pytest.raises(TypeError):
        agent.search("D3")  # type: ignore[arg-type]
    start = GameState.initial()
    for bad in (
        {"observation": np.zeros((8, 8)), "action_mask": start.legal_mask()},
        {"observation": start.planes(), "action_mask": np.zeros(65, np.int8)},
        {"observation": start.planes(), "action_mask": np.ones(65, np.int8)},
        {"action_mask": start.legal_mask()},
    ):
        with pytest.raises(InvalidPositionError):
            agent.act(bad)
    assert agent.act(obs(start)) in start.legal_actions()  # nothing was lost


def run_example(*args: str) -> subprocess.CompletedProcess[str]:
    script = REPO_ROOT / "examples" / "mcts_vs_random.py"
    return subprocess.run([sys.executable, str(script), *args], capture_output=True, text=True, cwd=REPO_ROOT)


def test_example_plays_and_summarises() -> None:
    done = run_example("--games", "2", "--simulations", "300", "--seed", "3")
    assert done.returncode == 0, done.stderr
    assert "game   1: MCTS (black)" in done.stdout
    assert "game   2: MCTS (white)" in done.stdout
    assert "out of 2 games" in done.stdout
    # 300 a move, fewer where MCTS-Solver proves the root first (it stops there): a mean just under.
    found = re.search(r"simulations per searched move: ([\d,]+) \((\d+) searched moves\)", done.stdout)
    assert found is not None, done.stdout
    mean, moves = int(found[1].replace(",", "")), int(found[2])
    assert moves > 20 and 250 <= mean <= 300


def test_example_rejects_bad_arguments() -> None:
    # --simulations above MCTSAgent's cap was its ValueError's traceback, after the imports.
    for args in (["--games", "0"], ["--simulations", "10", "--time", "1"], ["--simulations", "2000000000"]):
        done = run_example(*args)
        assert done.returncode == 2, args
        assert done.stderr.splitlines()[-1].startswith("mcts_vs_random.py: error:"), done.stderr


def test_example_ctrl_c_summarises_the_finished_games() -> None:
    # A real SIGINT once the first game is printed; it was a MatchInterrupted traceback and no summary.
    # The progress bar goes to stderr: stdout (a redirected results file) holds only the lines.
    args = ("--games", "1000", "--simulations", "300")
    first_game = re.compile(r"game   1: MCTS \(black\)").match
    status, out, err = interrupt_example("mcts_vs_random.py", *args, cwd=REPO_ROOT, ready=first_game)
    assert status == 130 and "Traceback" not in err, err
    finished = re.search(r"interrupted after (\d+) of 1000 games", err)
    assert finished is not None, err
    assert f"out of {finished[1]} games" in out and "mean disc difference" in out
    assert "\r" not in out and "game/s" not in out


def kids(*nodes: tuple[int, float, int]) -> np.ndarray:
    """Hand-built children: (visits, value sum, status) each."""
    out = np.zeros(len(nodes), dtype=NODE_DTYPE)
    for i, (visits, value, status) in enumerate(nodes):
        out[i]["visits"], out[i]["value"], out[i]["status"] = visits, value, status
    return out


def test_best_child_key_on_hand_built_nodes() -> None:
    # A proven win first, then the most visits, then the best mean value, then the first child.
    assert Tree.best_child(kids((10, 0.0, UNKNOWN), (1, 1.0, WIN), (50, 40.0, UNKNOWN))) == 1
    assert Tree.best_child(kids((10, 9.0, UNKNOWN), (11, -5.0, UNKNOWN))) == 1
    assert Tree.best_child(kids((10, 2.0, UNKNOWN), (10, 3.0, UNKNOWN))) == 1
    assert Tree.best_child(kids((10, 3.0, UNKNOWN), (10, 3.0, UNKNOWN))) == 0
    assert Tree.best_child(kids((90, 80.0, LOSS), (5, -4.0, UNKNOWN))) == 1  # a proven loss comes last
