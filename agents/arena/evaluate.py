"""``evaluate(policy, opponents, games=..., seed=...)``: how well a policy plays against fixed opponents.

The call for an RL user who wants one number per opponent, on the arena's machinery:
each opponent meets the policy from the same ``games // 2`` distinct openings (random
legal plies from ``seed``), each played twice with colours swapped; every game has a
seed derived from ``seed`` and its identity, so the same call gives the same report;
players that run other code (``gtp:``, ``python:``, ``classic:``) run isolated in a
process of their own; ``jobs`` and ``backend`` spread the games over local worker
processes or a Ray cluster, as ``reversi arena`` does.

    >>> report = evaluate(my_policy, ["random", "greedy", "alphabeta:2"], games=10, seed=0)
    >>> print(report)            # one row per opponent: W/D/L, score, 95 % interval, discs
    >>> report["greedy"].score   # a float in [0, 1], a draw counting half
"""

from __future__ import annotations

import functools
import pickle
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from agents.arena.ratings import Outcome, compute_ratings
from agents.arena.tournament import (
    Opening,
    ScheduledGame,
    Tournament,
    build_agent,
    check_backend,
    check_specs,
    forfeit,
    make_record,
    play_games,
    player_key,
)
from agents.base import Agent, close_agent
from agents.clocks import TimeControl
from agents.play.adapters import adapt
from agents.play.match import LOSING_REASONS, Reason, play_game

Player = Agent | str
"""A seat's player: an Agent, or a player spec built where its game runs."""


@dataclass(frozen=True)
class OpponentResult:
    """The policy's games against one opponent, counted from the policy's side.

    ``score`` is points per game (a win 1, a draw 0.5), ``score_low`` and ``score_high``
    its 95 % Wilson interval, ``mean_disc_difference`` the policy's discs minus the
    opponent's at the end, on average. ``forfeits`` counts the games the policy lost
    by its own fault, by reason (``"illegal"``, ``"error"``, ``"timeout"``...).
    """

    name: str
    games: int
    wins: int
    draws: int
    losses: int
    score: float
    score_low: float
    score_high: float
    mean_disc_difference: float
    forfeits: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class EvaluationReport:
    """What ``evaluate`` returns: one ``OpponentResult`` per opponent, in the order given.

    ``str(report)`` is an aligned table; ``report["greedy"]`` is one opponent's row.
    """

    policy: str
    results: tuple[OpponentResult, ...]
    games: int
    seed: int

    def __getitem__(self, name: str) -> OpponentResult:
        """The row of the opponent called ``name`` (KeyError naming the opponents if none is)."""
        for row in self.results:
            if row.name == name:
                return row
        raise KeyError(f"no opponent {name!r}; the opponents are {', '.join(r.name for r in self.results)}")

    def to_dict(self) -> dict[str, Any]:
        """The report as plain JSON data."""
        return {
            "policy": self.policy,
            "games": self.games,
            "seed": self.seed,
            "results": [vars(r) | {"forfeits": dict(r.forfeits)} for r in self.results],
        }

    def __str__(self) -> str:
        header = ("opponent", "games", "W", "D", "L", "score", "95% CI", "discs")
        rows = [
            (
                r.name,
                str(r.games),
                str(r.wins),
                str(r.draws),
                str(r.losses),
                f"{100 * r.score:.1f}%",
                f"[{100 * r.score_low:.1f}, {100 * r.score_high:.1f}]",
                f"{r.mean_disc_difference:+.1f}",
            )
            for r in self.results
        ]
        widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
        lines = [
            "  ".join(c.ljust(widths[i]) if i == 0 else c.rjust(widths[i]) for i, c in enumerate(row)).rstrip()
            for row in [header, *rows]
        ]
        title = f"{self.policy}: {self.games} games per opponent (both colours), seed {self.seed}"
        notes = [
            f"{self.policy} lost {count} of {r.games} games against {r.name} by {Reason(reason).lost_by}"
            for r in self.results
            for reason, count in sorted(r.forfeits.items())
        ]
        return "\n".join([title, lines[0], "-" * len(lines[0]), *lines[1:], *notes])


def play_seated(
    game: ScheduledGame, time_control: TimeControl | float | None, max_illegal: int, *, seats: Mapping[str, Player]
) -> dict[str, Any]:
    """The arena's ``play_scheduled`` with the players looked up by the game's names in ``seats``:
    an Agent plays as it is, a spec is built (and closed) here with the game's seed.

    Returns:
        The game's results-file record; a spec that cannot start loses the game ("error").
    """
    control = TimeControl.of(time_control)
    started = time.time()
    start = Opening.parse(game.opening).state()
    players: list[Agent] = []
    built: list[Agent] = []
    try:
        for colour, name in enumerate((game.black, game.white)):
            player = seats[name]
            if isinstance(player, str):
                try:
                    player = build_agent(player, colour, game.agent_seed(("black", "white")[colour]), control)
                except Exception as e:  # as in a tournament: that side loses this game, the others go on
                    return make_record(game, forfeit(game, colour, start, f"cannot start: {e}"), started=started)
                built.append(player)
            players.append(player)
        result = play_game(players[0], players[1], time_control=control, max_illegal=max_illegal, start=start)
        return make_record(game, result, started=started)
    finally:
        for agent in built:
            close_agent(agent)


def evaluate(
    policy: object,
    opponents: Sequence[object],
    *,
    games: int = 20,
    seed: int = 0,
    opening_plies: int = 4,
    time_limit: float | None = None,
    max_illegal: int = 3,
    jobs: int = 1,
    clock: TimeControl | None = None,
    backend: str = "local",
    address: str | None = None,
) -> EvaluationReport:
    """Play ``policy`` against each opponent and count its wins, draws and losses.

    What runs where: by default (``jobs=1``, no ``time_limit``) every game is played in
    this process and ``policy`` itself is called, so any object works (a torch model, a
    closure, a lambda); an object with random state of its own carries it on from game
    to game. With ``jobs`` above 1, a ``time_limit`` or ``backend="ray"``, each game runs
    in a worker process or a Ray task, which receives a pickled copy of every object
    player, as it was at the call; an object that does not pickle is refused before any
    game. Players given as specs are built where their game runs, seeded from the game,
    and the ones that run other code are isolated in a process of their own.

    Args:
        policy: the player to evaluate: an ``agents.Agent``, anything ``agents.adapt``
            accepts (a callable ``observation -> action``, an SB3 model), or a player spec.
        opponents: player specs (``"random"``, ``"greedy"``, ``"alphabeta:2"``, see
            ``agents.play.specs``) or agents, at least one.
        games: games against each opponent: a positive even number (each opening twice).
        seed: the seed of the openings and of every game.
        opening_plies: random legal plies of each opening.
        time_limit: seconds a move (None: no limit); a move over it loses the game.
        clock: a game clock for each side (``TimeControl.parse_clock("300+2")``: its
            increment and moves to go); running out loses the game. A search given no
            budget of its own plays on it.
        max_illegal: illegal moves at one turn that lose the game.
        jobs: local worker processes (1: this process, unless there is a time limit).
        backend: ``"local"`` or ``"ray"`` (Ray tasks, on ``address`` or a local instance).
        address: a Ray cluster's address, with ``backend="ray"``.

    Returns:
        An ``EvaluationReport``: per opponent, games, wins, draws, losses, the score with
        its 95 % Wilson interval, the mean final disc difference from the policy's side,
        and the games the policy lost by illegal moves, errors or time.

    Raises:
        ValueError: in one line, before any game: a spec that cannot be built or started,
            no opponent, an odd ``games``, a bad backend choice, or an object that must go
            to worker processes and does not pickle.
        TypeError: a policy or opponent that cannot play (``agents.adapt``).
    """
    if isinstance(opponents, (str, bytes)) or not isinstance(opponents, Sequence) or not opponents:
        raise ValueError(f"opponents must be a non-empty list of player specs or agents, got {opponents!r:.200}")
    if isinstance(jobs, bool) or not isinstance(jobs, int):
        raise ValueError(f"jobs must be an int >= 1, got {jobs!r}")
    jobs = check_backend(backend, jobs, address, "evaluate")
    seats: dict[str, Player] = {}
    names = [_seat(player, seats) for player in (policy, *opponents)]
    tournament = Tournament.create(
        names,
        mode="gauntlet",
        games=games,
        opening_plies=opening_plies,
        seed=seed,
        time_limit=time_limit,
        max_illegal=max_illegal,
        clock=clock,
    )
    check_specs(dict.fromkeys(p for p in seats.values() if isinstance(p, str)), tournament.time_control)
    if backend == "ray" or jobs > 1 or not tournament.time_control.unlimited:
        _check_sendable(seats, backend)
    records: list[dict[str, Any]] = []
    play = functools.partial(play_seated, seats=seats)
    schedule = tournament.schedule()
    play_games(schedule, tournament, records.append, jobs=jobs, backend=backend, address=address, play=play)
    rows = tuple(_row(names[0], other, records) for other in names[1:])
    return EvaluationReport(names[0], rows, games, seed)


def _seat(player: object, seats: dict[str, Player]) -> str:
    """Give ``player`` a name no other seat has (a repeat gets `` #2``...) and seat it under it."""
    if isinstance(player, str):
        seated: Player = player
        name = player
    else:
        seated = adapt(player)
        name = str(getattr(seated, "name", "") or type(player).__name__)
    taken = {player_key(n) for n in seats}
    base, n = name, 1
    while player_key(name) in taken:
        n += 1
        name = f"{base} #{n}"
    seats[name] = seated
    return name


def _check_sendable(seats: Mapping[str, Player], backend: str) -> None:
    """Raise ValueError, in one line, if a player object cannot be pickled for the workers."""
    dumps: Any = pickle.dumps
    if backend == "ray":
        from ray import cloudpickle  # what Ray sends tasks' arguments with

        dumps = cloudpickle.dumps
    for name, player in seats.items():
        if isinstance(player, str):
            continue
        try:
            dumps(player)
        except Exception as e:
            why = (str(e).splitlines() or [type(e).__name__])[0]
            raise ValueError(
                f"player {name!r} must be sent to worker processes (jobs > 1, a time limit or Ray) but does not "
                f"pickle ({why}): evaluate it with jobs=1 and time_limit=None, in this process"
            ) from None


def _row(policy: str, opponent: str, records: list[dict[str, Any]]) -> OpponentResult:
    """The policy's line against ``opponent``, counted by the arena's ratings."""
    mine = [r for r in records if opponent in (r["black"], r["white"])]
    outcomes = [Outcome(r["black"], r["white"], r["black_score"], r["disc_difference"]) for r in mine]
    stats = compute_ratings(outcomes, anchor=opponent).by_name(policy)
    low, high = stats.score_interval
    forfeits: dict[str, int] = {}
    for r in mine:
        loser = r["result"].get("loser")
        if r["reason"] in LOSING_REASONS and loser is not None and r[loser] == policy:
            forfeits[r["reason"]] = forfeits.get(r["reason"], 0) + 1
    return OpponentResult(
        name=opponent,
        games=stats.games,
        wins=stats.wins,
        draws=stats.draws,
        losses=stats.losses,
        score=stats.score,
        score_low=low,
        score_high=high,
        mean_disc_difference=stats.mean_disc_difference,
        forfeits=forfeits,
    )
