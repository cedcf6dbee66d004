"""The opening book: symmetric lookup, negamax back-up, the build, files read as data, the players' ``book`` option."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import numpy as np
import pytest
from conftest import run_cli

from agents.clocks import TimeControl
from agents.play.specs import SpecError, canonical_spec, make_agent
from agents.search.alphabeta_agent import AlphaBetaAgent
from agents.search.book import (
    Book,
    BookError,
    book_move,
    canonical,
    child_key,
    image,
    load_book,
    read_book,
    shipped_book_path,
)
from agents.search.book_build import BuildSettings, build_book, deepen_book, search_moves, search_position, start_key
from agents.search.mcts import MCTSAgent
from agents.search.patterns import pattern_evaluation
from agents.search.timecontrol import GameClock
from agents.search.tt import new_table
from agents.ui.cli import build_parser
from reversi_env.observation import observe
from reversi_env.state import GameState
from reversi_env.symmetry import NUM_SYMMETRIES, SYMMETRIES, transform_state

DEPTH = 2


@pytest.fixture(scope="module")
def tiny() -> Book:
    """A book of 40 positions, searched 2 plies deep, seed 1."""
    book = Book()
    build_book(book, BuildSettings(DEPTH, 40, 12, 2.0, 1), pattern_evaluation())
    return book


def line(plies: int, seed: int = 0) -> list[GameState]:
    """The positions of a seeded random game's first ``plies`` plies, the start first."""
    rng = np.random.default_rng(seed)
    states = [GameState.initial()]
    for _ in range(plies):
        actions = states[-1].legal_actions()
        states.append(states[-1].apply(int(rng.choice(actions))))
    return states


def movers(state: GameState) -> tuple[int, int]:
    return (state.black, state.white) if state.player == 0 else (state.white, state.black)


def test_image_moves_a_board_as_the_symmetry_moves_its_squares() -> None:
    state = line(12, seed=3)[-1]
    for k in range(NUM_SYMMETRIES):
        moved = transform_state(k, state)
        assert (image(k, state.black), image(k, state.white)) == (moved.black, moved.white)


def test_the_eight_images_of_a_position_share_one_key() -> None:
    for state in line(16, seed=5)[1:]:
        keys = {canonical(*movers(transform_state(k, state)))[0] for k in range(NUM_SYMMETRIES)}
        assert len(keys) == 1
        key, k = canonical(*movers(state))
        assert key == (image(k, movers(state)[0]), image(k, movers(state)[1]))


def test_lookup_under_every_symmetry_gives_the_moved_move_and_a_legal_one(tiny: Book) -> None:
    in_book = 0
    for seed in range(6):
        for state in line(8, seed):
            move = tiny.move(state)
            if move is None:
                continue
            in_book += 1
            assert move in state.legal_actions()
            for k in range(NUM_SYMMETRIES):
                moved = transform_state(k, state)
                scores, moved_scores = tiny.scores(state), tiny.scores(moved)
                assert scores is not None and moved_scores is not None
                assert moved_scores == {int(SYMMETRIES[k][a]): v for a, v in scores.items()}
                assert tiny.move(moved) in moved.legal_actions()
    assert in_book > 6  # the start and more: the lines do pass through the book


def test_values_are_backed_up_by_negamax_and_leaves_are_the_deep_search(tiny: Book) -> None:
    backed = 0
    for key, scores in tiny.positions.items():
        for square, value in scores.items():
            child = child_key(key, square)
            if child is not None and child in tiny:
                assert value == -tiny.value(child)
                backed += 1
    assert backed >= len(tiny) - 1  # every position but the start is some move's child
    root = start_key()
    searched = search_position(root, DEPTH, new_table(1 << 16), pattern_evaluation(), 0.0)
    for square, value in tiny.positions[root].items():
        child = child_key(root, square)
        assert child in tiny or value == searched[square]


def test_a_build_is_reproducible_from_its_seed_and_its_file_reads_back(tiny: Book, tmp_path: Path) -> None:
    again = Book()
    build_book(again, BuildSettings(DEPTH, 40, 12, 2.0, 1), pattern_evaluation())
    assert again.positions == tiny.positions
    other = Book()
    build_book(other, BuildSettings(DEPTH, 40, 12, 2.0, 2), pattern_evaluation())
    assert other.positions != tiny.positions
    path = tmp_path / "tiny.npz"
    tiny.save(path)
    read = read_book(path)
    assert read.positions.keys() == tiny.positions.keys()
    for key, scores in tiny.positions.items():
        assert read.positions[key] == pytest.approx(scores, abs=1e-3)
        assert read.depths[key] == DEPTH


def test_a_build_stops_when_every_line_within_the_width_is_in() -> None:
    book = Book()
    report = build_book(book, BuildSettings(1, 10_000, 2, 0.0, 0), pattern_evaluation())
    assert report.complete and report.added == len(book) < 10_000
    assert max(bin(k[0] | k[1]).count("1") for k in book) - 4 <= 2


def test_deepening_searches_every_shallow_position_again_in_this_process_or_in_others(tiny: Book) -> None:
    book = Book({key: dict(scores) for key, scores in tiny.positions.items()}, dict(tiny.depths))
    ticks: list[int] = []
    report = deepen_book(book, DEPTH + 2, 0.0, jobs=1, progress=ticks.append)
    assert report.deepened == len(ticks) == len(tiny) and not report.interrupted
    assert book.positions.keys() == tiny.positions.keys() and set(book.depths.values()) == {DEPTH + 2}
    searched = 0
    for key, scores in book.positions.items():
        assert scores.keys() == tiny.positions[key].keys()
        out = [a for a in scores if child_key(key, a) not in book]  # only these are searched
        fresh = search_moves(key, out, DEPTH + 2, new_table(1 << 16), pattern_evaluation(), 0.0)
        for square, value in scores.items():
            child = child_key(key, square)
            if child is not None and child in book:
                assert value == -book.value(child)  # the back-up holds after the new values
            else:
                assert value == fresh[square]
                searched += 1
    assert searched > len(book)
    assert book.positions != tiny.positions  # two plies deeper, values move
    pooled = Book({key: dict(scores) for key, scores in tiny.positions.items()}, dict(tiny.depths))
    assert deepen_book(pooled, DEPTH + 2, 0.0, jobs=2).deepened == len(tiny)  # two real worker processes
    assert pooled.positions == book.positions and pooled.depths == book.depths
    again = deepen_book(book, DEPTH + 2, 0.0, jobs=2)
    assert again.deepened == 0  # nothing is stored shallower than asked


def test_a_deepening_cut_short_keeps_the_positions_it_finished_and_the_back_up() -> None:
    book = Book()
    build_book(book, BuildSettings(1, 30, 12, 2.0, 4), pattern_evaluation())

    def interrupt_at_five(_: int) -> None:
        if sum(depth == 3 for depth in book.depths.values()) == 5:
            raise KeyboardInterrupt

    report = deepen_book(book, 3, 0.0, progress=interrupt_at_five)
    assert report.interrupted and report.deepened == 5
    assert sorted(book.depths.values()) == [1] * 25 + [3] * 5
    nearest_first = sorted(book, key=lambda key: bin(key[0] | key[1]).count("1"))
    assert {book.depths[key] for key in nearest_first[:5]} == {3}  # the positions nearest the start first
    for key, scores in book.positions.items():
        for square, value in scores.items():
            child = child_key(key, square)
            assert child is None or child not in book or value == -book.value(child)


def test_the_seeded_choice_among_near_moves_varies_and_none_is_always_the_best(tiny: Book) -> None:
    state = GameState.initial()
    scores = tiny.scores(state)
    assert scores is not None and len(scores) == 4  # the four openings are one up to symmetry
    assert {tiny.move(state) for _ in range(8)} == {min(scores)}
    rng = np.random.default_rng(0)
    assert {tiny.move(state, margin=0.0, rng=rng) for _ in range(40)} == set(scores)


def book_with_move(path: Path, state: GameState, best: int) -> None:
    """A book file of the one position ``state`` in which ``best`` is the best move."""
    key, k = canonical(*movers(state))
    book = Book()
    book.add(key, {int(SYMMETRIES[k][a]): (10.0 if a == best else -10.0) for a in state.legal_actions()}, 1)
    book.save(path)


def test_the_booked_player_plays_the_books_move_and_book_0_plays_the_search(tmp_path: Path) -> None:
    state = GameState.initial().apply(19).apply(18)  # D3 C3
    search = AlphaBetaAgent(2, seed=0).act(observe(state, state.player))
    odd = next(a for a in state.legal_actions() if a != search)
    path = tmp_path / "odd.npz"
    book_with_move(path, state, odd)
    for spec in (f"alphabeta:2,book={path}", f"alphabeta:time=0.05,book={path}", f"mcts:sims=50,book={path}"):
        assert make_agent(spec, seed=0).act(observe(state, state.player)) == odd, spec
    assert make_agent("alphabeta:2,book=0", seed=0).act(observe(state, state.player)) == search


def test_book_0_plays_as_the_agent_without_a_book() -> None:
    booked = make_agent("mcts:sims=300,book=1", seed=4)
    assert isinstance(booked, MCTSAgent) and booked.book is load_book()
    plain, without = make_agent("mcts:sims=300,book=0", seed=4), MCTSAgent(simulations=300, seed=4)
    assert isinstance(plain, MCTSAgent) and plain.book is None
    state = GameState.initial()
    for _ in range(6):
        obs = observe(state, state.player)
        move = plain.act(obs)
        assert move == without.act(obs)
        state = state.apply(move)


def test_a_search_by_time_plays_from_the_book_and_a_fixed_budget_only_when_asked() -> None:
    booked = (
        "mcts",
        "mcts:time=0.1",
        "mcts:clock=30",
        "alphabeta:time=0.1",
        "alphabeta:clock=30",
        "mcts:sims=10,book=1",
    )
    for spec in (*booked, "alphabeta:3,book=1", "mcts:uct=1,book=1"):
        assert getattr(make_agent(spec), "book", None) is load_book(), spec
    unbooked = ("mcts:sims=10", "mcts:iters=10", "mcts:uct=1", "alphabeta", "alphabeta:3", "mcts:time=0.1,book=0")
    for spec in (*unbooked, "alphabeta:time=1,book=0", "mcts:clock=30,book=0"):
        assert getattr(make_agent(spec), "book", "none") is None, spec
    assert canonical_spec("mcts:time=1,book=1") == "mcts:time=1"  # the default is not spelled out
    assert canonical_spec("mcts:time=1,book=0") == "mcts:time=1,book=0"
    assert canonical_spec("alphabeta:3,book=0") == "alphabeta:3"
    assert canonical_spec("alphabeta:time=1,book=0") == "alphabeta:time=1,book=0"
    assert make_agent("mcts:time=0.1,book=0").name.endswith("book=0")
    assert book_move(None, observe(GameState.initial(), 0)) is None


@pytest.mark.parametrize("spec", ["mcts:clock=30,book=1", "alphabeta:clock=30,book=1"])
def test_a_book_move_on_a_byo_yomi_clock_is_one_of_the_periods_moves(spec: str) -> None:
    player = make_agent(spec, seed=0)
    clock = GameClock(TimeControl(clock=0.0, overtime=2.0, overtime_moves=4))  # byo-yomi only: 2 s every 4 moves
    player.clock = clock  # type: ignore[attr-defined]  # as a GTP controller's time_settings sets it
    clock.reset()
    state = GameState.initial()
    for moves_left in (4, 3):  # the first move overruns the main time of 0 s: the period starts
        move = player.act(observe(state, state.player))
        assert move == load_book().move(state) and clock.moves_left == moves_left
        state = state.apply(move).apply(load_book().move(state.apply(move)) or 0)
    assert 2.0 - 0.5 < clock.left <= 2.0


def npz(path: Path, **arrays: object) -> Path:
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)  # type: ignore[arg-type]
    path.write_bytes(buffer.getvalue())
    return path


GOOD = {
    "boards": np.array([[1 << 28 | 1 << 35, 1 << 27 | 1 << 36]], dtype=np.uint64),
    "offsets": np.array([0, 1], dtype=np.int64),
    "squares": np.array([19], dtype=np.uint8),
    "scores": np.array([0.5], dtype=np.float32),
    "depths": np.array([4], dtype=np.uint8),
    "metadata": np.array('{"format": 1}'),
}


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ({"scores": np.array([np.nan], dtype=np.float32)}, "not numbers of discs"),
        ({"scores": np.array([100.0], dtype=np.float32)}, "not numbers of discs"),
        ({"squares": np.array([28], dtype=np.uint8)}, "occupied squares"),
        ({"squares": np.array([64], dtype=np.uint8)}, "not squares"),
        ({"offsets": np.array([0, 2], dtype=np.int64)}, "offsets"),
        ({"offsets": np.array([0], dtype=np.int64)}, "do not fit together"),
        ({"boards": np.array([[3, 1]], dtype=np.uint64)}, "two discs on one square"),
        ({"metadata": np.array('{"format": 9}')}, "format 1"),
        ({"metadata": np.array("[1, NaN]")}, "opening-book file"),
        ({"scores": np.array([0.5], dtype=object)}, "opening-book file"),
        ({"boards": np.zeros((1, 3), dtype=np.uint64)}, "shape"),
    ],
)
def test_a_corrupt_book_file_gets_one_line(tmp_path: Path, change: dict[str, object], why: str) -> None:
    path = npz(tmp_path / "bad.npz", **(GOOD | change))
    with pytest.raises(BookError) as error:
        read_book(path)
    message = str(error.value)
    assert why in message and "\n" not in message and str(path) in message


def test_hostile_files_are_refused_before_anything_is_read(tmp_path: Path) -> None:
    npz(tmp_path / "good.npz", **GOOD)
    assert len(read_book(tmp_path / "good.npz")) == 1
    (tmp_path / "text.npz").write_text("not a book")
    bomb = tmp_path / "bomb.npz"
    with zipfile.ZipFile(bomb, "w") as archive:  # a header that declares a terabyte
        header = b"\x93NUMPY\x01\x00" + b"{'descr': '<f4', 'fortran_order': False, 'shape': (1000000000000,), }"
        archive.writestr("scores.npy", header.ljust(126) + b"\n")
    for path in (tmp_path / "text.npz", bomb, tmp_path, Path("/dev/zero")):
        with pytest.raises(BookError) as error:
            read_book(path)
        assert "\n" not in str(error.value)
    with pytest.raises(SpecError, match="cannot build player") as spec_error:
        make_agent(f"mcts:time=0.1,book={tmp_path / 'text.npz'}")
    assert "\n" not in str(spec_error.value)


def test_the_command_builds_and_extends_a_book_and_records_each_build(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "book.npz"
    status, err = run_cli(["book", "--out", str(out), "--depth", "2", "--positions", "12", "--no-progress"], capsys)
    assert status == 0, err
    first = read_book(out)
    assert len(first) == 12 and len(first.metadata["commands"]) == 1
    args = ["book", "--extend", str(out), "--out", str(out), "--depth", "1", "--positions", "5", "--seed", "3"]
    status, err = run_cli([*args, "--no-progress"], capsys)
    assert status == 0, err
    second = read_book(out)
    assert len(second) == 17 and first.positions.keys() < second.positions.keys()
    assert [b["added"] for b in second.metadata["builds"]] == [12, 5]
    recorded = build_parser().parse_args(second.metadata["commands"][1].split()[1:])
    asked = build_parser().parse_args(args)
    assert vars(recorded).keys() == vars(asked).keys()
    assert all(getattr(recorded, k) == getattr(asked, k) for k in vars(asked) if k not in ("func", "no_progress"))


def test_the_command_deepens_a_book_and_records_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "book.npz"
    status, err = run_cli(["book", "--out", str(out), "--depth", "1", "--positions", "10", "--no-progress"], capsys)
    assert status == 0, err
    args = ["book", "--extend", str(out), "--out", str(out), "--deepen", "--depth", "3", "--jobs", "2"]
    status, err = run_cli([*args, "--no-progress"], capsys)
    assert status == 0, err
    deep = read_book(out)
    assert len(deep) == 10 and set(deep.depths.values()) == {3}
    assert [b["added"] for b in deep.metadata["builds"]] == [10, 0] and deep.metadata["builds"][1]["deepened"] == 10
    recorded = build_parser().parse_args(deep.metadata["commands"][1].split()[1:])
    asked = build_parser().parse_args(args)
    assert all(
        getattr(recorded, k) == getattr(asked, k) for k in ("extend", "out", "deepen", "depth", "probcut", "jobs")
    )
    status, err = run_cli(["book", "--out", str(tmp_path / "new.npz"), "--deepen"], capsys)
    assert status == 2 and not (tmp_path / "new.npz").exists()
    assert err.strip().splitlines() == ["reversi book: error: --deepen needs the book to deepen: --extend FILE"]


def test_the_command_refuses_a_corrupt_book_in_one_line_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = npz(tmp_path / "bad.npz", **(GOOD | {"squares": np.array([28], dtype=np.uint8)}))
    out = tmp_path / "out.npz"
    status, err = run_cli(["book", "--extend", str(bad), "--out", str(out), "--no-progress"], capsys)
    assert status == 2 and not out.exists()
    why = "is not an opening-book file: it holds moves on occupied squares"
    assert err.strip().splitlines() == [f"reversi book: error: {str(bad)!r} {why}"]
    status, err = run_cli(["book", "--extend", str(tmp_path / "none.npz"), "--out", str(out)], capsys)
    assert status == 2 and len(err.strip().splitlines()) == 1 and "no such file" in err


def test_the_shipped_book_loads_and_its_recorded_command_made_it() -> None:
    book = load_book()
    assert len(book) == book.metadata["positions"] > 100
    start = GameState.initial()
    assert book.move(start) in start.legal_actions()
    builds = book.metadata["builds"]
    assert sum(build["added"] for build in builds) == len(book)
    assert book.metadata["seconds"] == pytest.approx(sum(build["seconds"] for build in builds), abs=0.2)
    deepest = 0
    for command in book.metadata["commands"]:
        words = command.split()
        assert words[:2] == ["reversi", "book"]
        args = build_parser().parse_args(words[1:])
        assert args.command == "book" and Path(args.out).name == shipped_book_path().name
        deepest = args.depth if args.deepen else max(deepest, args.depth)
    assert {book.depths[key] for key in book} == {deepest}  # a deepening searched every position again
