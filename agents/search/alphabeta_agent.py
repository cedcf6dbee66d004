"""The alpha-beta agent: ``AlphaBetaAgent`` plays by the search of ``agents.search.alphabeta``,
to a fixed depth or by iterative deepening in a time a move or a game clock.
"""

from __future__ import annotations

import time

import numpy as np

from agents.clocks import TimeControl, TimeLeft
from agents.search.alphabeta import (
    EXACT_DEPTH,
    INF,
    MAX_ENDGAME_EXACT,
    PROOF_EMPTIES,
    PROOF_SHARE,
    iterative_deepening,
    prove_outcome,
    search_depth,
)
from agents.search.book import Book, book_move
from agents.search.evaluation import HAND_EVALUATION, Evaluation
from agents.search.scored import TieBreakingAgent, check_seconds
from agents.search.timecontrol import StopSignal, game_clock
from agents.search.tt import clear_table, new_table
from reversi_env.observation import Observation
from reversi_env.state import GameState

MAX_DEPTH = 20
"""The deepest fixed-depth search taken: a midgame search deeper than this would not end in any useful time."""

LADDER_TABLE_ENTRIES = 1 << 16
"""A fixed-depth agent's transposition table (1.5 MB), cleared before each move."""
TIMED_TABLE_ENTRIES = 1 << 20
"""A timed agent's transposition table (24 MB), kept from move to move."""


class AlphaBetaAgent(TieBreakingAgent):
    """Alpha-beta on bitboards (numba; ``agents.search.alphabeta``): ``depth``
    plies deep, or with ``time_limit`` seconds a move (or ``game_time``
    seconds for all its moves in a game, a ``GameClock``) by iterative deepening
    under the time manager. Leaves are scored by ``evaluation`` (the
    hand-written square weights, mobility and corners by default). With
    ``exact_empties`` empty squares or fewer (default ``depth + 6`` up to 14, at
    most ``MAX_ENDGAME_EXACT``) a fixed-depth agent solves the endgame exactly instead, maximising the
    final disc difference; a timed one gets there by deepening, and from
    ``endgame_proof`` empty squares down first gives part of its time to
    proving the outcome (``alphabeta.prove_outcome``): a proven win or draw, or
    the exact score, is played, and otherwise the midgame search has the rest."""

    def __init__(
        self,
        depth: int = 4,
        *,
        seed: int | None = None,
        exact_empties: int | None = None,
        time_limit: float | None = None,
        game_time: float | TimeControl | None = None,
        evaluation: Evaluation = HAND_EVALUATION,
        threads: int = 1,
        selectivity: float = 0.0,
        endgame_proof: int = PROOF_EMPTIES,
    ) -> None:
        """``depth`` >= 1 plies (ignored with ``time_limit``, seconds > 0, or
        ``game_time``, seconds > 0 or the game's TimeControl: the clock shares it out, ``GameClock``);
        ``seed`` fixes how ties are broken; ``threads``: helper threads sharing
        the table and the moves (ABDADA; a fixed depth then finishes sooner, and
        only one thread replays its moves exactly); ``selectivity``: ProbCut's threshold in
        standard deviations, 0 for a full-width search (with a fixed depth, a selective level that
        still plays the same move in the same position, as Edax's levels do); ``endgame_proof``
        (timed search only): the empty squares from which the outcome is proven first, 0 for never."""
        if isinstance(depth, bool) or not isinstance(depth, (int, np.integer)) or not 1 <= depth <= MAX_DEPTH:
            raise ValueError(f"depth must be an int from 1 to {MAX_DEPTH}, got {depth!r}")
        if exact_empties is None:
            exact_empties = min(int(depth) + 6, 14)
        if (
            isinstance(exact_empties, bool)
            or not isinstance(exact_empties, (int, np.integer))
            or not 0 <= exact_empties <= MAX_ENDGAME_EXACT
        ):
            raise ValueError(
                f"exact_empties must be an int from 0 to {MAX_ENDGAME_EXACT} (empty squares), got {exact_empties!r}"
            )
        check_seconds("time_limit", time_limit)
        if not isinstance(game_time, TimeControl):
            check_seconds("game_time", game_time)
        if time_limit is not None and game_time is not None:
            raise ValueError("give one time budget: time_limit (a move) or game_time (a game), not both")
        if isinstance(threads, bool) or not isinstance(threads, (int, np.integer)) or not 1 <= threads <= 64:
            raise ValueError(f"threads must be an int from 1 to 64, got {threads!r}")
        if (
            isinstance(selectivity, bool)
            or not isinstance(selectivity, (int, float, np.integer, np.floating))
            or not 0 <= selectivity <= 10
        ):
            raise ValueError(f"selectivity must be a number from 0 to 10, got {selectivity!r}")
        if (
            isinstance(endgame_proof, bool)
            or not isinstance(endgame_proof, (int, np.integer))
            or not 0 <= endgame_proof <= 60
        ):
            raise ValueError(f"endgame_proof must be an int from 0 to 60, got {endgame_proof!r}")
        if not isinstance(evaluation, Evaluation):
            raise TypeError(f"evaluation must be an Evaluation, got {type(evaluation).__name__}")
        super().__init__(seed)
        self.depth = int(depth)
        self.exact_empties = int(exact_empties)
        self.time_limit = None if time_limit is None else float(time_limit)
        self.evaluation = evaluation
        self.threads = int(threads)
        self.selectivity = float(selectivity)
        self.endgame_proof = int(endgame_proof)
        self.clock = None if game_time is None else game_clock(game_time)
        """The game clock a timed search takes each move's time from instead of
        ``time_limit`` (a GTP controller's ``time_settings`` sets one)."""
        self.name = (
            f"alphabeta-{self.time_limit:g}s"
            if self.time_limit is not None
            else f"alphabeta-{self.clock.control.clock_text()}s-game"
            if self.clock is not None
            else f"alphabeta-{self.depth}"
        )
        self.last_depth = 0
        """The depth the last move was searched to (EXACT_DEPTH: solved)."""
        self.last_nodes = 0
        """The nodes the last move's search visited."""
        self._table: np.ndarray | None = None
        self._stop = StopSignal()

    book: Book | None = None
    """The opening book it plays from before it searches (``agents.search.book``; None: none)."""

    def act(self, observation: Observation) -> int:
        """The book's move in a position of ``book``, else the best-scored move (ties at random)."""
        move = book_move(self.book, observation, self.clock)
        return super().act(observation) if move is None else move

    @property
    def timed(self) -> bool:
        """True for a search by the clock (a time a move or a game clock), not by depth."""
        return self.time_limit is not None or self.clock is not None

    def see_time(self, left: TimeLeft) -> None:
        """The referee's clock at the start of a move (``agents.base.ClockedAgent``): a search on
        a game clock shares out what it says is left."""
        if self.clock is not None:
            self.clock.see(left)

    def reset(self) -> None:
        """A new game: the game clock, if any, starts again."""
        if self.clock is not None:
            self.clock.reset()

    def stop(self) -> None:
        """End the search running on another thread as soon as possible: its
        ``act`` returns the best move of the depths it finished (any legal move if none)."""
        self._stop.stop()

    def _scores(self, state: GameState, actions: list[int]) -> list[int]:
        self._stop.begin()
        p, o = state.kernel_boards()
        if self.timed:
            start = time.perf_counter()
            limit = self.time_limit if self.clock is None else self.clock.move_limit(state.num_empty())
            assert limit is not None
            scores = self._timed_scores(state, p, o, actions, start, limit)
            if self.clock is not None:
                self.clock.punch(time.perf_counter() - start)
            return scores
        if self._table is None:
            self._table = new_table(LADDER_TABLE_ENTRIES)
        clear_table(self._table)  # a fixed-depth level plays the same move in the same position
        self.last_depth = EXACT_DEPTH if state.num_empty() <= self.exact_empties else self.depth
        root, self.last_nodes = search_depth(
            p,
            o,
            self.last_depth,
            actions,
            self._table,
            self.evaluation,
            threads=self.threads,
            selectivity=self.selectivity,
            stop=self._stop,
        )
        return [root.scores.get(a, -int(INF)) for a in actions]

    def _timed_scores(
        self, state: GameState, p: np.uint64, o: np.uint64, actions: list[int], start: float, limit: float
    ) -> list[int]:
        """The timed search's scores of ``actions`` in ``limit`` seconds from ``start``."""
        if self._table is None:
            self._table = new_table(TIMED_TABLE_ENTRIES)
        proven, proof_nodes = None, 0
        if state.num_empty() <= self.endgame_proof:
            seconds = PROOF_SHARE * limit
            proven, proof_nodes = prove_outcome(
                p, o, actions, self._table, self.evaluation, seconds, threads=self.threads, stop=self._stop
            )
        if proven is not None:
            root, self.last_nodes = proven, proof_nodes
        else:
            left = max(limit - (time.perf_counter() - start), 1e-3)
            root, nodes = iterative_deepening(
                p,
                o,
                actions,
                self._table,
                self.evaluation,
                time_limit=left,
                threads=self.threads,
                selectivity=self.selectivity,
                stop=self._stop,
            )
            self.last_nodes = proof_nodes + nodes
        depth = root.finished_depth
        self.last_depth = EXACT_DEPTH if depth >= state.num_empty() else depth
        return [root.scores.get(a, -int(INF)) for a in actions]  # an unfinished depth scores only the moves it searched
