"""Tournaments that rate agents at scale, locally or on a Ray cluster.

A tournament is a schedule of games between player specs (the strings of
``reversi play``: ``random``, ``alphabeta:3``, ``mcts:sims=500``,
``gtp:/usr/games/gtp-rhino``...): a round-robin, or a gauntlet of one agent
against a list. Every pairing starts from the same set of distinct openings
(random legal plies from the tournament seed, or a user file of transcripts),
each played twice with colours swapped, so neither side profits from a lucky
opening or from moving first.

Nothing is lost: every finished game is appended to a JSON Lines results file
(flushed and fsynced) as soon as it ends, by the driver process. The first line
holds the tournament itself, so ``resume`` (or ``reversi arena --resume``) plays
only the games that are missing after a crash, a ``kill -9`` or Ctrl-C; a
half-written last line is cut off. ``read_results`` reads a file back, and
``ratings_from_records`` reproduces the table.

Each game gets a seed derived from the tournament seed and the game's identity,
and agents are built from their specs inside the worker, so a local process
pool and Ray tasks play the same games (with simulation budgets rather than
time limits, the very same moves).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import random
import socket
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from agents.arena.ratings import Outcome, Ratings, compute_ratings
from agents.base import Agent, MoveTimeout, close_agent
from agents.cluster import check_reachable
from agents.datafiles import load_json, open_data, read_data
from agents.limits import MAX_OPENING_PLIES, MAX_RESULTS_FILE, MAX_SECONDS, MAX_TEXT_FILE
from agents.play import waits
from agents.play.isolation import PlayerStartError, bounded, build_player
from agents.play.match import TRANSCRIPT_PASS, GameResult, play_game
from agents.play.processes import how_it_ended
from agents.play.specs import SpecError, canonical_spec
from reversi_env.errors import IllegalMoveError
from reversi_env.notation import action_name, parse_action
from reversi_env.state import GameState

FORMAT_VERSION = 1
"""The results file's format version, written in its first line."""
MODES = ("round-robin", "gauntlet")
MAX_ATTEMPTS = 3
"""How many tries a game gets, in all, while its worker dies, before the run gives up."""


# -- openings -------------------------------------------------------------------


@dataclass(frozen=True)
class Opening:
    """A short move sequence from the standard start, e.g. ``("F5", "D6")``."""

    moves: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        """The transcript (``"f5d6"``, a pass as ``"--"``), or ``"start"``."""
        if not self.moves:
            return "start"
        return "".join(TRANSCRIPT_PASS if m == "PASS" else m.lower() for m in self.moves)

    def state(self) -> GameState:
        """The position after the opening (checked)."""
        state = GameState.initial()
        for m in self.moves:
            state = state.apply(m)
        return state

    @classmethod
    def parse(cls, text: str) -> Opening:
        """An opening from a transcript: ``"f5d6c3"``, ``"F5 D6 C3"``, ``"start"``;
        raises ValueError (InvalidMoveError / IllegalMoveError) naming the move, in one line."""
        t = "".join(text.replace(",", " ").split())
        if t.lower() in ("", "start"):
            return cls()
        if len(t) % 2:
            raise ValueError(f"an opening transcript has two characters per move, got {text!r}")
        state = GameState.initial()
        moves = []
        for i in range(0, len(t), 2):
            chunk = t[i : i + 2]
            action = parse_action("PASS" if chunk == TRANSCRIPT_PASS else chunk)
            try:
                state = state.apply(action)
            except IllegalMoveError as e:  # its message shows the board below: a line for a file's error
                raise IllegalMoveError(f"move {i // 2 + 1}: {str(e).splitlines()[0]}") from None
            moves.append(action_name(action))
        if state.is_terminal():
            raise ValueError(f"opening {text!r} ends the game")
        return cls(tuple(moves))


GIVE_UP = 2000
"""Random openings drawn in a row without a new position before giving up."""


def random_openings(count: int, plies: int, seed: int = 0) -> list[Opening]:
    """``count`` openings of ``plies`` random legal plies leading to distinct
    positions, reproducible from ``seed``; ValueError (quickly) if there are
    not enough, or ``plies`` is not 0 to ``MAX_OPENING_PLIES``."""
    if count < 0 or not 0 <= plies <= MAX_OPENING_PLIES:
        raise ValueError(f"count must be >= 0 and plies 0 to {MAX_OPENING_PLIES}, got {count} and {plies}")
    rng = random.Random(f"openings:{seed}:{plies}")
    found: dict[GameState, Opening] = {}
    misses = 0
    while len(found) < count and misses < GIVE_UP:
        misses += 1
        state = GameState.initial()
        moves = []
        for _ in range(plies):
            if state.is_terminal():
                break
            action = rng.choice(state.legal_actions())
            state = state.apply(action)
            moves.append(action_name(action))
        if not state.is_terminal() and state not in found:
            found[state] = Opening(tuple(moves))
            misses = 0
    if len(found) < count:
        raise ValueError(
            f"found only {len(found)} distinct {plies}-ply openings but {count} are needed: "
            "use more opening plies or fewer games per pairing"
        )
    return list(found.values())


def load_openings(path: str | Path) -> list[Opening]:
    """Openings from a text file, one transcript per line (``#`` starts a comment);
    ValueError naming the line for a bad or repeated one."""
    openings: list[Opening] = []
    seen: dict[GameState, int] = {}
    try:
        lines = read_data(path, MAX_TEXT_FILE, "an openings file").decode("utf-8").splitlines()
    except UnicodeDecodeError as e:
        raise ValueError(f"{path}: not a text file of openings ({e.reason} at byte {e.start})") from None
    for number, line in enumerate(lines, 1):
        text = line.split("#", 1)[0].strip()
        if not text:
            continue
        try:
            opening = Opening.parse(text)
        except ValueError as e:
            raise ValueError(f"{path}:{number}: {e}") from e
        state = opening.state()
        if state in seen:
            raise ValueError(f"{path}:{number}: opening {text!r} repeats the position of line {seen[state]}")
        seen[state] = number
        openings.append(opening)
    if not openings:
        raise ValueError(f"{path}: no openings in the file")
    return openings


# -- the schedule ----------------------------------------------------------------


@dataclass(frozen=True)
class ScheduledGame:
    """One game of a tournament: who plays black and white from which opening.

    Picklable (plain strings and ints), so it travels to process and Ray
    workers, which build the agents from the specs with the given seeds.
    """

    game_id: str
    black: str
    white: str
    opening: str
    seed: int

    def agent_seed(self, colour: str) -> int:
        """The seed for the agent playing ``colour`` ("black" or "white")."""
        return derive_seed(self.seed, colour)


MCTS_TIME = 1.0
"""An MCTS player's seconds a move in the arena when its spec gives no budget: ``mcts`` is ``mcts:time=1``."""


@functools.lru_cache(maxsize=4096)
def player_key(spec: str) -> str:
    """What tells two players apart: the spec's one spelling (``canonical_spec``: ``alphabeta:2,eval=hand``
    is ``alphabeta:2``, ``mcts:time=1`` is ``mcts``), or its text if it is no spec; the arena rates specs
    with one key as one player."""
    try:
        return canonical_spec(spec, default_time=MCTS_TIME)
    except SpecError:
        return spec


def derive_seed(*parts: object) -> int:
    """A 63-bit seed from any parts: the same on every machine and Python run."""
    digest = hashlib.sha256(":".join(str(p) for p in parts).encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


@dataclass
class Tournament:
    """What to play: the agents (player specs), the mode, the games per pairing,
    the openings, the seed and the match rules. Its ``schedule()`` lists the games."""

    agents: list[str]
    mode: str = "round-robin"
    games: int = 20
    openings: list[str] = field(default_factory=list)
    seed: int = 0
    time_limit: float | None = 60.0
    max_illegal: int = 3

    def __post_init__(self) -> None:
        if not isinstance(self.agents, (list, tuple)) or not all(isinstance(a, str) for a in self.agents):
            raise ValueError(f"agents must be a list of player specs, got {self.agents!r:.200}")
        self.agents = list(self.agents)
        tl = self.time_limit
        if tl is not None and (isinstance(tl, bool) or not isinstance(tl, (int, float)) or not 0 < tl <= MAX_SECONDS):
            raise ValueError(f"time_limit must be None or seconds > 0 and <= {MAX_SECONDS:g}, got {tl!r}")
        for key in ("seed", "max_illegal"):
            value = getattr(self, key)
            if isinstance(value, bool) or not isinstance(value, int) or value < (0 if key == "seed" else 1):
                raise ValueError(f"{key} must be an int >= {0 if key == 'seed' else 1}, got {value!r}")
        if not isinstance(self.openings, (list, tuple)) or not all(isinstance(o, str) for o in self.openings):
            raise ValueError("openings must be a list of transcripts")
        if self.mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, got {self.mode!r}")
        if len(self.agents) < 2:
            raise ValueError(f"a tournament needs at least two agents, got {self.agents!r}")
        first: dict[str, str] = {}
        for i, a in enumerate(self.agents):
            other = first.setdefault(player_key(a), a)
            if other != a:  # said, not merged: the user learns the option they set is the default
                raise ValueError(
                    f"each agent may appear once: {a!r} is {other!r} again (both are the player {player_key(a)!r}; "
                    "an option at its default, or options in another order, change nothing)"
                )
            if a in self.agents[:i]:
                raise ValueError(f"each agent may appear once, repeated: {a}")
        if isinstance(self.games, bool) or not isinstance(self.games, int) or self.games < 2 or self.games % 2:
            raise ValueError(
                f"games per pairing must be a positive even number (each opening is played twice), got {self.games!r}"
            )
        if len(self.openings) < self.games // 2:
            needed = self.games // 2
            raise ValueError(f"{self.games} games per pairing need {needed} openings, got {len(self.openings)}")
        self.openings = [Opening.parse(o).name for o in self.openings]

    @classmethod
    def create(
        cls,
        agents: Sequence[str],
        *,
        mode: str = "round-robin",
        games: int = 20,
        opening_plies: int = 4,
        openings: Sequence[Opening] | None = None,
        seed: int = 0,
        time_limit: float | None = 60.0,
        max_illegal: int = 3,
    ) -> Tournament:
        """A tournament with ``games // 2`` openings per pairing: the first ones of
        ``openings`` if given, else random ``opening_plies``-ply ones from ``seed``."""
        if isinstance(games, bool) or not isinstance(games, int) or games < 2 or games % 2:
            raise ValueError(
                f"games per pairing must be a positive even number (each opening is played twice), got {games!r}"
            )
        needed = games // 2
        if openings is None:
            chosen = random_openings(needed, opening_plies, seed)
        else:
            if len(openings) < needed:
                raise ValueError(f"{games} games per pairing need {needed} openings, the file has {len(openings)}")
            chosen = list(openings[:needed])
        return cls(list(agents), mode, games, [o.name for o in chosen], seed, time_limit, max_illegal)

    def pairings(self) -> list[tuple[str, str]]:
        """The pairs that meet: all pairs, or the first agent against each other one."""
        if self.mode == "gauntlet":
            return [(self.agents[0], other) for other in self.agents[1:]]
        return [(a, b) for i, a in enumerate(self.agents) for b in self.agents[i + 1 :]]

    def schedule(self) -> list[ScheduledGame]:
        """Every game, pairing by pairing, each opening with both colour orders."""
        games = []
        for a, b in self.pairings():
            for opening in self.openings[: self.games // 2]:
                for black, white in ((a, b), (b, a)):
                    game_id = f"{black} vs {white} @ {opening}"
                    games.append(ScheduledGame(game_id, black, white, opening, derive_seed(self.seed, game_id)))
        return games

    def to_dict(self) -> dict[str, Any]:
        """The tournament as plain JSON data (the results file's first line)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Tournament:
        """The inverse of ``to_dict``; ValueError for a malformed one."""
        if not isinstance(data, dict):
            raise ValueError(f"a tournament record is a JSON object, got {type(data).__name__}")
        fields = {k: data[k] for k in cls.__dataclass_fields__ if k in data}
        agents = fields.get("agents")
        if isinstance(agents, list) and all(isinstance(a, str) for a in agents):
            # Older versions let one player in twice under two spellings: it is kept once, under its first.
            fields["agents"] = list({player_key(a): a for a in reversed(agents)}.values())[::-1]
        try:
            return cls(**fields)
        except TypeError as e:
            raise ValueError(f"malformed tournament record: {e}") from e

    def runs_code(self) -> list[str]:
        """The agents whose specs start a program or import a module
        (``gtp:``, ``python:``, ``classic:``): never started from a file unasked."""
        from agents.play.specs import runs_code

        return [a for a in self.agents if runs_code(a)]


# -- playing one game (in any worker) ------------------------------------------------


def build_agent(spec: str, colour: int, seed: int, time_limit: float | None = None) -> Agent:
    """The agent a spec names, playing ``colour``, seeded with ``seed`` unless
    the spec sets its own seed (which then holds in every game); other
    people's code runs in a process of its own, with a time limit or without
    (``build_player``)."""
    from agents.play.specs import parse_spec

    if parse_spec(spec).kind == "human":
        raise ValueError(f"{spec!r}: a human cannot play arena games (they run unattended, in workers)")
    # Unattended, and our stdout carries the table and --json -: no stdin for
    # other people's code, and what it prints goes to stderr.
    agent: Agent = build_player(
        spec, colour, seed=seed, default_time=MCTS_TIME, time_limit=time_limit, isolate=True, protocol=True
    )
    return agent


def play_scheduled(game: ScheduledGame, time_limit: float | None = 60.0, max_illegal: int = 3) -> dict[str, Any]:
    """Build both agents from their specs, play the game, return its record.

    This runs inside worker processes and Ray tasks: everything it takes and
    returns is plain data. Agents with a ``close()`` (external engines) are
    closed afterwards.
    """
    players: list[Agent] = []
    t0 = time.time()
    start = Opening.parse(game.opening).state()
    try:
        for colour, spec in enumerate((game.black, game.white)):
            try:
                players.append(build_agent(spec, colour, game.agent_seed(("black", "white")[colour]), time_limit))
            except Exception as e:  # a player that cannot start loses this game, and the tournament goes on
                return make_record(game, forfeit(game, colour, start, f"cannot start: {e}"), started=t0)
        result = play_game(
            players[0],
            players[1],
            time_limit=time_limit,
            max_illegal=max_illegal,
            start=start,
        )
        return make_record(game, result, started=t0)
    finally:
        for p in players:
            close_agent(p)


def forfeit(game: ScheduledGame, colour: int, start: GameState, why: str) -> GameResult:
    """The record of a game ``colour`` lost before its first move (reason "error")."""
    black, white = start.score()
    return GameResult(
        winner=("white", "black")[colour],
        black=black,
        white=white,
        reason="error",
        loser=("black", "white")[colour],
        details=bounded(f"{('black', 'white')[colour]} {why}"),
        black_name=game.black,
        white_name=game.white,
        start=start.compact(),
    )


def make_record(game: ScheduledGame, result: GameResult, started: float | None = None) -> dict[str, Any]:
    """The results-file line of a finished game."""
    now = time.time()
    return {
        "type": "game",
        "game_id": game.game_id,
        "black": game.black,
        "white": game.white,
        "opening": game.opening,
        "seed": game.seed,
        "black_score": _black_score(result.winner),
        "disc_difference": result.disc_difference,
        "reason": result.reason,
        "transcript": ("" if game.opening == "start" else game.opening) + result.transcript,
        "seconds": round(now - (started if started is not None else now), 3),
        "host": f"{socket.gethostname()}:{os.getpid()}",
        "result": result.to_dict(),
    }


def _black_score(winner: str) -> float:
    return {"black": 1.0, "white": 0.0, "draw": 0.5}[winner]


# -- the results file ------------------------------------------------------------------


@dataclass
class ResultsData:
    """A results file read back: the tournament (if the file has one), the game
    records (each game once) and what was cut or skipped."""

    tournament: Tournament | None
    games: list[dict[str, Any]]
    truncated: bool = False
    duplicates: int = 0

    def outcomes(self) -> list[Outcome]:
        """The games as rating inputs."""
        return [Outcome(g["black"], g["white"], float(g["black_score"]), int(g["disc_difference"])) for g in self.games]

    def done_ids(self) -> set[str]:
        """The ids of the finished games."""
        return {g["game_id"] for g in self.games}


def read_results(path: str | Path, repair: bool = False) -> ResultsData:
    """Read a results file. A half-written last line (a crash mid-write) is
    ignored, and with ``repair`` cut off the file so appending can go on; a bad
    line anywhere else is a ValueError naming it. A game recorded twice counts once."""
    path = Path(path)
    raw = read_data(path, MAX_RESULTS_FILE, "a results file")
    lines = raw.split(b"\n")
    # Everything after the last newline is an unfinished write, unless it is a
    # whole record (an editor that drops the final newline): then it is kept.
    tail = lines.pop()
    whole = _is_record(tail)
    if whole:
        lines.append(tail)
    truncated = bool(tail.strip()) and not whole
    good_end = len(raw) - len(tail)
    tournament: Tournament | None = None
    games: list[dict[str, Any]] = []
    seen: set[str] = set()
    duplicates = 0
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = load_json(line)
            kind = record.get("type")
            if kind == "tournament":
                if record.get("version") != FORMAT_VERSION:
                    raise ValueError(f"unsupported results format version {record.get('version')!r}")
                tournament = Tournament.from_dict(record["tournament"])
                continue
            if kind != "game":
                raise ValueError(f"unknown record type {kind!r}")
            for key in ("game_id", "black", "white"):
                if not isinstance(record.get(key), str):
                    raise ValueError(f"a game record needs a string {key!r}")
            record["black_score"] = float(record["black_score"])
            record["disc_difference"] = int(record["disc_difference"])
            if record["black_score"] not in (0.0, 0.5, 1.0):
                raise ValueError(f"black_score must be 0, 0.5 or 1, got {record['black_score']!r}")
            if not -64 <= record["disc_difference"] <= 64:
                raise ValueError(f"disc_difference must be -64 to 64, got {record['disc_difference']!r}")
        except (AttributeError, KeyError, TypeError, ValueError) as e:
            if isinstance(e, json.JSONDecodeError) and number == len(lines) and not truncated:
                # Unparseable JSON ending the file is an unfinished write too
                # (whatever a crash left before the newline); a parseable but
                # wrong record is not, and is reported like any other.
                truncated, good_end = True, len(raw) - len(tail) - len(line) - 1
                break
            raise ValueError(f"{path}:{number}: bad results line: {e}") from e
        if record["game_id"] in seen:
            duplicates += 1
            continue
        seen.add(record["game_id"])
        games.append(record)
    if truncated and repair:
        with open(path, "r+b") as f:
            f.truncate(good_end)
            f.flush()
            os.fsync(f.fileno())
    elif whole and repair:  # the next record starts on a line of its own
        with open(path, "ab") as f:
            f.write(b"\n")
            f.flush()
            os.fsync(f.fileno())
    return ResultsData(tournament, games, truncated, duplicates)


def _is_record(text: bytes) -> bool:
    """Whether ``text`` is a whole JSON object (a torn write never is: records end with their only
    closing brace at top level)."""
    try:
        return isinstance(load_json(text), dict)
    except ValueError:
        return False


class ResultsWriter:
    """Appends records to a results file, one JSON line each, flushed and
    fsynced before ``append`` returns, so a finished game survives a crash."""

    def __init__(self, path: str | Path) -> None:
        """Open ``path`` for appending (created if missing)."""
        self.path = Path(path)
        self._file = open(self.path, "a", encoding="utf-8")  # noqa: SIM115 - kept open across appends

    def append(self, record: dict[str, Any]) -> None:
        """Write one record as a line and make it durable."""
        self._file.write(json.dumps(record, separators=(",", ":"), allow_nan=False) + "\n")
        self._file.flush()
        os.fsync(self._file.fileno())

    def close(self) -> None:
        """Close the file."""
        self._file.close()

    def __enter__(self) -> ResultsWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def ratings_from_records(data: ResultsData | Iterable[ResultsData], anchor: str | None = None) -> Ratings:
    """The table for one or more results files, agents listed in tournament
    order. A game found in several files (same id, seed and moves) counts once;
    the same pairing played again (a time-limited agent plays other moves) counts again.
    Specs of one player (``player_key``) are one row, under the spelling met first; ``anchor``
    may be any of them. A game between two of them (an older version let both in) rates nothing."""
    parts = [data] if isinstance(data, ResultsData) else list(data)
    shown: dict[str, str] = {}

    def row(spec: str) -> str:
        return shown.setdefault(player_key(spec), spec)

    order = [row(a) for p in parts if p.tournament for a in p.tournament.agents]
    seen: set[tuple[str, object, object]] = set()
    games = []
    for p in parts:
        for g in p.games:
            key = (g["game_id"], g.get("seed"), g.get("transcript"))
            if key not in seen:
                seen.add(key)
                games.append(g)
    outcomes = [
        Outcome(row(o.black), row(o.white), o.black_score, o.disc_difference)
        for o in ResultsData(None, games).outcomes()
        if row(o.black) != row(o.white)
    ]
    if anchor is not None:
        anchor = shown.get(player_key(anchor), anchor)
    return compute_ratings(outcomes, anchor=anchor, order=order)


# -- running ---------------------------------------------------------------------------

Progress = Callable[[int, int, Ratings], None]
"""``progress(done, total, ratings)``: called after every recorded game (the
ratings are refitted at most every ``PROGRESS_REFIT`` seconds, and at the end)."""
PROGRESS_REFIT = 0.5


def check_specs(specs: Iterable[str], time_limit: float | None = None) -> None:
    """Build each spec once (and wait until it is ready), then close it, so a
    typo or a player that cannot start fails, in one ValueError, before any game."""
    for spec in specs:
        agent = build_agent(spec, 0, 0, time_limit)
        try:
            wait_ready = getattr(agent, "wait_ready", None)
            if callable(wait_ready):
                try:
                    wait_ready()
                except (PlayerStartError, MoveTimeout) as e:
                    raise ValueError(f"player {spec!r} cannot start: {e}") from None
        finally:
            close_agent(agent)


def run_tournament(
    tournament: Tournament,
    out: str | Path,
    *,
    resume: bool = False,
    jobs: int | None = None,
    backend: str = "local",
    address: str | None = None,
    anchor: str | None = None,
    progress: Progress | None = None,
    on_start: Callable[[], None] | None = None,
) -> Ratings:
    """Play the tournament's missing games, appending each to ``out``, and
    return the ratings of everything in the file. ``on_start()`` is called
    once the arguments, the file and every player are checked, before the
    first game (a caller announces the tournament there, not before an error).

    ``out`` must not hold games already unless ``resume`` is set, and then it
    must hold this same tournament, or one this one extends (see ``extends``). ``backend`` is "local" (``jobs`` worker
    processes, default the number of cores; 1 without a time limit plays in this
    process) or "ray"
    (tasks on the cluster at ``address``, or on a local instance started with
    ``jobs`` CPUs; an already initialised Ray is used as it is).

    The local workers are spawned: each imports the script that runs the
    tournament again, so a script calls this under ``if __name__ ==
    "__main__":``; a call from a worker's import is refused with that advice.
    """
    jobs = check_backend(backend, jobs, address, "run_tournament")
    if anchor is not None:
        spelled = {player_key(a): a for a in tournament.agents}
        if player_key(anchor) not in spelled:
            raise ValueError(f"anchor {anchor!r} is not one of the agents: {', '.join(tournament.agents)}")
        anchor = spelled[player_key(anchor)]  # the games name it as the tournament does
    path = Path(out)
    data = prepare_results(tournament, path, resume)
    done = data.done_ids()
    schedule = tournament.schedule()
    todo = [g for g in schedule if g.game_id not in done]
    if todo:
        check_specs(tournament.agents, tournament.time_limit)
    if on_start is not None:
        on_start()
    with ResultsWriter(path) as writer:
        if not path.stat().st_size or data.tournament != tournament:
            # A new file, or an extended tournament: the last tournament line holds.
            writer.append({"type": "tournament", "version": FORMAT_VERSION, "tournament": tournament.to_dict()})
        games = list(data.games)
        shown: list[Any] = [None, 0.0]  # the last table and when it was computed

        def record(rec: dict[str, Any]) -> None:
            writer.append(rec)
            games.append(rec)
            if progress is not None:
                # The fit costs more as games pile up: refresh it twice a second at most.
                now = time.monotonic()
                if shown[0] is None or now - shown[1] >= PROGRESS_REFIT or len(games) == len(schedule):
                    # Until the anchor has played a game, the standings use the default one.
                    met = any(anchor in (g["black"], g["white"]) for g in games)
                    shown[:] = [ratings_from_records(ResultsData(tournament, games), anchor if met else None), now]
                progress(len(games), len(schedule), shown[0])

        play_games(todo, tournament, record, jobs=jobs, backend=backend, address=address)
    return ratings_from_records(ResultsData(tournament, games), anchor)


def check_backend(backend: str, jobs: int | None, address: str | None, caller: str) -> int:
    """The number of workers for ``play_games``: ``jobs``, or the number of cores.

    Raises:
        ValueError: an unknown backend, an address without Ray, or jobs below 1.
        RuntimeError: ``caller`` runs in a spawned worker importing its script (which
            needs ``if __name__ == "__main__":``).
    """
    import multiprocessing

    if getattr(multiprocessing.current_process(), "_inheriting", False):  # multiprocessing's own test
        raise RuntimeError(
            f"{caller} was called while a worker process imported the script that runs it: put the "
            'call under `if __name__ == "__main__":` (the workers are spawned and import that script again)'
        )
    if backend not in ("local", "ray"):
        raise ValueError(f"backend must be 'local' or 'ray', got {backend!r}")
    if address is not None and backend != "ray":
        raise ValueError(f"address {address!r} names a Ray cluster: it needs the ray backend (--backend ray)")
    jobs = jobs if jobs is not None else (os.cpu_count() or 1)
    if jobs < 1:
        raise ValueError(f"jobs must be >= 1, got {jobs}")
    return jobs


PlayGame = Callable[[ScheduledGame, float | None, int], dict[str, Any]]
"""``play(game, time_limit, max_illegal) -> record``: how a worker plays one scheduled game."""


def play_games(
    todo: Sequence[ScheduledGame],
    tournament: Tournament,
    record: Callable[[dict[str, Any]], None],
    *,
    jobs: int,
    backend: str = "local",
    address: str | None = None,
    play: PlayGame = play_scheduled,
) -> None:
    """Play ``todo`` under the tournament's rules and pass each game's record to ``record``
    as it ends, in this process (one job without a time limit), in ``jobs`` local worker
    processes, or as Ray tasks (``backend="ray"``). ``play`` travels to the workers, so it
    must pickle (a module-level function, or a ``functools.partial`` of one over picklable
    arguments)."""
    if not todo:
        return
    if backend == "ray":
        _run_ray(list(todo), tournament, jobs, address, record, play)
    elif jobs == 1 and tournament.time_limit is None:
        # Nothing can time out, so nothing can be left running: play right here.
        for game in todo:
            record(play(game, tournament.time_limit, tournament.max_illegal))
    else:
        _run_pool(list(todo), tournament, jobs, record, play)


def _begins_with_a_tournament(path: Path) -> bool:
    """Whether ``path``'s first line is an arena tournament line (a results file)."""
    with open_data(path, MAX_RESULTS_FILE, "a results file") as f:
        first = f.readline(1 << 20)
    try:
        return bool(load_json(first).get("type") == "tournament")
    except (ValueError, AttributeError):
        return False


def prepare_results(tournament: Tournament, path: Path, resume: bool) -> ResultsData:
    """Check ``path`` against the tournament (repairing a cut last line on
    resume) and return what it holds; ValueError if it would mix tournaments
    or overwrite games."""
    if path.is_dir():
        raise ValueError(f"{path} is a directory: --out names a results file")
    if not path.exists() or not path.stat().st_size:
        return ResultsData(tournament, [])
    if not resume and not _begins_with_a_tournament(path):
        raise ValueError(f"{path} holds something other than arena results: choose another --out")
    if not resume:
        raise ValueError(f"{path} already holds results: pass --resume to continue it, or choose another --out")
    data = read_results(path, repair=True)
    if data.tournament is None and not data.games and not path.stat().st_size:
        return ResultsData(tournament, [])  # killed while writing the first line
    if data.tournament is None:
        raise ValueError(f"{path} has no tournament line: it was not written by the arena")
    if data.tournament.to_dict() != tournament.to_dict() and not extends(tournament, data):
        raise ValueError(
            f"{path} holds a different tournament: {json.dumps(data.tournament.to_dict())}; "
            "resume with the same agents and options (or none: `reversi arena --resume --out FILE`), "
            "or extend it: more agents or games, with the same seed and rules"
        )
    return data


def extends(tournament: Tournament, data: ResultsData) -> bool:
    """Whether ``tournament`` keeps every game in ``data`` as it was played
    (same seed and rules; more agents or more games per pairing), so resuming
    with it adds only the new games: a new checkpoint joins the pool this way."""
    old = data.tournament
    if old is None or (old.seed, old.time_limit, old.max_illegal) != (
        tournament.seed,
        tournament.time_limit,
        tournament.max_illegal,
    ):
        return False
    seeds = {g.game_id: g.seed for g in tournament.schedule()}
    return all(seeds.get(g["game_id"]) == g.get("seed") for g in data.games) and all(
        g.game_id in seeds for g in old.schedule()
    )


def _worker(conn: Any, parent: int) -> None:
    """A local worker process: play the games the driver sends, one at a time,
    until it sends None or goes away. It dies with the driver (parent-death
    signal, and a watch thread where that signal does not exist), and leaves
    Ctrl-C to the driver."""
    import signal
    import threading
    import traceback

    from agents.play import processes

    processes.die_with_parent(parent)
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(1)

    threading.Thread(target=watch, daemon=True, name="arena-parent-watch").start()
    while True:
        try:
            job = conn.recv()
        except (EOFError, OSError):
            return
        if job is None:
            return
        play, game, time_limit, max_illegal = job
        try:
            conn.send(play(game, time_limit, max_illegal))
        except Exception:
            conn.send({"type": "crash", "details": bounded(traceback.format_exc())})


class _WorkerProcess:
    """The driver's handle on one worker process and the game it plays."""

    def __init__(self, context: Any) -> None:
        """Start a worker (it imports the package: a second or two)."""
        self.conn, child = context.Pipe()
        self.proc = context.Process(target=_worker, args=(child, os.getpid()), daemon=True, name="reversi-arena-worker")
        self.proc.start()
        child.close()
        self.game: ScheduledGame | None = None

    def stop(self) -> None:
        """End the worker now; whatever it started dies with it."""
        with contextlib.suppress(Exception):
            self.proc.terminate()
            self.proc.join(timeout=2)
            if self.proc.is_alive():
                self.proc.kill()
                self.proc.join(timeout=2)
        with contextlib.suppress(Exception):
            self.conn.close()


def _run_pool(
    todo: list[ScheduledGame],
    tournament: Tournament,
    jobs: int,
    record: Callable[[dict[str, Any]], None],
    play: PlayGame = play_scheduled,
) -> None:
    """Play games in ``jobs`` worker processes. A worker whose game ended on
    time is replaced by a fresh one (an abandoned move may still be running in
    it); a game whose worker died is played again, at most MAX_ATTEMPTS times."""
    import multiprocessing
    from collections import deque
    from multiprocessing.connection import wait

    context = multiprocessing.get_context("spawn")
    queue = deque(todo)
    attempts = dict.fromkeys((g.game_id for g in todo), 0)
    workers = [_WorkerProcess(context) for _ in range(min(jobs, len(todo)))]
    job = (play, tournament.time_limit, tournament.max_illegal)
    try:
        while queue or any(w.game is not None for w in workers):
            for w in workers:
                if w.game is None and queue:
                    w.game = queue.popleft()
                    attempts[w.game.game_id] += 1
                    with contextlib.suppress(OSError):  # a dead worker shows as EOF below
                        w.conn.send((job[0], w.game, *job[1:]))
            busy = {w.conn: w for w in workers if w.game is not None}
            for conn in wait(list(busy), timeout=waits.WAKE):  # in slices: a Ctrl-C is seen (``waits``)
                w = busy[conn]
                game, fresh = w.game, False
                assert game is not None
                try:
                    rec = w.conn.recv()
                except (EOFError, OSError):
                    w.proc.join(timeout=1.0)  # reaped, so its exit code is known
                    rec = {"type": "crash", "details": f"the worker process ended ({how_it_ended(w.proc.exitcode)})"}
                if rec.get("type") == "crash":
                    if attempts[game.game_id] >= MAX_ATTEMPTS:
                        raise RuntimeError(f"game {game.game_id!r} failed {MAX_ATTEMPTS} times: {rec['details']}")
                    queue.appendleft(game)
                    fresh = True
                else:
                    record(rec)
                    fresh = rec.get("reason") == "timeout"
                w.game = None
                if fresh:
                    w.stop()
                    workers[workers.index(w)] = _WorkerProcess(context)
    finally:
        for w in workers:
            w.stop()


def _play_one(play: PlayGame, game: ScheduledGame, time_limit: float | None, max_illegal: int) -> dict[str, Any]:
    """``play(game, time_limit, max_illegal)``: a Ray task (Ray builds its tasks from functions, not partials)."""
    return play(game, time_limit, max_illegal)


def _run_ray(
    todo: list[ScheduledGame],
    tournament: Tournament,
    jobs: int,
    address: str | None,
    record: Callable[[dict[str, Any]], None],
    play: PlayGame = play_scheduled,
) -> None:
    """Play games as Ray tasks; the driver writes each result as it arrives.
    Ray plays a task again when its worker dies (``max_retries``)."""
    try:
        import ray
    except ImportError as e:  # pragma: no cover - depends on the installed extras
        raise ImportError("the ray backend needs Ray: pip install 'reversi-env[ray]'") from e
    started = False
    if not ray.is_initialized():
        if address:
            check_reachable(address)
            ray.init(address=address, log_to_driver=False)
        else:
            ray.init(num_cpus=jobs, include_dashboard=False, log_to_driver=False)
        started = True
    task = ray.remote(max_retries=MAX_ATTEMPTS - 1)(_play_one)  # retries: the tries after the first
    shared = ray.put(play)  # stored once, not sent with every game
    pending = [task.remote(shared, g, tournament.time_limit, tournament.max_illegal) for g in todo]
    names = {ref: g.game_id for ref, g in zip(pending, todo, strict=True)}
    try:
        while pending:
            finished, pending = ray.wait(pending, num_returns=1)
            for ref in finished:
                try:
                    rec = ray.get(ref)
                except ray.exceptions.RayError as e:  # its worker died on every try: one line, as the pool says
                    said = [line.strip() for line in str(e).splitlines() if line.strip()]
                    raise RuntimeError(
                        f"game {names[ref]!r} failed on Ray: {said[-1] if said else type(e).__name__}"
                    ) from None
                record(rec)
    except BaseException:
        for ref in pending:
            with contextlib.suppress(Exception):
                ray.cancel(ref, force=True)
        raise
    finally:
        if started:
            ray.shutdown()
