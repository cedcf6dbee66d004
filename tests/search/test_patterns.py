"""The pattern evaluation: its windows against a slow reference, its symmetry,
its weights file (shipped, and corrupt ones), and the player built on it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from conftest import random_game

from agents.play.match import play_game
from agents.play.specs import make_agent
from agents.search import patterns as pt
from agents.search.evaluation import DISC
from agents.search.ladder import RandomAgent


def transform(r: int, c: int, transpose: bool, flip_rows: bool, flip_cols: bool) -> int:
    """The image of the square (r, c) under one board symmetry."""
    if transpose:
        r, c = c, r
    if flip_rows:
        r = 7 - r
    if flip_cols:
        c = 7 - c
    return r * 8 + c


SYMS = [(t, fr, fc) for t in (False, True) for fr in (False, True) for fc in (False, True)]


def apply_sym(board: int, sym: tuple[bool, bool, bool]) -> int:
    """The bitboard's image under one symmetry."""
    out = 0
    for sq in range(64):
        if board >> sq & 1:
            out |= 1 << transform(sq // 8, sq % 8, *sym)
    return out


def positions(n_games: int = 12) -> list[tuple[int, int]]:
    """(mover, opponent) boards of every position of a few random games."""
    out = []
    for seed in range(n_games):
        for state in random_game(seed):
            p, o = state.kernel_boards()
            out.append((int(p), int(o)))
    return out


def reference_windows(p: int, o: int) -> list[tuple[str, int]]:
    """Every window as (pattern, canonical index), straight from the definition:
    each symmetric image of a base window whose squares differ from the others'
    is one window; its index is the smallest over the orders that read it."""

    def cell(sq: int) -> int:
        return 1 if p >> sq & 1 else 2 if o >> sq & 1 else 0

    found = []
    for name, base in pt.BASE_PATTERNS.items():
        orders: dict[frozenset[int], list[tuple[int, ...]]] = {}
        for sym in SYMS:
            image = tuple(transform(s // 8, s % 8, *sym) for s in base)
            orders.setdefault(frozenset(image), []).append(image)
        for readings in orders.values():
            values = [sum(cell(sq) * 3 ** (len(r) - 1 - k) for k, sq in enumerate(r)) for r in readings]
            found.append((name, min(values)))
    return sorted(found)


def test_windows_agree_with_a_slow_reference() -> None:
    out = np.zeros(pt.N_WINDOWS, dtype=np.int32)
    checked = 0
    for p, o in positions(6) + random_boards(200, 0):
        pt.window_indices(np.uint64(p), np.uint64(o), out)
        kinds = np.searchsorted(pt.TABLE_OFFSETS, out, side="right") - 1
        ours = sorted((pt.PATTERN_NAMES[k], int(i - pt.TABLE_OFFSETS[k])) for k, i in zip(kinds, out, strict=True))
        assert ours == reference_windows(p, o)
        checked += 1
    assert checked > 500
    assert pt.N_WINDOWS == 46  # Edax's count for this pattern set


def random_boards(n: int, seed: int) -> list[tuple[int, int]]:
    """Disjoint (mover, opponent) boards with every density of discs, not only game positions."""
    rng = np.random.default_rng(seed)
    boards = []
    for _ in range(n):
        cells = rng.choice(3, size=64, p=rng.dirichlet([1.0, 1.0, 1.0]))
        boards.append(
            (sum(1 << s for s in range(64) if cells[s] == 1), sum(1 << s for s in range(64) if cells[s] == 2))
        )
    return boards


def reference_value(p: int, o: int, w: np.ndarray) -> float:
    """The evaluation straight from its definition, square by square in Python."""
    empties = 64 - (p | o).bit_count()
    row = w[min(empties // pt.PHASE_EMPTIES, pt.N_PHASES - 1)].astype(np.float64)
    offsets = dict(zip(pt.PATTERN_NAMES, pt.TABLE_OFFSETS, strict=False))
    total = row[pt.BIAS] + sum(row[offsets[name] + index] for name, index in reference_windows(p, o))
    mobility = int(pt.legal_moves(np.uint64(p), np.uint64(o))).bit_count()
    mobility -= int(pt.legal_moves(np.uint64(o), np.uint64(p))).bit_count()
    return float(total + mobility * row[pt.MOBILITY] + (1 if empties % 2 else -1) * row[pt.PARITY])


def test_the_shipped_evaluation_equals_a_square_by_square_reference_exactly() -> None:
    """The shipped weights are float16 values: their float64 sums are exact in
    any order, so the fast kernels must give the reference's value to the last bit."""
    w = pt.load_weights()
    x = pt.expand_weights(w)
    for p, o in random_boards(400, 1) + positions(2):
        expected = reference_value(p, o, w)
        assert pt.evaluate_raw(np.uint64(p), np.uint64(o), w) == expected
        assert pt.evaluate_expanded(np.uint64(p), np.uint64(o), x) == min(max(expected, -64.0), 64.0)


def test_the_searches_evaluation_equals_the_reference_under_all_eight_symmetries() -> None:
    """``search_evaluate`` (what alpha-beta calls at every leaf) reads the raveled
    expanded weights by its own route: the reference's value, in DISC units, on
    every image of each position."""
    w = pt.load_weights()
    flat = pt.pattern_evaluation().weights
    for p, o in random_boards(150, 4) + positions(1):
        expected = int(min(max(reference_value(p, o, w), -pt.SCORE_LIMIT), pt.SCORE_LIMIT) * DISC)
        for sym in SYMS:
            assert pt.search_evaluate(np.uint64(apply_sym(p, sym)), np.uint64(apply_sym(o, sym)), flat) == expected


def test_the_window_helpers_are_left_to_llvm_to_inline() -> None:
    """numba's IR inlining (``inline="always"``) reruns its passes at each of the
    22 window reads of every evaluation it compiles: 12 s of a first run, for
    the machine code LLVM gives when it inlines them itself."""
    for helper in (pt._window_index, pt._gather):
        assert helper.targetoptions.get("inline", "never") == "never", helper.__name__


def test_expanded_weights_give_the_same_value_to_the_last_bit() -> None:
    w = np.random.default_rng(7).normal(scale=3.0, size=(pt.N_PHASES, pt.N_WEIGHTS)).astype(np.float32)
    x = pt.expand_weights(w)
    assert x.shape == w.shape and x.dtype == np.float32
    for p, o in random_boards(300, 2) + positions(2):
        assert pt.evaluate_expanded(np.uint64(p), np.uint64(o), x) == pt.evaluate(np.uint64(p), np.uint64(o), w)
        assert pt.evaluate_raw(np.uint64(p), np.uint64(o), w) == pytest.approx(reference_value(p, o, w), abs=1e-9)


def test_evaluation_is_the_sum_of_its_terms() -> None:
    rng = np.random.default_rng(3)
    w = rng.normal(size=(pt.N_PHASES, pt.N_WEIGHTS)).astype(np.float32)
    out = np.zeros(pt.N_WINDOWS, dtype=np.int32)
    for p, o in positions(2):
        pt.window_indices(np.uint64(p), np.uint64(o), out)
        empties = 64 - (p | o).bit_count()
        phase = min(empties // pt.PHASE_EMPTIES, pt.N_PHASES - 1)
        mobility = bin(int(pt.legal_moves(np.uint64(p), np.uint64(o)))).count("1") - bin(
            int(pt.legal_moves(np.uint64(o), np.uint64(p)))
        ).count("1")
        parity = 1 if empties % 2 else -1
        row = w[phase].astype(np.float64)
        expected = row[out].sum() + row[pt.BIAS] + mobility * row[pt.MOBILITY] + parity * row[pt.PARITY]
        assert pt.evaluate_raw(np.uint64(p), np.uint64(o), w) == pytest.approx(expected, abs=1e-6)


@pytest.mark.parametrize("weights", ["random", "shipped"])
def test_the_eight_symmetries_give_the_same_value(weights: str) -> None:
    """Random weights fill the non-canonical entries too: a window read without
    its canonical index would show here."""
    if weights == "shipped":
        w = pt.load_weights()
    else:
        w = np.random.default_rng(5).normal(scale=3.0, size=(pt.N_PHASES, pt.N_WEIGHTS)).astype(np.float32)
    values_differ = set()
    for p, o in positions(8):
        base = pt.evaluate_raw(np.uint64(p), np.uint64(o), w)
        values_differ.add(round(base, 3))
        for sym in SYMS[1:]:
            v = pt.evaluate_raw(np.uint64(apply_sym(p, sym)), np.uint64(apply_sym(o, sym)), w)
            assert v == pytest.approx(base, abs=1e-6), (p, o, sym)
    assert len(values_differ) > 100  # the evaluation is not a constant


def test_clamped_to_the_disc_range() -> None:
    w = np.full((pt.N_PHASES, pt.N_WEIGHTS), 100.0, dtype=np.float32)
    p, o = random_game(1)[10].kernel_boards()
    assert pt.evaluate(p, o, w) == pt.SCORE_LIMIT
    assert pt.evaluate(p, o, -w) == -pt.SCORE_LIMIT


def test_shipped_weights_record_their_training() -> None:
    shipped = pt.read_weights(pt.shipped_weights_path())
    meta = shipped.metadata
    assert meta["command"].startswith("reversi train-eval ")
    assert meta["positions"] > 100_000 and meta["seconds"] > 0
    # A chain of runs, each going on (--init) from the last; the first started from the hand-written evaluation.
    link, stages = meta, 1
    while link.get("init") is not None:
        assert " --init " in link["command"]
        link, stages = link["init"], stages + 1
        assert link["command"].startswith("reversi train-eval ") and len(link["sha256"]) == 64
    assert " --init " not in link["command"] and stages >= 2
    assert meta["layout"]["patterns"] == {k: list(v) for k, v in pt.BASE_PATTERNS.items()}
    assert pt.shipped_weights_path().stat().st_size < 5_000_000


def test_weights_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "w.npz"
    w = np.random.default_rng(0).normal(size=(pt.N_PHASES, pt.N_WEIGHTS)).astype(np.float32)
    pt.save_weights(path, w, {"command": "test"})
    back = pt.read_weights(path)
    assert back.metadata["command"] == "test"
    np.testing.assert_allclose(back.weights, w, rtol=1e-3, atol=1e-3)  # stored as float16


def test_weights_float16_cannot_hold_are_refused_and_not_written(tmp_path: Path) -> None:
    path = tmp_path / "w.npz"
    w = np.zeros((pt.N_PHASES, pt.N_WEIGHTS), np.float32)
    w[3, 7] = 1e30  # finite as float32, inf as float16: read_weights would refuse the file
    with pytest.raises(ValueError, match="float16"):
        pt.save_weights(path, w, {"command": "test"})
    assert not path.exists() and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("kind", ["garbage", "text", "pickled", "shape", "nan", "no-metadata", "deep-metadata"])
def test_a_corrupt_weights_file_is_one_clear_error(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "w.npz"
    if kind == "garbage":
        path.write_bytes(b"PK\x03\x04 not really a zip file")
    elif kind == "text":
        path.write_text("garbage")  # numpy takes it for a pickle and advises loading it unsafely
    elif kind == "pickled":
        np.savez(path, weights=np.array([{"a": 1}], dtype=object), metadata=np.array("{}"))
    elif kind == "shape":
        np.savez(path, weights=np.zeros((3, 3), np.float16), metadata=np.array("{}"))
    elif kind == "nan":
        np.savez(path, weights=np.full((pt.N_PHASES, pt.N_WEIGHTS), np.nan, np.float16), metadata=np.array("{}"))
    elif kind == "deep-metadata":  # was a RecursionError from json.loads
        deep = "[" * 100_000 + "]" * 100_000
        np.savez(path, weights=np.zeros((pt.N_PHASES, pt.N_WEIGHTS), np.float16), metadata=np.array(deep))
    else:
        np.savez(path, weights=np.zeros((pt.N_PHASES, pt.N_WEIGHTS), np.float16))
    with pytest.raises(pt.CorruptWeightsError, match=r"w\.npz") as raised:
        pt.read_weights(path)
    assert "\n" not in str(raised.value) and "allow_pickle" not in str(raised.value)


def test_the_pattern_player_plays_legal_moves_and_beats_random() -> None:
    wins = 0
    for seed in range(6):
        me = make_agent("pattern", seed=seed)
        assert isinstance(me, pt.PatternAgent)
        other = RandomAgent(seed=seed)
        black, white = (me, other) if seed % 2 == 0 else (other, me)
        result = play_game(black, white, time_limit=None)
        assert result.reason == "end"
        wins += result.winner == ("black" if seed % 2 == 0 else "white")
    assert wins >= 5


def test_one_ply_values_are_exact_at_the_end_and_negated_evaluations_before() -> None:
    w = pt.load_weights()
    for state in random_game(4)[:-1]:
        if not state.moves_bitboard:
            continue
        p, o = state.kernel_boards()
        scores = np.full(64, np.nan)
        pt.child_values(p, o, w, scores)
        for a in state.legal_actions():
            child = state.apply(a)
            cp, co = child.kernel_boards()
            if child.is_terminal():
                expected = float(child.disc_difference() * (1 if state.player == 0 else -1))
            elif child.player == state.player:
                expected = pt.evaluate(cp, co, w)
            else:
                expected = -pt.evaluate(cp, co, w)
            assert scores[a] == pytest.approx(expected)


def test_a_weights_file_is_read_once_per_version(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``pattern_evaluation(path)`` is shared while the file is unchanged (8 MB a copy), and reread once it changes."""
    monkeypatch.chdir(tmp_path)
    zeros = np.zeros((pt.N_PHASES, pt.N_WEIGHTS), dtype=np.float32)
    pt.save_weights("mine.npz", zeros, {})
    first = pt.pattern_evaluation("mine.npz")
    assert pt.pattern_evaluation(tmp_path / "mine.npz") is first and not first.weights.any()
    assert pt.load_weights("mine.npz") is pt.load_weights(tmp_path / "mine.npz")
    pt.save_weights("mine.npz", zeros + 1, {})  # a new version, retrained in place (same size, maybe same mtime)
    second = pt.pattern_evaluation("mine.npz")
    assert second is not first and second.weights.all() and pt.load_weights("mine.npz").all()
    assert pt.pattern_evaluation() is pt.pattern_evaluation() and pt.load_weights() is pt.load_weights()
