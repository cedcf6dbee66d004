"""Building an opening book by self-play and deep search (``reversi book``), as Edax and Egaroucid build theirs.

Each walk plays from the start through the book, each move picked at random (seeded) among
the stored moves within ``width`` discs of the position's best, until it plays into a position
the book does not hold: that position's legal moves are all searched ``depth`` plies deep
(alpha-beta with the learned pattern evaluation, every move's value exact at that depth) and
stored, and the values are backed up by negamax along the walk. A walk that reaches ``plies``
plies, a pass or the end of the game adds nothing. The book so grows along its best lines and
the deviations from them that stay near the best; once ``STALE_WALKS`` walks in a row add
nothing, every such line is in the book, to that ply, and the build ends early.

``deepen_book`` searches a book's positions again, deeper, as Edax's ``book deepen`` does:
a book's moves are only as good as its leaves' values, and the back-up's maximum over many
shallow values is optimistic.
"""

from __future__ import annotations

import signal
import time
from collections.abc import Callable, Generator
from contextlib import closing
from dataclasses import dataclass
from multiprocessing import get_context

import numpy as np

from agents.search.alphabeta import iterative_deepening
from agents.search.book import Book, Key, child_key, discs, state_key
from agents.search.evaluation import DISC, Evaluation
from agents.search.patterns import pattern_evaluation
from agents.search.tt import clear_table, new_table
from reversi_env.bitboard import legal_moves
from reversi_env.state import GameState

STALE_WALKS = 1000
"""Walks in a row that add nothing after which a build ends: the book holds every line the width allows."""

BUILD_TABLE_ENTRIES = 1 << 20
"""The build's transposition table (24 MB), kept from one position's search to the next."""


@dataclass(frozen=True)
class BuildSettings:
    """How a book grows.

    Attributes:
        depth: plies each new position's moves are searched to.
        positions: the positions to add (the build may end sooner: ``STALE_WALKS``).
        plies: the deepest ply from the start a stored position may be at.
        width: how many discs below a position's best value a walk's move may be.
        seed: the seed of the walks' choices (a build is reproducible from it).
        selectivity: ProbCut's threshold in standard deviations (0: full width).
    """

    depth: int
    positions: int
    plies: int
    width: float
    seed: int
    selectivity: float = 0.0


@dataclass(frozen=True)
class BuildReport:
    """What a build did: positions added, walks played, seconds taken, whether it ended
    because no walk within the width and plies could add a position (``complete``), and
    whether a Ctrl-C ended it (``interrupted``)."""

    added: int
    walks: int
    seconds: float
    complete: bool
    interrupted: bool = False


@dataclass(frozen=True)
class DeepenReport:
    """What a deepening did: positions searched again, seconds taken, whether a Ctrl-C ended it."""

    deepened: int
    seconds: float
    interrupted: bool = False


def start_key() -> Key:
    """The book's key of the standard start."""
    return state_key(GameState.initial())[0]


def search_position(
    key: Key, depth: int, table: np.ndarray, evaluation: Evaluation, selectivity: float
) -> dict[int, float]:
    """Every legal move's value in the position ``key``, in discs for its mover, ``depth`` plies deep.

    Args:
        key: the position (the mover's and the opponent's bitboards); the mover has a move.
        depth: the plies searched (the end of the game, if nearer, is searched exactly).
        table: the transposition table (``agents.search.tt.new_table``).
        evaluation: the leaves' evaluation.
        selectivity: ProbCut's threshold (0: full width).

    Returns:
        {square: value}, each move's exact value at that depth.
    """
    p, o = np.uint64(key[0]), np.uint64(key[1])
    moves = int(legal_moves(p, o))
    return search_moves(key, [a for a in range(64) if moves >> a & 1], depth, table, evaluation, selectivity)


def search_moves(
    key: Key, actions: list[int], depth: int, table: np.ndarray, evaluation: Evaluation, selectivity: float
) -> dict[int, float]:
    """``search_position`` for the legal moves ``actions`` of ``key`` only ({} for none)."""
    if not actions:
        return {}
    p, o = np.uint64(key[0]), np.uint64(key[1])
    root, _ = iterative_deepening(
        p, o, actions, table, evaluation, max_depth=depth, exact_all=True, selectivity=selectivity
    )
    return {a: root.scores[a] / DISC for a in actions}


def build_book(
    book: Book,
    settings: BuildSettings,
    evaluation: Evaluation,
    progress: Callable[[int], object] | None = None,
) -> BuildReport:
    """Grow ``book`` in place by ``settings.positions`` positions at most (module docstring).

    Args:
        book: the book to extend (empty: a new one, from the start).
        settings: depth, positions, plies, width, seed, selectivity.
        evaluation: the leaves' evaluation (``agents.search.patterns.pattern_evaluation()``).
        progress: called with 1 for each position added (a progress bar's ``update``).

    Returns:
        The build's report. A KeyboardInterrupt (Ctrl-C) ends the build after the last
        position added, and is reported (``interrupted``): the book is whole, to be saved.
    """
    rng = np.random.default_rng(settings.seed)
    table = new_table(BUILD_TABLE_ENTRIES)
    begin = time.perf_counter()
    before, walks, stale = len(book), 0, 0
    interrupted = False
    root = start_key()

    def add(key: Key) -> None:
        book.add(key, search_position(key, settings.depth, table, evaluation, settings.selectivity), settings.depth)
        if progress is not None:
            progress(1)

    try:
        if root not in book:
            add(root)
        while len(book) - before < settings.positions and stale < STALE_WALKS:
            walks += 1
            path = _walk(book, root, settings, rng)
            if path is None:
                stale += 1
                continue
            stale = 0
            add(path[-1])
            for key in reversed(path[:-1]):
                book.back_up_position(key)
    except KeyboardInterrupt:  # a search cut short stores nothing: the book holds whole positions only
        interrupted = True
    book.back_up()
    return BuildReport(len(book) - before, walks, time.perf_counter() - begin, stale >= STALE_WALKS, interrupted)


def _walk(book: Book, root: Key, settings: BuildSettings, rng: np.random.Generator) -> list[Key] | None:
    """One walk from ``root`` through the book: the keys it passed, ending in the first one out
    of the book; None if it reached ``settings.plies``, a pass or the end of the game first."""
    key, path = root, [root]
    while key in book:
        if discs(key) - 4 >= settings.plies:
            return None
        scores = book.positions[key]
        best = max(scores.values())
        near = sorted(a for a, v in scores.items() if v >= best - settings.width)
        child = child_key(key, near[int(rng.integers(len(near)))])
        if child is None:
            return None
        key = child
        path.append(key)
    return path


def deepen_book(
    book: Book,
    depth: int,
    selectivity: float,
    weights: str | None = None,
    *,
    jobs: int = 1,
    progress: Callable[[int], object] | None = None,
) -> DeepenReport:
    """Search every position of ``book`` stored less than ``depth`` plies deep again, ``depth`` deep, in place.

    Args:
        book: the book to deepen; it gains no position.
        depth: the plies each position's moves are searched to.
        selectivity: ProbCut's threshold (0: full width).
        weights: the pattern weights file the searches use (None: the package's).
        jobs: processes searching at once (1: this one).
        progress: called with 1 for each position deepened (a progress bar's ``update``).

    Returns:
        The report. Only a position's moves into positions the book does not hold are
        searched (the others take their child's value), the positions nearest the start
        first; the values are then backed up. A Ctrl-C (KeyboardInterrupt) ends it after
        the positions finished, which keep their new values, and is reported.
    """
    begin = time.perf_counter()
    work = [(key, [a for a in book.positions[key] if child_key(key, a) not in book]) for key in shallow(book, depth)]
    deepened, interrupted = 0, False
    try:
        with closing(_deepened(work, depth, selectivity, weights, jobs)) as results:  # closing ends the pool
            for key, scores in results:
                book.add(key, book.positions[key] | scores, depth)
                deepened += 1
                if progress is not None:
                    progress(1)
    except KeyboardInterrupt:
        interrupted = True
    book.back_up()
    return DeepenReport(deepened, time.perf_counter() - begin, interrupted)


def shallow(book: Book, depth: int) -> list[Key]:
    """The positions of ``book`` stored less than ``depth`` plies deep, nearest the start first:
    the ones ``deepen_book(book, depth, ...)`` searches again, in its order."""
    return sorted((key for key in book if book.depths.get(key, 0) < depth), key=discs)


def _deepened(
    work: list[tuple[Key, list[int]]], depth: int, selectivity: float, weights: str | None, jobs: int
) -> Generator[tuple[Key, dict[int, float]]]:
    """Each (position, its moves' new values) of ``work``, searched in this process or ``jobs`` others."""
    if jobs <= 1:
        _start_worker(weights, install_signal=False)
        for key, actions in work:
            yield _search_work(key, actions, depth, selectivity)
        return
    # A Pool, not a ProcessPoolExecutor: leaving it (a Ctrl-C) terminates the workers at once.
    with get_context("spawn").Pool(jobs, _start_worker, (weights,)) as pool:
        tasks = [(key, actions, depth, selectivity) for key, actions in work]
        yield from pool.imap_unordered(_search_task, tasks)


@dataclass(frozen=True)
class _Searcher:
    """A deepening process's evaluation and transposition table (cleared for each position)."""

    evaluation: Evaluation
    table: np.ndarray


_SEARCHER: _Searcher | None = None


def _start_worker(weights: str | None, install_signal: bool = True) -> None:
    """A deepening process's start: its evaluation and table; in a pool's worker, Ctrl-C is the parent's."""
    global _SEARCHER  # a process pool's initializer: one evaluation and table a process
    if install_signal:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    _SEARCHER = _Searcher(pattern_evaluation(weights), new_table(BUILD_TABLE_ENTRIES))


def _search_task(task: tuple[Key, list[int], int, float]) -> tuple[Key, dict[int, float]]:
    return _search_work(*task)


def _search_work(key: Key, actions: list[int], depth: int, selectivity: float) -> tuple[Key, dict[int, float]]:
    if _SEARCHER is None:
        raise RuntimeError("a deepening search before its process started")
    clear_table(_SEARCHER.table)  # each position's values its own, whichever process searched it before
    return key, search_moves(key, actions, depth, _SEARCHER.table, _SEARCHER.evaluation, selectivity)
