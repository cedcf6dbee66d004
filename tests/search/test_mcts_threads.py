"""MCTS on several threads (``MCTSAgent(threads=N)``, ``mcts:threads=N``), in
one shared tree (the default) and root-parallel: legal moves and games, the
forced wins one thread finds, the shared tree's statistics after threads raced
on it (no node lost, the root's visits exact, few updates lost below it, virtual
losses taken back), a shared budget a slow thread leaves to the others, the
merge of root-parallel trees on hand-made numbers, reproducibility under a
simulation budget (root-parallel), the GIL released by the numba loops, Ctrl-C, and bad
settings. Speed and strength are measured in benchmarks/bench_mcts.py."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Callable

import numpy as np
import pytest
from conftest import random_game, search_cpu_clock
from numba import njit
from test_endgame import brute_force, endgame_positions

from agents import play_game
from agents.play.specs import SpecError, make_agent, parse_spec
from agents.search import mcts as mcts_module
from agents.search.ladder import RandomAgent
from agents.search.mcts import MAX_THREADS, NO_WEIGHTS, TEXTBOOK_UCT, MCTSAgent, MCTSConfig, _Budget, handwritten_value
from agents.search.mcts_tree import (
    DRAW,
    EXPANDING,
    LOSS,
    MAX_DEPTH,
    NODE_DTYPE,
    UNEXPANDED,
    UNKNOWN,
    VIRTUAL_LOSS,
    WIN,
    Tree,
    backup_shared,
    claim,
    combine_roots,
    descend,
    expand,
    simulate,
    simulate_shared,
)
from reversi_env import GameState
from reversi_env import bitboard as bb


def children(rows: list[tuple[int, int, float, int]]) -> np.ndarray:
    """Root children built by hand from (move, visits, value sum, status)."""
    kids = np.zeros(len(rows), dtype=NODE_DTYPE)
    for i, (move, visits, value, status) in enumerate(rows):
        kids[i]["move"], kids[i]["visits"], kids[i]["value"], kids[i]["status"] = move, visits, value, status
    return kids


def merged(kids: np.ndarray) -> dict[int, tuple[int, float, int]]:
    return {int(k["move"]): (int(k["visits"]), float(k["value"]), int(k["status"])) for k in kids}


LOST_RATE = 0.002
"""The share of all visits a raced-on shared tree may miss: updates lost between a
thread's load and its store (a few in ten thousand are, docs/engine.md)."""


def slack(visits: int | np.ndarray) -> float | np.ndarray:
    """What one node with ``visits`` may miss: lost updates come in bursts, when
    both threads pass a node at once, so a small node can miss a few."""
    return 0.02 * visits + 10


def test_combine_roots_sums_visits_and_values_per_move() -> None:
    # The two trees list the moves in different orders: the merge goes by move.
    a = children([(19, 10, 4.0, UNKNOWN), (26, 5, -1.5, UNKNOWN), (37, 1, 0.0, UNKNOWN)])
    b = children([(37, 7, 3.5, UNKNOWN), (19, 2, -2.0, UNKNOWN), (26, 0, 0.0, UNKNOWN)])
    kids, status = combine_roots([a, b])
    assert merged(kids) == {19: (12, 2.0, UNKNOWN), 26: (5, -1.5, UNKNOWN), 37: (8, 3.5, UNKNOWN)}
    assert [int(m) for m in kids["move"]] == [19, 26, 37]  # the first tree's order
    assert status == UNKNOWN
    assert Tree.best_child(kids) == 0  # 12 visits


def test_combine_roots_keeps_a_proof_from_any_tree() -> None:
    # Move 26 is proven a win in tree b only: it is a proven win, and the root is lost for who moved into it.
    a = children([(19, 30, 10.0, UNKNOWN), (26, 2, 0.0, UNKNOWN)])
    b = children([(19, 30, 12.0, UNKNOWN), (26, 3, 3.0, WIN)])
    kids, status = combine_roots([a, b])
    assert merged(kids)[26] == (5, 3.0, WIN)
    assert status == LOSS
    assert int(kids[Tree.best_child(kids)]["move"]) == 26  # a proven win beats more visits


def test_combine_roots_proves_what_no_tree_proved_alone() -> None:
    # Tree a refuted move 19, tree b move 26; both refuted 37: every move loses, so the root is won
    # for the player who moved into it, though neither tree proved its own root.
    a = children([(19, 4, -4.0, LOSS), (26, 9, 1.0, UNKNOWN), (37, 3, -3.0, LOSS)])
    b = children([(19, 8, 2.0, UNKNOWN), (26, 2, -2.0, LOSS), (37, 5, -5.0, LOSS)])
    kids, status = combine_roots([a, b])
    assert [int(s) for s in kids["status"]] == [LOSS, LOSS, LOSS]
    assert status == WIN
    # All proven, one a draw and none a win: the root is a draw.
    c = children([(19, 4, -4.0, LOSS), (26, 9, 0.0, DRAW), (37, 3, -3.0, UNKNOWN)])
    d = children([(19, 8, 2.0, UNKNOWN), (26, 2, 0.0, UNKNOWN), (37, 5, -5.0, LOSS)])
    kids, status = combine_roots([c, d])
    assert [int(s) for s in kids["status"]] == [LOSS, DRAW, LOSS]
    assert status == DRAW


def test_combine_roots_refuses_trees_of_different_positions() -> None:
    a = children([(19, 1, 0.0, UNKNOWN), (26, 1, 0.0, UNKNOWN)])
    with pytest.raises(ValueError, match="same root moves"):
        combine_roots([a, children([(19, 1, 0.0, UNKNOWN), (37, 1, 0.0, UNKNOWN)])])
    with pytest.raises(ValueError, match="same root moves"):
        combine_roots([a, children([(19, 1, 0.0, UNKNOWN)])])


PARALLEL = ["tree", "root"]


@pytest.mark.parametrize("parallel", PARALLEL)
def test_two_threads_search_legal_moves(parallel: str) -> None:
    for seed in range(3):
        state = random_game(seed, plies=10 + 10 * seed)[-1]
        agent = MCTSAgent(simulations=3001, seed=seed, threads=2, endgame_exact=0, parallel=parallel)
        result = agent.search(state)
        assert result.action in state.legal_actions()
        assert result.actions == tuple(state.legal_actions())
        assert result.simulations == 3001  # 1501 + 1500 over root-parallel trees; taken as they come in one
        assert result.visits.sum() == result.simulations  # every root was expanded before its first simulation
        assert result.principal_variation[0] == result.action
        line = state
        for a in result.principal_variation:
            line = line.apply(a)  # a legal line


@pytest.mark.parametrize("parallel", PARALLEL)
def test_the_threads_do_all_of_a_long_budget(parallel: str) -> None:
    # Several batches a thread: the thread that ends first must not stop the others before the budget
    # is done (each root-parallel tree's share; the shared tree's one count).
    state = random_game(7, plies=16)[-1]
    agent = MCTSAgent(simulations=60_000, seed=0, threads=2, endgame_exact=0, parallel=parallel)
    assert agent.search(state).simulations == 60_000


def test_a_slow_thread_leaves_its_simulations_to_the_others(monkeypatch: pytest.MonkeyPatch) -> None:
    # Thread 1 is stuck in its first batch until thread 0 has done the rest of the budget: the
    # shared tree's budget is not split in advance, so thread 0 takes every other batch, and the
    # search does the budget exactly. (A fixed sleep instead made the split depend on the machine's
    # speed: 34,275 against 25,725 on a slower one.)
    real = mcts_module.simulate_shared
    budget = 60_000

    def slow_second_thread(
        nodes: np.ndarray, tally: np.ndarray, mine: int, meta: np.ndarray, root: int, n: int, *rest: object
    ) -> int:
        stuck_until = time.monotonic() + 60
        while mine == 1 and tally[0, 0, 0] < budget - n and time.monotonic() < stuck_until:
            time.sleep(0.001)
        return int(real(nodes, tally, mine, meta, root, n, *rest))

    monkeypatch.setattr(mcts_module, "simulate_shared", slow_second_thread)
    agent = MCTSAgent(simulations=budget, seed=0, threads=2, endgame_exact=0)
    result = agent.search(random_game(7, plies=16)[-1])
    by_thread = agent._tree.tally[:, 0, 0]
    assert result.simulations == by_thread.sum() == budget
    assert by_thread[0] > 2 * by_thread[1] > 0


def test_the_budget_shrinks_its_batches_to_the_end() -> None:
    budget = _Budget(10, takers=2)
    assert [budget.take(100) for _ in range(6)] == [5, 2, 1, 1, 1, 0]
    one = _Budget(10, takers=1)  # one thread: the batches it asks for, then the rest
    assert [one.take(4) for _ in range(4)] == [4, 4, 2, 0]


@pytest.mark.parametrize("parallel", PARALLEL)
def test_two_threads_play_full_games(parallel: str) -> None:
    agent = MCTSAgent(simulations=600, seed=4, threads=2, parallel=parallel)
    for game in range(2):
        black, white = (agent, RandomAgent(seed=game)) if game == 0 else (RandomAgent(seed=game), agent)
        result = play_game(black, white, time_limit=None)
        assert result.reason == "end", result.details


def test_root_parallel_with_a_seed_is_reproducible() -> None:
    state = random_game(2, plies=12)[-1]
    a = MCTSAgent(simulations=4000, seed=7, threads=2, parallel="root").search(state)
    b = MCTSAgent(simulations=4000, seed=7, threads=2, parallel="root").search(state)
    assert (a.action, a.principal_variation) == (b.action, b.principal_variation)
    np.testing.assert_array_equal(a.visits, b.visits)
    np.testing.assert_array_equal(a.values, b.values)
    # The second tree draws from its own stream: not a copy of the first tree's search
    # (with playouts in the leaf values; the default search has no random part).
    two = MCTSAgent(simulations=4000, seed=7, threads=2, mix=0.5, parallel="root").search(state)
    one = MCTSAgent(simulations=2000, seed=7, mix=0.5).search(state)
    assert not np.array_equal(two.visits, 2 * one.visits)


@pytest.mark.parametrize("parallel", PARALLEL)
@pytest.mark.parametrize("empties", [5, 6])
def test_two_threads_prove_the_forced_wins_one_thread_proves(empties: int, parallel: str) -> None:
    states = [s for s in endgame_positions(empties, 8) if len(s.legal_actions()) > 1 and brute_force(s) > 0]
    assert states
    for state in states[:2]:
        one = MCTSAgent(simulations=20_000, seed=1, endgame_exact=0).search(state)
        result = MCTSAgent(simulations=20_000, seed=1, threads=2, endgame_exact=0, parallel=parallel).search(state)
        assert one.proven == result.proven == "win", str(state)
        assert brute_force(state.apply(result.action)) < 0, str(state)  # the move keeps the win
        assert result.simulations < 20_000  # the threads stop once proven


@pytest.mark.parametrize("parallel", PARALLEL)
def test_timed_search_with_two_threads(parallel: str) -> None:
    state = random_game(6, plies=10)[-1]
    clock = search_cpu_clock(threads=2)
    cpu = clock()
    result = MCTSAgent(time_limit=0.3, seed=0, threads=2, endgame_exact=0, parallel=parallel).search(state)
    assert clock() - cpu < 2 * 0.3 + 1.0  # two threads' 0.3 s; generous: each looks at the clock between batches
    assert result.simulations > 0 and result.action in state.legal_actions()
    proven = next(s for s in endgame_positions(4, 6) if len(s.legal_actions()) > 1)
    t = time.perf_counter()
    agent = MCTSAgent(time_limit=20.0, seed=0, threads=2, endgame_exact=0, endgame_proof=0, parallel=parallel)
    assert agent.search(proven).proven is not None
    assert time.perf_counter() - t < 10.0  # a proof stops every thread, far inside the 20 s


def test_the_shared_tree_is_reused_between_moves() -> None:
    agent = MCTSAgent(simulations=3000, seed=5, threads=2)
    s0 = GameState.initial()
    r0 = agent.search(s0)
    chosen = int(agent._tree.nodes[agent._tree.root]["first"]) + r0.actions.index(r0.action)
    kept = int(agent._tree.children(chosen)["visits"].sum())
    r1 = agent.search(s0.apply(r0.action))
    assert r1.reused == r0.visits[r0.actions.index(r0.action)]
    assert r1.visits.sum() == kept + r1.simulations  # every simulation of this search counted
    # As one thread: its first visit expanded it (give or take the updates below the root lost to a race).
    assert r1.reused - 1 - kept <= slack(r1.reused)
    assert r1.nodes <= agent.max_nodes


def test_each_root_parallel_tree_is_reused_between_moves() -> None:
    agent = MCTSAgent(simulations=3000, seed=5, threads=2, parallel="root")
    s0 = GameState.initial()
    r0 = agent.search(s0)
    r1 = agent.search(s0.apply(r0.action))
    # Each root kept its old child's visits: together the merged child's, and each tree's first visit expanded it.
    assert r1.reused == r0.visits[r0.actions.index(r0.action)]
    assert r1.visits.sum() == r1.reused - 2 + r1.simulations
    agent.reset()
    assert agent.search(s0.apply(r0.action)).reused == 0


def count_while(search: Callable[[], None]) -> int:
    """How far this Python thread counts while ``search`` runs in another thread:
    far only if the search releases the GIL."""
    counter = [0]
    seen: list[int] = []

    def run() -> None:
        seen.append(counter[0])
        search()
        seen.append(counter[0])

    worker = threading.Thread(target=run)
    worker.start()
    while worker.is_alive():
        counter[0] += 1
    worker.join()
    return seen[1] - seen[0]


def test_the_numba_loop_releases_the_gil() -> None:
    # While one simulate call runs in a thread, this Python thread must keep counting.
    state = random_game(1, plies=6)[-1]
    p, o = state.kernel_boards()
    tree = Tree()
    tree.start(p, o, 1_000_000)

    def search() -> None:
        config = MCTSConfig(
            c=1.0, solver=True, informed_playouts=True, bias=1.0, mix=0.8, ply=0, fpu=False, minimax=0.0
        )
        simulate(
            tree.nodes, tree.meta, np.int64(0), np.int64(150_000), config.record, bb.make_rng(1),
            np.zeros(MAX_DEPTH, np.int64), handwritten_value, NO_WEIGHTS,
        )  # fmt: skip

    counted = count_while(search)
    assert tree.size > 1000  # it did search
    assert counted > 1000  # and this thread ran meanwhile


def search_shared(tree: Tree, threads: int, simulations: int, ply: int = 1, mix: float = 1.0) -> None:
    """``threads`` Python threads, each running ``simulations`` of ``simulate_shared`` on ``tree`` at once."""
    pools = tree.pools(threads)
    config = MCTSConfig(c=0.5, solver=True, informed_playouts=True, bias=1.0, mix=mix, ply=ply, fpu=True, minimax=0.5)

    def work(i: int) -> None:
        simulate_shared(
            tree.nodes, tree.tally, i, pools[i], np.int64(tree.root), np.int64(simulations), config.record,
            bb.make_rng(i), np.zeros(MAX_DEPTH, np.int64), handwritten_value, NO_WEIGHTS,
        )  # fmt: skip

    workers = [threading.Thread(target=work, args=(i,)) for i in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    tree.gather(pools)


def shared_root(plies: int, capacity: int) -> Tree:
    """A tree of a seeded random game's position after ``plies``, its root expanded as MCTSAgent does."""
    p, o = random_game(5, plies=plies)[-1].kernel_boards()
    tree = Tree()
    tree.start(p, o, capacity)
    expand(tree.nodes, tree.meta, np.int64(0), True, True, handwritten_value, NO_WEIGHTS)
    return tree


def reachable(tree: Tree) -> list[int]:
    """Every node reachable from the root."""
    seen, todo = [], [tree.root]
    while todo:
        node = todo.pop()
        seen.append(node)
        first, k = int(tree.nodes[node]["first"]), int(tree.nodes[node]["nchild"])
        if first >= 0:
            todo.extend(range(first, first + k))
    return seen


@pytest.mark.parametrize(("ply", "mix"), [(1, 1.0), (0, 0.5)])
def test_the_shared_tree_adds_up_after_threads_raced_on_it(ply: int, mix: float) -> None:
    tree = shared_root(plies=8, capacity=2_000_000)
    search_shared(tree, threads=2, simulations=30_000, ply=ply, mix=mix)
    nodes = tree.nodes
    found = reachable(tree)
    assert len(found) == tree.size  # no node lost: every node taken from a pool hangs in the tree
    assert len(set(found)) == len(found)  # and each exactly once
    # The root and its children are exact (each thread's own tally): no visit lost to a race.
    assert list(tree.tally[:, 0, 0]) == [30_000, 30_000]
    root = nodes[tree.root]
    assert root["visits"] == 60_000 == tree.children()["visits"].sum()
    assert root["value"] == pytest.approx(-tree.children()["value"].sum())
    missed = 0
    for node in found:
        nd = nodes[node]
        visits = int(nd["visits"])
        assert nd["first"] != EXPANDING  # every claimed node was expanded
        # Results in [-1, 1], virtual losses taken back (give or take the few updates lost to a race).
        assert abs(float(nd["value"])) <= visits + slack(visits), node
        if nd["first"] < 0 or nd["nchild"] == 0:
            continue
        kids = nodes[int(nd["first"]) : int(nd["first"]) + int(nd["nchild"])]
        ended_here = visits - int(kids["visits"].sum())
        # No child above its parent; at ply 1 the simulation that expanded a node ended there (at ply 0 it
        # stepped into a child, and the visit before it may have been another thread's passing through).
        short = (1 if ply == 1 and node != tree.root else 0) - ended_here
        assert short <= slack(visits), node
        missed += max(short, 0)
    assert missed <= LOST_RATE * sum(int(nodes[node]["visits"]) for node in found)  # lost updates are rare


def test_no_thread_reads_a_half_expanded_node() -> None:
    # Many short races from positions all through a game (a stress test: the interleavings differ run to run).
    # A simulation that read a node's first child published but its child count not yet would back up a
    # false game end or, over an empty block, an infinite one-ply value: every value sum stays within its
    # visits (give or take the few updates lost to a race) and every static or minimax value in [-1, 1].
    for plies in (4, 10, 16, 24, 32, 40, 46):
        tree = shared_root(plies=plies, capacity=300_000)
        search_shared(tree, threads=2, simulations=3000)
        nodes = tree.nodes[np.array(reachable(tree))]
        assert np.all(np.abs(nodes["value"]) <= nodes["visits"] + slack(nodes["visits"])), plies
        assert np.all(np.abs(nodes["prior"]) <= 1.0), plies


def test_virtual_loss_sends_the_second_thread_elsewhere_and_is_taken_back() -> None:
    # Two descents before either backs up, as threads 0 and 1 interleave them.
    tree = shared_root(plies=4, capacity=10_000)
    pools = tree.pools(2)
    root = tree.nodes[0]
    first, k = int(root["first"]), int(root["nchild"])
    a, b = np.zeros(MAX_DEPTH, np.int64), np.zeros(MAX_DEPTH, np.int64)
    config = MCTSConfig(c=0.5, bias=1.0, fpu=True, minimax=0.5).record
    da = descend(tree.nodes, np.int64(0), config, False, True, a)
    assert da == 1 and tree.nodes[a[1]]["visits"] == 1 and tree.nodes[a[1]]["value"] == -VIRTUAL_LOSS
    db = descend(tree.nodes, np.int64(0), config, False, True, b)
    assert db == 1 and b[1] != a[1]  # the first child now looks lost: the second descent takes another
    assert root["visits"] == 2
    backup_shared(tree.nodes, tree.tally, 0, a, da, np.float64(0.5), True)
    backup_shared(tree.nodes, tree.tally, 1, b, db, np.float64(-0.25), True)
    kids = tree.nodes[first : first + k]
    assert kids["visits"].sum() == 2 and root["visits"] == 2
    assert tree.nodes[a[1]]["value"] == 0.5 and tree.nodes[b[1]]["value"] == -0.25  # the results, nothing else
    assert root["value"] == -0.25  # both results from the root's side
    # Each thread tallied its own simulation, root in slot 0 and child i in slot 1 + i.
    np.testing.assert_array_equal(tree.tally[0, [0, 1 + a[1] - first]], [[1, -0.5], [1, 0.5]])
    np.testing.assert_array_equal(tree.tally[1, [0, 1 + b[1] - first]], [[1, 0.25], [1, -0.25]])
    assert np.count_nonzero(tree.tally) == 8
    tree.nodes[first : first + k]["visits"] += 5  # a race's leftovers in the children: the tallies decide
    tree.gather(pools)
    assert kids["visits"].sum() == 2 and root["visits"] == 2 and root["value"] == -0.25


@njit
def claim_node(nodes: np.ndarray, node: np.int64) -> bool:
    """``claim`` from Python (an intrinsic runs in numba code only)."""
    return claim(nodes, node)


def test_one_thread_claims_a_node() -> None:
    tree = shared_root(plies=4, capacity=10_000)
    child = np.int64(tree.nodes[0]["first"])
    assert tree.nodes[child]["first"] == UNEXPANDED
    assert claim_node(tree.nodes, child) and tree.nodes[child]["first"] == EXPANDING
    assert not claim_node(tree.nodes, child)  # taken
    assert expand(tree.nodes, tree.meta, child, True, True, handwritten_value, NO_WEIGHTS)
    assert tree.nodes[child]["first"] >= 0 and not claim_node(tree.nodes, child)


def test_a_full_shared_tree_searches_on() -> None:
    state = random_game(3, plies=12)[-1]
    agent = MCTSAgent(simulations=20_000, seed=0, threads=2, max_nodes=3000, endgame_exact=0)
    result = agent.search(state)
    assert result.simulations == 20_000 and result.action in state.legal_actions()
    assert result.nodes <= 3000
    assert not (agent._tree.nodes[: agent._tree.size]["first"] == EXPANDING).any()  # claims given back


@pytest.mark.parametrize("knobs", [{"ply": 0}, dict(TEXTBOOK_UCT)], ids=["ply0", "textbook"])
def test_a_shared_tree_of_other_settings(knobs: dict[str, float]) -> None:
    state = random_game(4, plies=20)[-1]
    result = MCTSAgent(simulations=5000, seed=0, threads=2, endgame_exact=0, **knobs).search(state)  # type: ignore[arg-type]
    assert result.action in state.legal_actions() and result.visits.sum() == 5000


def test_the_shared_kernel_releases_the_gil() -> None:
    tree = shared_root(plies=6, capacity=2_000_000)
    counted = count_while(lambda: search_shared(tree, threads=2, simulations=60_000))
    assert tree.nodes[0]["visits"] == 120_000  # it did search
    assert counted > 1000  # and this thread ran meanwhile


@pytest.mark.parametrize("parallel", PARALLEL)
def test_ctrl_c_stops_every_thread(parallel: str) -> None:
    agent = MCTSAgent(simulations=50_000_000, seed=0, threads=2, max_nodes=200_000, parallel=parallel)
    state = random_game(3, plies=8)[-1]
    timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
    clock = search_cpu_clock(threads=2)
    cpu = clock()
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        agent.search(state)
    assert clock() - cpu < 2 * 0.5 + 2.0
    timer.join()
    assert not [th for th in threading.enumerate() if th.name.startswith("mcts-search-")]  # the helpers ended
    agent.simulations = 200  # the agent survives the interrupt and searches again
    assert agent.search(state).action in state.legal_actions()


@pytest.mark.parametrize("threads", [0, -1, 1000, MAX_THREADS + 1, "x", "2", 1.5, True, None])
def test_bad_threads(threads: object) -> None:
    with pytest.raises(ValueError, match="threads must be an int from 1 to 64"):
        MCTSAgent(simulations=10, threads=threads)  # type: ignore[arg-type]


class ZeroEvaluator:
    """Every position is even; no priors."""

    def evaluate(self, state: GameState) -> tuple[float, np.ndarray | None]:
        return 0.0, None


def test_threads_and_other_settings() -> None:
    with pytest.raises(ValueError, match="per thread"):
        MCTSAgent(simulations=10, threads=4, max_nodes=200)
    with pytest.raises(ValueError, match="parallel must be one of tree, root"):
        MCTSAgent(simulations=10, threads=2, parallel="leaf")
    with pytest.raises(ValueError, match="evaluator runs in Python"):
        MCTSAgent(simulations=10, threads=2, evaluator=ZeroEvaluator())


def test_the_threads_option_of_the_spec() -> None:
    agent = make_agent("mcts:sims=50,seed=1,threads=2")
    assert isinstance(agent, MCTSAgent) and agent.threads == 2
    timed = make_agent("mcts:time=0.5,threads=2")
    assert isinstance(timed, MCTSAgent) and timed.threads == 2 and timed.time_limit == 0.5
    default = make_agent("mcts:sims=50")
    assert isinstance(default, MCTSAgent) and default.threads == 1
    assert default.parallel == "tree"
    root = make_agent("mcts:sims=50,threads=2,parallel=root")
    assert isinstance(root, MCTSAgent) and root.parallel == "root" and len(root._trees) == 2


@pytest.mark.parametrize(
    ("spec", "needle"),
    [
        ("mcts:threads=0", "threads must be > 0"),
        ("mcts:threads=-1", "threads must be > 0"),
        ("mcts:threads=1000", "threads must be at most 64"),
        ("mcts:threads=x", "threads must be an integer"),
        ("mcts:threads=1.5", "threads must be an integer"),
        ("mcts:threads=2,parallel=leaf", "parallel must be one of tree, root"),
        ("mcts:threads=2,parallel=", "parallel needs a value"),
    ],
)
def test_bad_threads_in_a_spec(spec: str, needle: str) -> None:
    with pytest.raises(SpecError, match=needle):
        parse_spec(spec)
