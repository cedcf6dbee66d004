"""The alpha-beta core: the exact solver against brute force (both scorings) and
the FFO test positions, the search against the solver, stable discs, the
transposition table, the evaluation as a parameter, and the time manager."""

from __future__ import annotations

import time

import numpy as np
import pytest
from conftest import TEST_DATA, random_game, search_cpu_clock
from numba import njit
from test_endgame import endgame_positions

from agents.search import endgame
from agents.search.alphabeta import (
    DEFERRED,
    EXACT_DEPTH,
    EXACT_JUMP,
    NODES,
    SELECTIVITY,
    RootScores,
    _Helper,
    deepening_depths,
    iterative_deepening,
    new_stats,
    prove_outcome,
    score_moves,
    search_depth,
    search_root,
)
from agents.search.endgame import EndgameSolution, Solver, solve_position
from agents.search.evaluation import DISC, EVAL_SIGNATURE, HAND_EVALUATION, Evaluation
from agents.search.ladder import AlphaBetaAgent
from agents.search.lastmoves import count_last_flips, stable_discs
from agents.search.patterns import pattern_evaluation
from agents.search.tt import clear_busy, is_busy, mark_busy, new_table, probe, store
from reversi_env import BLACK, PASS, GameState, parse_square, square_name
from reversi_env.bitboard import flips
from reversi_env.observation import observe


def brute_force(state: GameState, wof: bool) -> int:
    """Final score for the mover under perfect play, plain minimax over GameState."""
    if state.is_terminal():
        black, white = state.score()
        diff = black - white if state.player == BLACK else white - black
        empties = 64 - black - white
        if wof and diff:
            diff += empties if diff > 0 else -empties
        return diff
    return max(-brute_force(state.apply(a), wof) for a in state.legal_actions())


def read_ffo() -> list[tuple[int, GameState, dict[str, int]]]:
    """FFO #20-#39 from tests/data: number, position, and the known score of each listed move."""
    problems = []
    for number, line in enumerate((TEST_DATA / "fforum-20-39.obf").read_text().splitlines(), start=20):
        fields = [f.strip() for f in line.split(";") if f.strip()]
        board, player = fields[0].split()
        moves = {m.split(":")[0]: int(m.split(":")[1]) for m in fields[1:]}
        problems.append((number, GameState.from_string(board.replace("-", ".") + " " + player), moves))
    return problems


@pytest.mark.parametrize("empties", [2, 3, 4, 5, 7, 8])
@pytest.mark.parametrize("scoring", ["count", "wof"])
def test_solver_matches_brute_force(empties: int, scoring: str) -> None:
    for state in endgame_positions(empties, 6):
        sol = solve_position(state, scoring=scoring)
        assert sol is not None
        assert sol.score == brute_force(state, scoring == "wof"), str(state)
        best = {a for a in state.legal_actions() if -brute_force(state.apply(a), scoring == "wof") == sol.score}
        assert set(sol.best_actions) == best


def test_wof_gives_the_empties_to_the_winner() -> None:
    # X A1, O B1: X's C1 wipes O out with 61 empty squares left.
    cells = ["."] * 64
    cells[parse_square("A1")], cells[parse_square("B1")] = "X", "O"
    state = GameState.from_string("".join(cells) + " X")
    count, wof = solve_position(state, scoring="count"), solve_position(state, scoring="wof")
    assert count is not None and wof is not None
    assert (count.score, wof.score) == (3, 64)


@pytest.mark.parametrize("number", [20, 21, 22, 23])
def test_solver_on_ffo_positions(number: int) -> None:
    _, state, moves = read_ffo()[number - 20]
    sol = Solver().solve(state, scoring="wof")
    assert sol is not None
    known = max(moves.values())
    assert sol.score == known
    assert {m for m, v in moves.items() if v == known} >= {square_name(a) for a in sol.best_actions}


@pytest.mark.parametrize("empties", [3, 5, 8])
@pytest.mark.parametrize("scoring", ["count", "wof"])
def test_one_best_move_is_a_best_move(empties: int, scoring: str) -> None:
    for state in endgame_positions(empties, 6):
        sol = Solver(1 << 12).solve(state, scoring=scoring, all_best=False)
        assert sol is not None
        assert sol.score == brute_force(state, scoring == "wof"), str(state)
        (move,) = sol.best_actions
        assert -brute_force(state.apply(move), scoring == "wof") == sol.score


@pytest.mark.parametrize("number", [20, 21, 22, 23])
def test_one_best_move_on_ffo_positions(number: int) -> None:
    _, state, moves = read_ffo()[number - 20]
    sol = Solver().solve(state, scoring="wof", all_best=False)
    assert sol is not None
    (move,) = sol.best_actions
    assert (sol.score, moves.get(square_name(move))) == (max(moves.values()), max(moves.values()))


@njit(EVAL_SIGNATURE, cache=True)
def _claims_a_big_win(p: np.uint64, o: np.uint64, weights: np.ndarray) -> np.int64:
    return np.int64(weights[0] * DISC)


@pytest.mark.parametrize("claim", [-60.0, -12.0, 0.0, 12.0, 60.0])
def test_the_solver_is_exact_from_any_estimate(claim: float) -> None:
    # A silly evaluation (every position worth ``claim`` discs to the mover) makes the
    # estimate wrong by up to 60 discs: the windows must still find the exact score.
    silly = Evaluation("claim", _claims_a_big_win, np.array([claim], dtype=np.float32))
    for scoring in ("count", "wof"):
        for state in endgame_positions(14, 3):
            reference = Solver(1 << 16, HAND_EVALUATION).score_all(state, scoring=scoring)
            for all_best in (True, False):
                sol = Solver(1 << 16, silly).solve(state, scoring=scoring, all_best=all_best)
                assert sol is not None and sol.score == max(reference.values())
                assert all(reference[a] == sol.score for a in sol.best_actions)
                if all_best:
                    assert set(sol.best_actions) == {a for a, v in reference.items() if v == sol.score}


def test_timed_search_agrees_with_the_solver() -> None:
    # With 10 empties, deepening reaches the end within the time: its moves are the solver's.
    for state in endgame_positions(10, 4):
        if len(state.legal_actions()) < 2:
            continue
        sol = solve_position(state)
        assert sol is not None
        agent = AlphaBetaAgent(time_limit=5.0, seed=0)
        assert set(agent.best_actions(state)) <= set(sol.best_actions)
        assert agent.last_depth == EXACT_DEPTH


def test_fixed_depth_search_matches_brute_force_minimax() -> None:
    # Depth 3 with the exact endgame switched off, against plain minimax over the same evaluation.
    from agents.search.evaluation import evaluate

    def minimax(state: GameState, depth: int) -> int:
        if state.is_terminal():
            diff = state.disc_difference()
            return (diff if state.player == BLACK else -diff) * DISC
        if state.legal_actions() == [64]:
            return -minimax(state.apply(64), depth)
        if depth == 0:
            p, o = state.kernel_boards()
            return int(evaluate(p, o))
        return max(-minimax(state.apply(a), depth - 1) for a in state.legal_actions())

    for seed in range(4):
        state = random_game(seed)[20]
        if state.legal_actions() == [64]:
            continue
        agent = AlphaBetaAgent(3, seed=0, exact_empties=0)
        values = {a: -minimax(state.apply(a), 2) for a in state.legal_actions()}
        top = max(values.values())
        assert agent.best_actions(state) == sorted(a for a, v in values.items() if v == top)


def test_stable_discs_never_flip() -> None:
    rng = np.random.default_rng(0)
    for seed in range(40):
        for state in random_game(seed)[20::6]:
            if state.is_terminal():
                continue
            p, o = state.kernel_boards()
            stable = int(stable_discs(p, o))
            assert stable & ~int(p) == 0
            # Play the game out at random: the stable discs stay the mover's colour.
            mover, s = state.player, state
            while not s.is_terminal():
                s = s.apply(int(rng.choice(s.legal_actions())))
                mine = s.black if mover == BLACK else s.white
                assert stable & ~mine == 0, str(state)


def test_last_square_flip_count_matches_the_flips() -> None:
    # Full boards but one square, the mover's discs dense, even and sparse (long runs of the opponent's).
    rng = np.random.default_rng(3)
    for density in (0.8, 0.5, 0.15):
        for _ in range(3000):
            sq = int(rng.integers(64))
            mine = (rng.random(64) < density) & (np.arange(64) != sq)
            p = int((mine.astype(np.uint64) << np.arange(64, dtype=np.uint64)).sum())
            o = ~p & ~(1 << sq) & (2**64 - 1)
            for x, y in ((p, o), (o, p)):
                expected = int(flips(np.uint64(x), np.uint64(y), np.uint64(sq))).bit_count()
                assert count_last_flips(np.uint64(x), np.uint64(sq)) == expected, (hex(x), sq)


def test_transposition_table_round_trip() -> None:
    table = new_table(1000)
    assert table.shape[0] == 1024
    assert table.ctypes.data % 64 == 0 and table.strides[0] == 32  # a bucket of two is one cache line
    p, o = np.uint64(0x0000000810000000), np.uint64(0x0000001008000000)
    assert not probe(table, p, o)[0]
    store(table, p, o, np.int64(-5000), np.int64(7000), np.int64(9), np.int64(19))
    assert probe(table, p, o) == (True, -5000, 7000, 9, 19)
    assert not probe(table, o, p)[0]
    # An entry torn by two threads (its data word from another write) reads as absent.
    table[table[:, 2] != 0, 2] ^= np.uint64(1 << 30)
    assert not probe(table, p, o)[0]
    with pytest.raises(ValueError, match="at least 2"):
        new_table(1)


def test_busy_marks_are_set_and_cleared_by_their_position() -> None:
    table = new_table(2)  # one bucket: every position shares it
    a = (np.uint64(0x0000000810000000), np.uint64(0x0000001008000000))
    b = (np.uint64(0x0000001008000000), np.uint64(0x0000000810000000))
    assert not is_busy(table, *a)
    mark_busy(table, *a)
    assert is_busy(table, *a) and not is_busy(table, *b)
    mark_busy(table, *b)  # b takes the bucket's mark: a's is lost (a hint, not a lock)
    assert is_busy(table, *b) and not is_busy(table, *a)
    clear_busy(table, *a)  # not a's mark any more: b keeps it
    assert is_busy(table, *b)
    clear_busy(table, *b)
    assert not is_busy(table, *b) and not table[:, 3].any()


def test_a_shared_search_puts_off_a_busy_move_and_keeps_every_value() -> None:
    # Another thread "searching" the second root move and the second move of every child:
    # the shared search puts them off, scores every move as the lone search does,
    # and leaves no mark of its own behind.
    evaluation = pattern_evaluation()
    for seed in range(3):
        state = random_game(seed)[20]
        p, o = state.kernel_boards()
        actions = state.legal_actions()
        alone = search_root(p, o, 5, actions, new_table(1 << 14), new_stats(DISC), evaluation, exact_all=True)
        table = new_table(1 << 14)
        busy = [state.apply(actions[1])]
        busy += [state.apply(a).apply(b) for a in actions for b in state.apply(a).legal_actions()[1:2]]
        for child in busy:
            mark_busy(table, *child.kernel_boards())
        stats = new_stats(DISC, shared=True)
        shared = search_root(p, o, 5, actions, table, stats, evaluation, exact_all=True)
        assert shared.scores == alone.scores
        assert stats[DEFERRED] >= 1
        for child in busy:  # the other thread's marks gone, none of the search's own is left
            clear_busy(table, *child.kernel_boards())
        assert not table[:, 3].any()


@njit(EVAL_SIGNATURE, cache=True)
def _square_sum(p: np.uint64, o: np.uint64, weights: np.ndarray) -> np.int64:
    """A plug-in evaluation: the sum of ``weights`` over my squares minus theirs."""
    s = 0.0
    for sq in range(64):
        if (p >> np.uint64(sq)) & np.uint64(1):
            s += weights[sq]
        elif (o >> np.uint64(sq)) & np.uint64(1):
            s -= weights[sq]
    return np.int64(s)


def test_the_evaluation_is_a_parameter() -> None:
    weights = np.round(np.random.default_rng(3).normal(0, 100, 64)).astype(np.float32)  # exact sums
    plugged = Evaluation("square-sum", _square_sum, weights)
    for state in random_game(11)[4:30:5]:
        if state.legal_actions() == [64]:
            continue
        expected = {}
        for a in state.legal_actions():
            child = state.apply(a)
            mine = child.black if state.player == BLACK else child.white
            theirs = child.white if state.player == BLACK else child.black
            expected[a] = int(
                sum(weights[i] for i in range(64) if mine >> i & 1)
                - sum(weights[i] for i in range(64) if theirs >> i & 1)
            )
        top = max(expected.values())
        agent = AlphaBetaAgent(1, seed=0, exact_empties=0, evaluation=plugged)
        assert agent.best_actions(state) == sorted(a for a, v in expected.items() if v == top)


def test_node_budget_stops_the_search() -> None:
    state = random_game(2)[20]
    p, o = state.kernel_boards()
    stats = new_stats(DISC, node_limit=50)
    root = search_root(p, o, 6, state.legal_actions(), new_table(1 << 10), stats, HAND_EVALUATION)
    assert not root.completed
    root, nodes = iterative_deepening(p, o, state.legal_actions(), new_table(1 << 10), HAND_EVALUATION, node_limit=5000)
    assert 1 <= root.depth < 10 and nodes >= 5000


def test_time_manager_never_goes_over_the_budget() -> None:
    # Many small budgets: count the moves over the limit (plus a loose allowance for a busy machine),
    # in the search's CPU time (search_cpu_clock).
    clock = search_cpu_clock()
    over = 0
    agent = AlphaBetaAgent(time_limit=0.05, seed=0)
    # One move first: in a fresh checkout it may compile a kernel on this thread, which is not the
    # time manager's spending (another test process may not have cached it yet).
    warm_up = random_game(99)[10]
    agent.act(observe(warm_up, warm_up.player))
    depths = []
    for seed in range(3):
        for state in random_game(seed)[8:50:4]:
            if state.legal_actions() == [64] or state.is_terminal():
                continue
            obs = observe(state, state.player)
            start = clock()
            agent.act(obs)
            if clock() - start > 0.05 + 0.25:
                over += 1
            depths.append(agent.last_depth)
    assert over == 0
    assert max(depths) >= 3  # and it does search, not just stop at once


def test_an_unfinished_depth_counts_once_it_has_searched_the_last_best_move() -> None:
    """Cut short by the node budget, iterative deepening returns the deeper,
    unfinished depth when it got through the last depth's best move: its best
    value and best moves are those of a full search of the moves it searched."""
    unfinished = 0
    for seed in range(4):
        for state in random_game(seed)[10:46:6]:
            actions = state.legal_actions()
            if actions == [PASS] or state.is_terminal():
                continue
            p, o = state.kernel_boards()
            for limit in (3000, 10_000, 30_000):
                root, _ = iterative_deepening(p, o, actions, new_table(1 << 12), HAND_EVALUATION, node_limit=limit)
                if root.completed or root.depth == 0:
                    continue
                unfinished += 1
                assert root.finished_depth == root.depth - 1
                last, _ = iterative_deepening(
                    p, o, actions, new_table(1 << 12), HAND_EVALUATION, max_depth=root.depth - 1
                )
                assert set(last.best_moves()) & set(root.scores)
                full = search_root(
                    p,
                    o,
                    root.depth,
                    list(root.scores),
                    new_table(1 << 12),
                    new_stats(DISC),
                    HAND_EVALUATION,
                    exact_all=True,
                )
                assert max(root.scores.values()) == max(full.scores.values())
                assert root.best_moves() == full.best_moves()
    assert unfinished > 10


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="scoring"):
        solve_position(GameState.initial(), scoring="fide")
    with pytest.raises(ValueError, match="time_limit"):
        AlphaBetaAgent(time_limit=0)
    with pytest.raises(ValueError, match="threads"):
        AlphaBetaAgent(time_limit=1.0, threads=0)
    with pytest.raises(ValueError, match="selectivity"):
        AlphaBetaAgent(time_limit=1.0, selectivity=-1)
    for proof in (-1, 61, 1.5, True):
        with pytest.raises(ValueError, match="endgame_proof"):
            AlphaBetaAgent(time_limit=1.0, endgame_proof=proof)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="Evaluation"):
        AlphaBetaAgent(2, evaluation="patterns")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="float32"):
        Evaluation("bad", _square_sum, np.zeros(64))


def test_solver_gives_up_at_its_time_limit() -> None:
    _, state, _ = read_ffo()[38 - 20]  # 24 empties: minutes of work
    start = time.perf_counter()
    assert Solver().solve(state, scoring="wof", time_limit=0.2) is None
    assert time.perf_counter() - start < 0.2 + 2.0  # a loose bound: the clock stops it, not the end of the solve


def test_lazy_smp_threads_agree_with_the_solver() -> None:
    for state in endgame_positions(11, 3):
        if len(state.legal_actions()) < 2:
            continue
        sol = solve_position(state)
        assert sol is not None
        agent = AlphaBetaAgent(time_limit=10.0, seed=0, threads=2)
        assert set(agent.best_actions(state)) <= set(sol.best_actions)
        assert agent.last_depth == EXACT_DEPTH


@pytest.mark.parametrize("end", [1, 2, 5, 8, 9, 12, 20, 40, 60])
def test_deepening_goes_one_ply_at_a_time_then_straight_to_the_end(end: int) -> None:
    depths = deepening_depths(end, end)
    assert depths[-1] == end and depths == sorted(set(depths)) and depths[0] >= 1
    *steps, _ = depths
    assert steps == list(range(1, len(steps) + 1))  # one ply at a time up to the jump
    next_depth = len(steps) + 1
    assert next_depth == end or end - next_depth <= EXACT_JUMP  # jumps once the end is this close
    assert not steps or end - len(steps) > EXACT_JUMP  # and not before
    assert deepening_depths(end, end, 0) == list(range(1, end + 1))
    assert deepening_depths(end - 1, end) == list(range(1, end))  # a depth cap short of the end: no jump


def test_the_jump_to_the_end_finds_the_exact_scores_with_fewer_nodes() -> None:
    # 14 empties: one ply at a time, the search spends its nodes on midgame depths
    # 7 to 13 that the exact depth then makes worthless.
    evaluation = pattern_evaluation()
    nodes = {}
    for jump in (0, EXACT_JUMP):
        nodes[jump] = 0
        for seed in range(6):
            state = next(s for s in random_game(seed) if s.num_empty() == 14)
            if state.is_terminal() or state.legal_actions() == [PASS]:
                continue
            p, o = state.kernel_boards()
            root, n = iterative_deepening(p, o, state.legal_actions(), new_table(1 << 16), evaluation, exact_jump=jump)
            solution = solve_position(state)
            assert solution is not None and root.completed and root.depth == 14
            assert max(root.scores.values()) == solution.score * DISC
            assert set(root.best_moves()) <= set(solution.best_actions)
            nodes[jump] += n
    assert nodes[EXACT_JUMP] < nodes[0] / 2


def _positions_by_outcome(empties: int) -> dict[int, tuple[GameState, EndgameSolution]]:
    """A won, a drawn and a lost position (keys 1, 0, -1: the sign of the
    mover's exact score) of ``empties`` empty squares from seeded random games."""
    found: dict[int, tuple[GameState, EndgameSolution]] = {}
    seed = 0
    while len(found) < 3:
        state = next((s for s in random_game(seed) if s.num_empty() == empties), None)
        seed += 1
        if state is None or state.is_terminal() or len(state.legal_actions()) < 2:
            continue
        solution = solve_position(state)
        assert solution is not None
        found.setdefault(int(np.sign(solution.score)), (state, solution))
    return found


def test_win_loss_draw_first_keeps_the_exact_result() -> None:
    # Left to finish: a win or a loss ends exact (the margin searched after the
    # outcome); a draw is played at once, a drawn move scored 0 (nothing is better).
    evaluation = pattern_evaluation()
    for state, solution in _positions_by_outcome(12).values():
        p, o = state.kernel_boards()
        for wld in (12, None):
            root, _ = iterative_deepening(p, o, state.legal_actions(), new_table(1 << 16), evaluation, wld_empties=wld)
            assert root.depth == 12 and set(root.best_moves()) <= set(solution.best_actions)
            assert max(root.scores.values()) == solution.score * DISC
            assert root.completed  # a finished draw is the exact depth done


def test_prove_outcome_given_the_time_is_the_solver_result() -> None:
    # A won, a drawn and a lost position: proven, with a best move and the exact value (a draw's is 0 anyway).
    for state, solution in _positions_by_outcome(12).values():
        p, o = state.kernel_boards()
        root, nodes = prove_outcome(p, o, state.legal_actions(), new_table(1 << 16), pattern_evaluation(), 30.0)
        assert root is not None and root.completed and nodes > 0
        assert set(root.best_moves()) <= set(solution.best_actions)
        assert max(root.scores.values()) == solution.score * DISC


def test_prove_outcome_under_a_clock_claims_only_true_outcomes() -> None:
    # From too short to plenty: whatever it returns is true (a claimed win wins, an exact score is exact).
    solver = Solver()
    proven = 0
    for state in [s for s in endgame_positions(16, 4) if len(s.legal_actions()) > 1]:
        p, o = state.kernel_boards()
        for seconds in (0.001, 0.01, 0.05, 20.0):
            root, _ = prove_outcome(p, o, state.legal_actions(), new_table(1 << 16), pattern_evaluation(), seconds)
            if root is None:
                continue
            top = max(root.scores.values())
            after = solver.solve(state.apply(root.best_moves()[0]))
            assert after is not None and np.sign(-after.score) == np.sign(top), (str(state), seconds)
            if root.completed:
                assert -after.score * DISC == top
            proven += seconds == 20.0
    assert proven >= 3


def test_the_timed_agent_proves_first_and_else_searches_the_midgame(monkeypatch: pytest.MonkeyPatch) -> None:
    import agents.search.alphabeta_agent as alphabeta_agent

    calls: list[RootScores | None] = []

    def recording(*args: object, **kwargs: object) -> tuple[RootScores | None, int]:
        root, nodes = prove_outcome(*args, **kwargs)  # type: ignore[arg-type]
        calls.append(root)
        return root, nodes

    monkeypatch.setattr(alphabeta_agent, "prove_outcome", recording)
    state, solution = _positions_by_outcome(16)[1]
    agent = AlphaBetaAgent(time_limit=5.0, seed=0, evaluation=pattern_evaluation(), endgame_proof=16)
    assert agent.best_actions(state)[0] in solution.best_actions and len(calls) == 1 and calls[0] is not None
    for quiet in (
        AlphaBetaAgent(time_limit=0.5, seed=0, evaluation=pattern_evaluation(), endgame_proof=15),
        AlphaBetaAgent(time_limit=0.5, seed=0, evaluation=pattern_evaluation(), endgame_proof=0),
        AlphaBetaAgent(4, seed=0, evaluation=pattern_evaluation()),
    ):
        assert quiet.best_actions(state)[0] in state.legal_actions() and len(calls) == 1
    # 30 empties cannot be proven in a fifth of a second: the midgame search plays, within the clock.
    deep = next(s for seed in range(9) for s in random_game(seed) if s.num_empty() == 30 and len(s.legal_actions()) > 1)
    agent = AlphaBetaAgent(time_limit=0.4, seed=0, evaluation=pattern_evaluation(), endgame_proof=30)
    clock = search_cpu_clock()
    start = clock()
    move = agent.act(observe(deep, deep.player))
    assert clock() - start < 0.4 + 0.25
    assert len(calls) == 2 and calls[1] is None
    assert move in deep.legal_actions() and 1 <= agent.last_depth < EXACT_DEPTH


def test_win_loss_draw_first_keeps_a_win_the_budget_cuts_short() -> None:
    # Budgets too small for the exact score: a result that claims a win or a
    # draw has one, and some budgets that end on a move that does not win
    # without the outcome search (a midgame guess, or the first move the exact
    # depth scored) end on a winning move with it.
    evaluation, solver = pattern_evaluation(), Solver()
    state, solution = _positions_by_outcome(16)[1]
    p, o = state.kernel_boards()
    actions = state.legal_actions()
    _, full = iterative_deepening(p, o, actions, new_table(1 << 16), evaluation, wld_empties=16)
    kept = 0
    for limit in np.geomspace(full / 50, full, 24).astype(int):
        with_wld, _ = iterative_deepening(
            p, o, actions, new_table(1 << 16), evaluation, node_limit=int(limit), wld_empties=16
        )
        without, _ = iterative_deepening(
            p, o, actions, new_table(1 << 16), evaluation, node_limit=int(limit), wld_empties=None
        )
        if with_wld.depth < 16:
            continue
        move, guess = with_wld.best_moves()[0], without.best_moves()[0]
        child, guessed = solver.solve(state.apply(move)), solver.solve(state.apply(guess))
        assert child is not None and guessed is not None
        assert -child.score * DISC >= with_wld.scores[move] >= 0
        assert not with_wld.completed or with_wld.scores[move] == solution.score * DISC  # finished: exact
        kept += -child.score > 0 >= -guessed.score
    assert kept >= 3


def test_a_lazy_smp_helper_deepens_on_its_own_to_the_exact_end() -> None:
    # Left to run, a helper deepens until the end of the game;
    # its last, exact depth has the solver's score and only best moves at the top.
    for state in endgame_positions(10, 4):
        if len(state.legal_actions()) < 2:
            continue
        p, o = state.kernel_boards()
        sol = solve_position(state)
        assert sol is not None
        helper = _Helper(p, o, new_table(1 << 14), HAND_EVALUATION, 1, 0.0)
        helper.start(state.legal_actions(), deepening_depths(10, 10))
        deadline = time.perf_counter() + 60.0
        while (helper.result is None or helper.result.depth < 10) and time.perf_counter() < deadline:
            time.sleep(0.001)
        helper.stop()
        assert helper.result is not None and helper.result.completed and helper.result.depth == 10
        assert max(helper.result.scores.values()) == sol.score * DISC
        assert set(helper.result.best_moves()) <= set(sol.best_actions)
        assert helper.nodes > 0


def test_probcut_prunes_the_midgame_and_leaves_the_exact_endgame_alone() -> None:
    evaluation = pattern_evaluation()
    full_nodes = cut_nodes = 0
    for seed in range(4):
        state = random_game(seed)[20]
        p, o = state.kernel_boards()
        for selectivity in (0.0, 1.5):
            stats = new_stats(DISC, selectivity=selectivity)
            root = search_root(p, o, 8, state.legal_actions(), new_table(1 << 16), stats, evaluation)
            assert root.completed and root.scores
            if selectivity:
                cut_nodes += int(stats[0])
            else:
                full_nodes += int(stats[0])
    assert cut_nodes < 0.7 * full_nodes
    # The exact mode never prunes: every move's exact score is the solver's.
    for state in endgame_positions(11, 3):
        p, o = state.kernel_boards()
        stats = new_stats(DISC, selectivity=1.0)
        root = search_root(
            p, o, EXACT_DEPTH, state.legal_actions(), new_table(1 << 14), stats, evaluation, exact_all=True
        )
        for action, score in root.scores.items():
            child = solve_position(state.apply(action))
            assert child is not None and score == -child.score * DISC


def test_a_fixed_selective_depth_prunes_and_plays_the_same_move_twice() -> None:
    evaluation = pattern_evaluation()
    selective = AlphaBetaAgent(8, selectivity=1.5, evaluation=evaluation)
    full = AlphaBetaAgent(8, evaluation=evaluation)
    cut_nodes = full_nodes = 0
    for seed in range(4):
        state = random_game(seed)[20]
        runs = [(selective.best_actions(state), selective.last_nodes) for _ in range(2)]
        assert runs[0] == runs[1] and set(runs[0][0]) <= set(state.legal_actions())
        assert selective.last_depth == 8
        cut_nodes += selective.last_nodes
        full.best_actions(state)
        full_nodes += full.last_nodes
    assert cut_nodes < 0.7 * full_nodes


def test_a_fixed_depth_deepens_to_it_and_two_threads_find_the_one_thread_value() -> None:
    evaluation = pattern_evaluation()
    alone_nodes = one_nodes = two_nodes = one_nodes_threaded = 0
    # Sixteen positions: deepening saves nodes on the whole, not in every position.
    for seed in range(16):
        state = random_game(seed)[20]
        p, o = state.kernel_boards()
        stats = new_stats(DISC)
        alone = search_root(p, o, 8, state.legal_actions(), new_table(1 << 16), stats, evaluation)
        alone_nodes += int(stats[0])
        one, nodes = search_depth(p, o, 8, state.legal_actions(), new_table(1 << 16), evaluation)
        one_nodes += nodes
        # Deepening to the depth finds the depth's own best moves and value (full width).
        assert one.depth == 8 and set(one.best_moves()) == set(alone.best_moves())
        assert max(one.scores.values()) == max(alone.scores.values())
        if seed >= 4:
            continue
        one_nodes_threaded += nodes
        two, nodes = search_depth(p, o, 8, state.legal_actions(), new_table(1 << 16), evaluation, threads=2)
        two_nodes += nodes
        assert one.completed and two.completed and two.depth == 8
        assert max(two.scores.values()) == max(one.scores.values())  # full width: the same minimax value
        assert set(two.best_moves()) <= set(one.scores)
    assert one_nodes < alone_nodes  # the shallower depths order the moves
    assert two_nodes != one_nodes_threaded  # one thread is deterministic: a different count is the helper's work
    # The agent passes its threads to a fixed depth, and the exact endgame stays exact.
    agent = AlphaBetaAgent(4, threads=2, seed=0)
    for state in endgame_positions(10, 3):
        sol = solve_position(state)
        assert sol is not None
        assert set(agent.best_actions(state)) <= set(sol.best_actions) and agent.last_depth == EXACT_DEPTH


def test_one_thread_is_deterministic() -> None:
    state = random_game(5)[24]
    p, o = state.kernel_boards()
    runs = [
        iterative_deepening(p, o, state.legal_actions(), new_table(1 << 12), HAND_EVALUATION, node_limit=20_000)
        for _ in range(2)
    ]
    assert runs[0][0] == runs[1][0] and runs[0][1] == runs[1][1]


def test_a_solver_switching_scoring_rules_stays_exact() -> None:
    # X wipes O out by C1 with 9 squares left empty (hashed: more than the last few):
    # the two rules disagree, and one solver's table is reused across them.
    wipe_out = GameState.from_string("XO------" + "X" * 52 + "----" + " X")
    solver = Solver(1 << 12)
    assert [solver.solve(wipe_out, scoring=s).score for s in ("count", "wof", "count")] == [55, 64, 55]  # type: ignore[union-attr]
    for state in endgame_positions(9, 6):
        for scoring in ("wof", "count", "wof"):
            sol = solver.solve(state, scoring=scoring)
            assert sol is not None and sol.score == brute_force(state, scoring == "wof")


def test_the_root_scorer_compiles_no_error_message_formatting() -> None:
    """Copying the root moves with a slice assignment made numba compile its
    shape-mismatch message (string formatting, 2.6 s of a first run) for an
    error that cannot happen: the copy is a loop."""
    compiled = njit(score_moves.signatures[0], nogil=True)(score_moves.py_func)
    assert "raise_with_shape_context" not in compiled.inspect_llvm(compiled.signatures[0])


def test_the_solver_s_presearch_is_selective(monkeypatch: pytest.MonkeyPatch) -> None:
    # FFO #39 (26 empties, a wipe-out): the full-width depth-10 presearch costs more than the exact solve.
    state = next(s for number, s, _ in read_ffo() if number == 39)
    p, o = state.kernel_boards()
    nodes = {}
    for selectivity in (0, endgame.PRESEARCH_SELECTIVITY):
        monkeypatch.setattr(endgame, "PRESEARCH_SELECTIVITY", selectivity)
        stats = new_stats(1, wof=True)
        estimate = endgame.Solver()._presearch(p, o, state.num_empty(), stats)
        assert stats[SELECTIVITY] == 0  # the exact search after it is never selective
        assert estimate > 30  # both see the win
        nodes[selectivity] = int(stats[NODES])
    assert nodes[endgame.PRESEARCH_SELECTIVITY] < nodes[0] / 2
