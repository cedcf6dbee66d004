"""Our players as NBoard engines: ``reversi nboard --player SPEC`` speaks the
NBoard protocol (version 2) on stdin/stdout, as Edax and NTest do, so NBoard,
the GUI Othello players use most, can play against any player spec, show its
hints with scores and analyse games with it.

Commands (one a line; anything else is ignored, as the protocol asks):

- ``nboard 2`` (or ``nboard 1``): the handshake, answered ``set myname NAME``;
- ``set depth N``: the search depth. It sets the depth of an ``alphabeta``
  spec that leaves its depth open (at most ``MAX_DEPTH``); a spec that fixes
  its strength (``alphabeta:4``, ``alphabeta:time=1``, ``level:3``, ``mcts:time=2``...) keeps it.
  Answered ``set myname NAME`` with the depth in force;
- ``set game GGF``: the position at the end of that game (read with
  ``agents.play.records.from_ggf``) and its clock (``TI``, or ``TB`` / ``TW``:
  ``records.ggf_clocks``); ``set contempt N`` is accepted and has no
  effect (draws score 0);
- ``move F5/EVAL/TIME`` (or ``move PA``, or just ``move F5``): a move played,
  in TIME seconds;
- ``go``: the player's move, ``=== F5/EVAL/TIME`` (``PA`` for a pass), the
  board unchanged until NBoard sends the ``move``. EVAL is the move's exact
  score near the end (unless a ``ping`` stops that solve), else an MCTS
  player's own estimate, else 0;
- ``hint N``: the N best moves, one ``search MOVE EVAL 0 DEPTH`` line each;
- ``analyze``: ``analysis PLY EVAL`` for every position of the game, last first;
- ``ping N`` -> ``pong N``, ``learn`` -> ``learned``, ``quit``.

Scores are from the side to move, in discs. With ``HINT_EXACT_EMPTIES`` empty
squares or fewer every move is solved exactly (``agents.search.endgame``) and
its depth reads ``100%``; earlier, hints come from MCTS (the player itself if
it is an MCTS player, else an MCTS of ``default_time`` seconds): a move's mean
result ``v`` in [-1, 1] shows as ``64 v`` (a sure win +64, not a predicted
margin) and its depth field carries the move's visits; a forced pass is worth
the opponent's best reply, negated. Commands run one after
another, so ``pong N`` always follows everything sent before ``ping N``; a
``ping`` (or ``quit``) read while a ``go``, ``hint`` or ``analyze`` of our own
players searches stops that search, as the protocol asks and Edax does, and
the command answers with what it found (``INTERRUPTS``). A player on a game
clock (``clock=``) plays a ``go`` on what the game's clock leaves it: the main
time and increments less the times of its moves, those of the game and of
the ``move`` commands since.
A malformed command gets one ``status`` line saying what was wrong.

A misbehaving player cannot break the session (as under ``reversi gtp``, see
``agents.play.gtp_server``): black's player is built at start-up, so a spec
that cannot be built is one line before any command; under ``--time-limit``
(default 60 s; ``off``: no limit, every player in this process) a ``python:``
or ``classic:`` player runs in a process of its own and a ``go`` it does not
answer in time stops it. NBoard has no failure answer to ``go``, so a late
move, a crash, an exception or ``sys.exit()`` in the player is one ``status
player timeout: ...`` / ``status player error: ...`` line, which NBoard shows
in its status bar; no move is sent, the player is rebuilt at its next ``go``
and the session goes on. What a player prints goes to stderr.
"""

from __future__ import annotations

import queue
import re
import sys
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import TextIO

from agents.base import TimedAgent, stop_agent, tell_time
from agents.clocks import Clock
from agents.play.gtp_server import EngineSeats, engine_move, player_failure
from agents.play.isolation import read_answer, safe_repr
from agents.play.records import GGFClock, RecordError, from_ggf, ggf_clocks
from agents.play.specs import PlayerSpec
from agents.search.book import book_value
from agents.search.endgame import SCORE_MAX, Solver
from agents.search.mcts import MCTSAgent, SearchResult
from agents.search.timecontrol import GameClock
from reversi_env.errors import InvalidMoveError
from reversi_env.notation import PASS, action_name, parse_action
from reversi_env.observation import observe
from reversi_env.state import GameState, Player

PROTOCOL_VERSION = 2
"""The NBoard protocol version spoken."""
MAX_DEPTH = 20
"""The deepest ``alphabeta`` NBoard's depth can ask for (``AlphaBetaAgent``'s limit)."""
HINT_EXACT_EMPTIES = 14
"""From this many empty squares down, hints and analyses are exact endgame solves."""
HINT_TABLE_ENTRIES = 1 << 16
"""The exact hints' transposition table (``solve_position``'s up to 14 empty squares)."""
EXACT_DEPTH = "100%"
"""The depth field of an exact score, as NBoard engines write it."""
INTERRUPTS = ("ping", "quit")
"""Commands that stop the search under way as soon as they are read, as Edax
does: NBoard pings before it changes the position and drops what the engine
said before the pong, and the protocol asks the engine to stop thinking then."""


class NBoardError(Exception):
    """A command the server cannot carry out: answered with one ``status`` line."""


@dataclass(frozen=True)
class Hint:
    """One scored move: ``score`` in discs for the side to move, ``depth`` the
    protocol's depth field, ``pv`` the line expected from here (starting with ``action``)."""

    action: int
    score: float
    depth: str
    pv: tuple[int, ...]


def move_word(action: int) -> str:
    """The protocol's name of an action: ``F5``, or ``PA`` for a pass."""
    return "PA" if action == PASS else action_name(action)


class NBoardServer(EngineSeats):
    """The state of one NBoard session: the game (start and moves), the depth
    NBoard asked for, and the player of each colour (built when first asked)."""

    def __init__(
        self,
        spec: str,
        *,
        seed: int | None = None,
        default_time: float = 1.0,
        time_limit: float | None = 60.0,
        out: TextIO = sys.stdout,
    ) -> None:
        """``spec`` is a player spec (``agents.play.specs``); ValueError if it is
        malformed. ``time_limit``: seconds a ``go`` (see the module docstring)."""
        super().__init__(spec, seed=seed, default_time=default_time, time_limit=time_limit)
        self.out = out
        self.start = GameState.initial()
        self.moves: list[int] = []
        self.times: list[float] = []
        """Each move's seconds, as the game and the ``move`` commands gave them."""
        self.clocks: dict[Player, GGFClock] = {}
        """Each colour's clock, as the game's ``TI`` / ``TB`` / ``TW`` set it (none: no clock)."""
        self.state = self.start
        self._hinter: MCTSAgent | None = None
        self.depth: int | None = None
        """The depth NBoard's ``set depth`` gave an ``alphabeta`` spec that leaves it open."""
        self._lock = threading.Lock()
        self._searching: object = None
        """The player or MCTS whose search runs now (``serve``'s reader stops it)."""
        self._command = 0
        """The number of the line being carried out (``serve`` counts them from 1)."""
        self._finished = 0
        """The number of the last line carried out."""
        self._stopped = 0
        """The number of the last line whose search an ``INTERRUPTS`` line stopped."""
        self.commands = {
            "nboard": self._nboard,
            "set": self._set,
            "move": self._move,
            "go": self._go,
            "hint": self._hint,
            "analyze": self._analyze,
            "ping": lambda args: self._send(f"pong {' '.join(args)}".rstrip()),
            "learn": lambda args: self._send("learned"),
        }

    # -- output ---------------------------------------------------------------------

    def _send(self, line: str) -> None:
        self.out.write(line + "\n")
        self.out.flush()

    @property
    def name(self) -> str:
        """The engine's name for ``set myname`` (one word, as NBoard reads it)."""
        text = self.spec.text
        if self.depth is not None:  # the spec with the depth in force: "alphabeta:depth=6"
            text = text.rstrip(":") + f"{',' if self.spec.options else ':'}depth={self.depth}"
        return re.sub(r"\s+", "_", f"reversi-{text}")

    # -- commands -------------------------------------------------------------------

    def _nboard(self, args: list[str]) -> None:
        if args not in (["1"], [str(PROTOCOL_VERSION)]):  # NBoard 1.x says 1: the commands we use are the same
            self._send(f"status reversi speaks NBoard protocol {PROTOCOL_VERSION}, not {' '.join(args) or '?'}")
        self._send(f"set myname {self.name}")

    def _set(self, args: list[str]) -> None:
        if not args:
            raise NBoardError("set what? (depth, game, contempt)")
        key, rest = args[0].lower(), args[1:]
        if key == "depth":
            self._set_depth(rest)
        elif key == "game":
            self._set_game(" ".join(rest))
        elif key == "contempt":
            _number(rest, "set contempt N")

    def _set_depth(self, args: list[str]) -> None:
        depth = int(_number(args, "set depth N"))
        if depth < 1:
            raise NBoardError(f"set depth: the depth must be at least 1, got {depth}")
        if self.spec.kind == "alphabeta" and not {"depth", "time", "clock"} & self.spec.options.keys():
            self.depth = min(depth, MAX_DEPTH)
            self.close()
        self._send(f"set myname {self.name}")

    def _set_game(self, text: str) -> None:
        try:
            game = from_ggf(text)
            clocks = ggf_clocks(text)
        except RecordError as e:
            raise NBoardError(f"set game: {e}") from None
        start = game.start_state()
        moves = [parse_action(m) for m in game.moves]
        self.start, self.moves, self.times, self.clocks = start, moves, list(game.times), clocks
        self.state = game.final_state()

    def _move(self, args: list[str]) -> None:
        if len(args) != 1:
            raise NBoardError("move: expected move F5/EVAL/TIME")
        word, *rest = args[0].split("/")
        word = word.strip()
        try:
            seconds = float(rest[1]) if len(rest) > 1 and rest[1].strip() else 0.0
        except ValueError:
            raise NBoardError(f"move: {args[0][:40]!r} is not a move like F5/EVAL/TIME") from None
        if not 0 <= seconds < float("inf"):
            raise NBoardError(f"move: {args[0][:40]!r} has a time that is not seconds >= 0")
        try:
            action = PASS if word.lower() in ("pa", "pass", "--") else parse_action(word)
        except InvalidMoveError:
            raise NBoardError(f"move: {word!r} is not a move like F5 or PA") from None
        state, moves, times = self.state, list(self.moves), list(self.times)
        if action != PASS and not state.is_legal(action) and state.legal_actions() == [PASS]:
            state = state.apply(PASS)  # a pass the GUI left out
            moves.append(PASS)
            times.append(0.0)
        if not state.is_legal(action):
            raise NBoardError(f"move: {move_word(action)} is not legal here")
        self.state, self.moves, self.times = state.apply(action), [*moves, action], [*times, seconds]

    def _go(self, args: list[str]) -> None:
        state = self.state
        if state.is_terminal():
            raise NBoardError("go: the game is over")
        if state.legal_actions() == [PASS]:
            self._send("=== PA")
            return
        self._send("status thinking")
        player = self._player(state.player)
        self._set_clock(player, state.player)
        started = time.perf_counter()
        try:
            # Our own searches stop; a player in a process or an engine of its own would be killed.
            with self._search(None if isinstance(player, TimedAgent) else player):
                answer = engine_move(player, observe(state, state.player), self.time_control.move)
        except BaseException:
            self.drop(state.player)  # built afresh at its next go
            raise
        seconds = time.perf_counter() - started
        try:
            action = read_answer(answer)
            state.apply(action)
        except ValueError:
            raise NBoardError(f"go: the player answered {safe_repr(answer)}, not a legal move") from None
        result = getattr(player, "last_result", None)
        evaluation = 0.0
        if isinstance(result, SearchResult):
            self._send(f"nodestats {max(result.nodes, result.simulations)} {result.seconds:.2f}")
            evaluation = _discs(result, result.action, result.value)
        elif (value := book_value(player, state, action)) is not None:  # a move from its opening book
            evaluation = value
        if state.num_empty() <= HINT_EXACT_EMPTIES:  # any player's move scored exactly near the end
            solver = Solver(HINT_TABLE_ENTRIES)
            with self._search(solver):
                exact = self._exact(state, action, solver)
            if exact is not None:  # else a ping stopped the solve: the player's own estimate stands
                evaluation = exact.score
        self._send(f"=== {move_word(action)}/{evaluation:.2f}/{seconds:.2f}")
        self._send("status")

    def _set_clock(self, player: object, colour: Player) -> None:
        """A player on a game clock (``clock=``) gets what the game's clock has
        left ``colour`` (``tell_time``): its main time and increments less its
        moves' times, then the grace."""
        ggf = self.clocks.get(colour)
        if ggf is None or not isinstance(getattr(player, "clock", None), GameClock):
            return
        try:
            clock = Clock(ggf.time_control())
        except ValueError:  # a clock of no time at all (TI[0]): the player keeps its own
            return
        state = self.start
        for action, seconds in zip(self.moves, self.times, strict=True):
            if state.player == colour and action != PASS:
                clock.punch(seconds)
            state = state.apply(action)
        tell_time(player, clock.reading())

    def _hint(self, args: list[str]) -> None:
        count = int(_number(args, "hint N"))
        if count < 1:
            raise NBoardError(f"hint: ask for at least 1 move, got {count}")
        if self.state.is_terminal():
            raise NBoardError("hint: the game is over")
        self._send("status analysing")
        for hint in self.hints(self.state)[:count]:
            pv = "".join(move_word(a) for a in hint.pv)
            self._send(f"search {pv} {hint.score:.2f} 0 {hint.depth}")
        self._send("status")

    def _analyze(self, args: list[str]) -> None:
        states = [self.start]
        for action in self.moves:
            states.append(states[-1].apply(action))
        self._send("status analysing")
        for ply in range(len(states) - 1, -1, -1):
            if self._interrupted():
                break
            state = states[ply]
            if state.is_terminal():
                black, white = state.score()
                score = float(black - white if state.player == 0 else white - black)
            else:
                scored = self.hints(state)
                if not scored:  # an exact solve stopped before its first move
                    break
                score = scored[0].score
            self._send(f"analysis {ply} {score:.2f}")
        self._send("status")

    # -- players and searches ---------------------------------------------------------

    def _seat_spec(self, colour: Player) -> PlayerSpec:
        """The session's spec, at the depth NBoard asked for if it leaves the depth open."""
        if self.depth is None:
            return self.spec
        return replace(self.spec, options={**self.spec.options, "depth": self.depth})

    def _searcher(self, colour: Player) -> MCTSAgent:
        """The player of ``colour`` if it is an MCTS player with a time a move, else an MCTS of
        ``default_time`` seconds (hints do not spend a player's game clock)."""
        player = self._player(colour)
        if isinstance(player, MCTSAgent) and player.clock is None:
            return player
        if self._hinter is None:
            self._hinter = MCTSAgent(time_limit=self.default_time, seed=self.seed)
        return self._hinter

    @staticmethod
    def _exact(state: GameState, action: int, solver: Solver) -> Hint | None:
        """``action`` in ``state`` scored by an exact solve of the position after it; None if ``solver`` was stopped."""
        solution = solver.solve(state.apply(action))
        return None if solution is None else Hint(action, float(-solution.score), EXACT_DEPTH, (action,))

    def hints(self, state: GameState) -> list[Hint]:
        """Every legal move of ``state`` (not over) scored, best first: exact
        with few empty squares, else by MCTS (see the module docstring). An
        exact hint that an interrupt stopped scores the moves solved by then."""
        actions = state.legal_actions()
        if state.num_empty() <= HINT_EXACT_EMPTIES:
            solver, solved = Solver(HINT_TABLE_ENTRIES), []
            with self._search(solver):
                for a in actions:
                    hint = self._exact(state, a, solver)
                    if hint is None:
                        break
                    solved.append(hint)
            return sorted(solved, key=lambda h: (-h.score, h.action))
        if actions == [PASS]:  # worth the opponent's best reply, negated
            reply = self.hints(state.apply(PASS))[0]
            return [Hint(PASS, -reply.score, reply.depth, (PASS, *reply.pv))]
        searcher = self._searcher(state.player)
        with self._search(searcher):
            result = searcher.search(state)
        searched = []
        for a, visits, value in zip(result.actions, result.visits, result.values, strict=True):
            pv = result.principal_variation if a == result.action and result.principal_variation else (a,)
            searched.append(Hint(a, _discs(result, a, float(value)), str(int(visits)), pv))
        # The search's own choice first, then by visits (what MCTS trusts), then by score.
        return sorted(searched, key=lambda h: (h.action != result.action, -int(h.depth), -h.score, h.action))

    # -- the session ------------------------------------------------------------------

    def handle(self, line: str) -> bool:
        """Carry out one command line, writing its answers; False after ``quit``."""
        words = line.split()
        if not words:
            return True
        command, args = words[0].lower(), words[1:]
        if command == "quit":
            return False
        handler = self.commands.get(command)
        if handler is None:
            if re.fullmatch(r"[a-h][1-8]|pa", command):
                handler, args = self._move, [words[0]]  # NBoard 1.1 sends just "F5"
            else:
                print(f"reversi nboard: ignored unknown command {command[:40]!r}", file=sys.stderr)
                return True
        try:
            handler(args)
        except NBoardError as e:
            self._send(f"status {e}")
        except (Exception, SystemExit) as e:  # the player's own failure: a status line, not the session's end
            self._send(f"status {player_failure(e)}")
        return True

    def serve(self, lines: Iterable[str]) -> None:
        """Answer ``lines`` until ``quit`` or their end. A thread reads them
        while the commands run, so a ``ping`` or ``quit`` read while a search
        runs stops it (the command answers with what it found)."""
        read: queue.Queue[tuple[int, str] | BaseException | None] = queue.Queue()
        threading.Thread(target=self._read, args=(lines, read), name="reversi-nboard-input", daemon=True).start()
        while (item := _next(read)) is not None:
            if isinstance(item, BaseException):
                raise item
            self._command, line = item
            try:
                if not self.handle(line):
                    return
            finally:
                self._finished = self._command

    def _read(self, lines: Iterable[str], read: queue.Queue[tuple[int, str] | BaseException | None]) -> None:
        """Pass ``lines`` on, numbered from 1; at a ``ping`` or ``quit``, stop
        the search of the command being carried out, again and again until that
        command is done (a search forgets a stop that came before it began)."""
        try:
            for number, line in enumerate(lines, 1):
                read.put((number, line))
                running = self._command
                if line.split()[:1] and line.split()[0].lower() in INTERRUPTS and self._finished < running:
                    self._stopped = running
                    while self._finished < running:
                        with self._lock:
                            searching = self._searching
                        stop_agent(searching)
                        time.sleep(0.005)
        except Exception as e:  # stdin that cannot be read: the session's end, said in one line
            read.put(e)
            return
        read.put(None)

    def _interrupted(self) -> bool:
        """Whether a ``ping`` or ``quit`` stopped the command being carried out."""
        return self._stopped == self._command > 0

    @contextmanager
    def _search(self, searcher: object) -> Iterator[None]:
        """While the block runs, ``searcher``'s search is the one an interrupt stops."""
        with self._lock:
            self._searching = searcher
        try:
            yield
        finally:
            with self._lock:
                self._searching = None


def _next(read: queue.Queue[tuple[int, str] | BaseException | None]) -> tuple[int, str] | BaseException | None:
    """The next item the reader passed on. Waited for in short spells: Ctrl-C
    may reach the reader's thread, and the main thread sees it only between
    two waits."""
    while True:
        try:
            return read.get(timeout=0.1)
        except queue.Empty:
            continue


def _number(args: list[str], usage: str) -> float:
    """The one number of a command's arguments, or NBoardError showing ``usage``."""
    try:
        if len(args) != 1:
            raise ValueError
        value = float(args[0])
    except ValueError:
        raise NBoardError(f"expected {usage}, got {' '.join(args)[:40]!r}") from None
    if value != value or abs(value) > 1e6:
        raise NBoardError(f"expected {usage}, got {args[0][:40]!r}")
    return value


def _discs(result: SearchResult, action: int, value: float) -> float:
    """A search's score of ``action`` in discs: exact when the search solved the
    endgame and ``action`` is its move, else the mean result scaled to +-64."""
    if result.disc_difference is not None and action == result.action:
        return float(result.disc_difference)
    return float(SCORE_MAX) * value
