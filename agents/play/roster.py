"""The player kinds the project ships, one ``PlayerKind`` record each, with the function that builds it.

The records sit together here rather than in the agents' own modules: ``--help`` and every
spec check read them, and importing any module of ``agents.search`` first compiles the engine.
Each builder imports its agent when it builds one. A new kind is one more record, here or
passed to ``agents.play.specs.register``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any, cast

from agents.play.kinds import Build, Option, OptionValue, PlayerKind, SpecError, parameter_defaults

if TYPE_CHECKING:
    from agents.base import Agent

ALPHABETA_DEPTH = 4
"""alpha-beta's depth when a spec gives neither a depth nor a time (``alphabeta`` is ``alphabeta:4``)."""

EVALUATIONS = ("patterns", "hand")
"""The evaluations a search may use: the learned pattern tables, the hand-written square weights."""

PARALLEL = ("tree", "root")
"""How MCTS threads share a search (``agents.search.mcts.PARALLEL``; not imported: it compiles)."""

SEED = Option(
    "seed", int, 2**63 - 1, zero_ok=True, named=True, help="the seed of its random choices (its name leaves it out)"
)
TIME = Option("time", float, 1e6, named=True, budget=True, help="seconds a move")
CLOCK = Option("clock", float, 1e6, named=True, budget=True, help="seconds for all its moves in a game")
SIMS = Option("sims", int, 10**9, named=True, budget=True, help="simulations a move")
THREADS = Option("threads", int, 64, parameter="threads", help="cores searching one shared table or tree")
EVAL = Option("eval", str, choices=EVALUATIONS, example=EVALUATIONS[0], help="the evaluation it searches with")
WEIGHTS = Option(
    "weights",
    str,
    example="my.npz",
    help="the pattern weights file `reversi train-eval --out` wrote (its name shows it)",
)
PROOF = Option(
    "proof",
    int,
    60,
    zero_ok=True,
    parameter="endgame_proof",
    help="empty squares from which a timed search tries to prove the outcome (0: never)",
)

BOOK = Option(
    "book",
    str,
    example="my-book.npz",
    help="the opening book it plays from before it searches: `1` the package's (the default of a timed "
    "search), `0` none (the default of a fixed budget, sims=N or depth=N), or a file `reversi book --out` wrote",
)
BOOK_OFF, BOOK_SHIPPED = "0", "1"
"""``book=0``: no book; ``book=1``: the package's (a book file named ``1`` is ``./1``)."""


def _book_default(options: Mapping[str, OptionValue], timed: bool) -> str:
    """The book a spec without ``book=`` plays from: the package's for a search by time
    (``timed``), as Edax and Zebra open from theirs; none for a fixed budget (``sims=N``,
    ``depth=N``) or textbook UCT, each of whose moves is the search it names, a yardstick's."""
    return BOOK_SHIPPED if timed and not options.get("uct") else BOOK_OFF


def _with_book(agent: Any, options: Mapping[str, OptionValue], timed: bool) -> Agent:
    """``agent`` with the book its options name set (``book``; else ``_book_default``); a
    book file that cannot be read raises ``agents.search.book.BookError`` (a ValueError)."""
    choice = str(options.get("book", _book_default(options, timed)))
    if choice != BOOK_OFF:
        from agents.search.book import load_book

        agent.book = load_book(None if choice == BOOK_SHIPPED else choice)
    return cast("Agent", agent)


def _build_human(build: Build) -> Agent:
    from agents.play.human import HumanPlayer

    assert build.seat is not None
    return HumanPlayer(build.seat)


def _build_random(build: Build) -> Agent:
    from agents.search.ladder import RandomAgent

    return RandomAgent(seed=build.seed)


def _build_greedy(build: Build) -> Agent:
    from agents.search.ladder import GreedyAgent

    return GreedyAgent(seed=build.seed)


def _build_positional(build: Build) -> Agent:
    from agents.search.ladder import PositionalAgent

    return PositionalAgent(seed=build.seed)


def _build_pattern(build: Build) -> Agent:
    from agents.search.patterns import PatternAgent, load_weights

    o = build.options
    return PatternAgent(load_weights(str(o["weights"])) if "weights" in o else None, seed=build.seed)


def _alphabeta_eval(options: Mapping[str, OptionValue]) -> str:
    """alpha-beta's evaluation without ``eval=``: the patterns for a timed search or a
    weights file, else the hand-written one."""
    return "patterns" if options.keys() & {"time", "clock", "weights"} else "hand"


def _alphabeta_timed(options: Mapping[str, OptionValue]) -> bool:
    """Whether alpha-beta searches by time (``time=``, ``clock=``), not to a fixed depth."""
    return bool(options.keys() & {"time", "clock"})


def _alphabeta_agent(build: Build) -> Agent:
    from agents.search.alphabeta_agent import AlphaBetaAgent
    from agents.search.evaluation import HAND_EVALUATION

    o = build.options
    evaluation = HAND_EVALUATION
    if o.get("eval", _alphabeta_eval(o)) == "patterns":
        from agents.search.patterns import pattern_evaluation

        evaluation = pattern_evaluation(str(o["weights"]) if "weights" in o else None)
    knobs: dict[str, Any] = {
        "seed": build.seed,
        "threads": int(o.get("threads", 1)),
        "evaluation": evaluation,
        "selectivity": float(o.get("probcut", 0)),
    }
    if _alphabeta_timed(o):
        extra: dict[str, Any] = {"endgame_proof": int(o["proof"])} if "proof" in o else {}
        return AlphaBetaAgent(
            time_limit=float(o["time"]) if "time" in o else None,
            game_time=float(o["clock"]) if "clock" in o else None,
            **knobs,
            **extra,
        )
    return AlphaBetaAgent(int(o.get("depth", ALPHABETA_DEPTH)), **knobs)


def _build_alphabeta(build: Build) -> Agent:
    return _with_book(_alphabeta_agent(build), build.options, _alphabeta_timed(build.options))


def _alphabeta_defaults(options: Mapping[str, OptionValue], default_time: float | None) -> dict[str, object]:
    from agents.search.alphabeta_agent import AlphaBetaAgent

    timed = _alphabeta_timed(options)
    fixed: dict[str, object] = {"eval": _alphabeta_eval(options), "book": _book_default(options, timed)}
    if not timed:
        fixed["depth"] = ALPHABETA_DEPTH
    return fixed | parameter_defaults(AlphaBetaAgent, ALPHABETA.options)


def _weights_need_patterns(text: str, options: Mapping[str, OptionValue]) -> None:
    if "weights" in options and options.get("eval") == "hand":
        raise SpecError(f"{text!r}: weights=FILE is for the learned evaluation; eval=hand reads no weights file")


def _proof_needs_time(text: str, options: Mapping[str, OptionValue], untimed: bool) -> None:
    if "proof" in options and untimed:  # a search by depth or simulations has no time to give the proof
        raise SpecError(f"{text!r}: proof is an option of the timed search (time=SECONDS or clock=SECONDS)")


def _alphabeta_proof(text: str, options: Mapping[str, OptionValue]) -> None:
    _proof_needs_time(text, options, not _alphabeta_timed(options))


def _build_level(build: Build) -> Agent:
    from agents.search.ladder import ladder_agent

    if "level" not in build.options:
        raise SpecError(f"{build.text!r}: say which level, e.g. 'level:3'")
    return ladder_agent(int(build.options["level"]), seed=build.seed)


MCTS_GUIDES = ("eval", "weights", "mix", "bias", "minimax", "ply", "fpu")
"""The MCTS options that guide its search, which textbook UCT (``uct=1``) has none of."""


def _mcts_agent(build: Build) -> Agent:
    from agents.search.mcts import TEXTBOOK_UCT, MCTSAgent, handwritten_value

    o = build.options
    knobs: dict[str, Any] = {"seed": build.seed, "threads": 1}
    if o.get("uct"):
        guides = [k for k in MCTS_GUIDES if k in o]
        if guides:
            raise SpecError(f"{build.text!r}: uct=1 is textbook UCT, it takes no {', '.join(guides)}")
        knobs.update(TEXTBOOK_UCT)
    if o.get("eval") == "hand":
        knobs["heuristic"] = handwritten_value
    if "weights" in o:
        from agents.search.patterns import pattern_evaluation

        knobs["evaluation"] = pattern_evaluation(str(o["weights"]))
    for option in MCTS.options:  # each option given sets its parameter
        if option.key in o and option.parameter:
            knobs[option.parameter] = option.value_type(o[option.key])
    if "fpu" in o:
        knobs["fpu"] = bool(o["fpu"])
    if "sims" in o:
        return MCTSAgent(simulations=int(o["sims"]), **knobs)
    if "clock" in o:
        return MCTSAgent(game_time=float(o["clock"]), **knobs)
    if "time" not in o and build.game_clock is not None:
        return MCTSAgent(game_time=build.game_clock, **knobs)
    return MCTSAgent(time_limit=float(o.get("time", build.default_time)), **knobs)


def _mcts_timed(options: Mapping[str, OptionValue]) -> bool:
    """Whether MCTS searches by time (``time=``, ``clock=``, or the caller's default), not a
    fixed number of simulations."""
    return "sims" not in options


def _build_mcts(build: Build) -> Agent:
    return _with_book(_mcts_agent(build), build.options, _mcts_timed(build.options))


def _mcts_defaults(options: Mapping[str, OptionValue], default_time: float | None) -> dict[str, object]:
    from agents.search.mcts import TEXTBOOK_UCT, MCTSAgent

    fixed: dict[str, object] = {"eval": "patterns", "uct": 0, "book": _book_default(options, _mcts_timed(options))}
    if default_time is not None:
        fixed["time"] = default_time
    return fixed | parameter_defaults(MCTSAgent, MCTS.options, TEXTBOOK_UCT if options.get("uct") else None)


def _mcts_proof(text: str, options: Mapping[str, OptionValue]) -> None:
    _proof_needs_time(text, options, not _mcts_timed(options))


def _build_alphazero(build: Build) -> Agent:
    from agents.learn.alphazero_agent import AlphaZeroAgent
    from agents.search.puct import DEFAULT_SIMULATIONS

    o = build.options
    net = str(o["net"]) if "net" in o else None
    time_limit = float(o["time"]) if "time" in o else None
    simulations = int(o.get("sims", DEFAULT_SIMULATIONS))
    return AlphaZeroAgent(net, simulations=simulations, time_limit=time_limit, seed=build.seed)


def _alphazero_defaults(options: Mapping[str, OptionValue], default_time: float | None) -> dict[str, object]:
    from agents.search.puct import DEFAULT_SIMULATIONS  # AlphaZeroAgent's, without torch

    return {"sims": DEFAULT_SIMULATIONS}


def _split_target(rest: str) -> tuple[str, str]:
    """``path/or.module:Name`` as (target, attribute), split at the last colon so a Windows
    drive (``C:\\...``) stays in the path; no attribute if what follows is a path."""
    target, colon, attribute = rest.rpartition(":")
    if not colon or "/" in attribute or "\\" in attribute or attribute.endswith(".py"):
        target, attribute = rest, ""
    return target.strip(), attribute.strip()


def _classic_target(text: str, rest: str) -> tuple[str, str]:
    target, attribute = _split_target(rest)
    if not target:
        raise SpecError(f"{text!r}: expected e.g. 'classic:players/my_player.py:MyPlayer'")
    if not target.endswith(".py"):
        raise SpecError(f"{text!r}: a classic player is a .py file, e.g. 'classic:my_player.py:MyPlayer'")
    return target, attribute


def _python_target(text: str, rest: str) -> tuple[str, str]:
    target, attribute = _split_target(rest)
    if not target:
        raise SpecError(f"{text!r}: expected e.g. 'python:my_pkg.agents:make_agent'")
    if not attribute:
        raise SpecError(f"{text!r}: name the object after the module, e.g. 'python:my_pkg.agents:make_agent'")
    return target, attribute


def _gtp_target(text: str, rest: str) -> tuple[str, str]:
    if not rest.strip():
        raise SpecError(f"{text!r}: give the engine command, e.g. 'gtp:/usr/games/gtp-rhino'")
    return rest.strip(), ""


def _build_classic(build: Build) -> Agent:
    from agents.play.adapters import adapt
    from agents.play.loading import load_classic_class
    from reversi_env.state import PLAYER_SYMBOLS

    assert build.seat is not None
    player_class = load_classic_class(build.target, build.attribute or None)
    return adapt(player_class(PLAYER_SYMBOLS[build.seat]), color=build.seat)


def _build_python(build: Build) -> Agent:
    from agents.play.adapters import adapt
    from agents.play.loading import python_object

    return adapt(python_object(build.target, build.attribute), color=build.seat)


def _build_gtp(build: Build) -> Agent:
    from agents.play.gtp import GTPEngine

    return GTPEngine(build.target)


HUMAN = PlayerKind("human", _build_human, "you, at the terminal (`agents.play.human`)", ("human",), needs_color=True)
RANDOM = PlayerKind(
    "random", _build_random, "a random legal move", ("random",), (SEED,), title="Random", strengths=(("-", "random"),)
)
GREEDY = PlayerKind(
    "greedy",
    _build_greedy,
    "the move that flips the most discs",
    ("greedy",),
    (SEED,),
    title="Greedy",
    strengths=(("-", "greedy"),),
)
POSITIONAL = PlayerKind(
    "positional",
    _build_positional,
    "the move on the best square by the hand-written square weights",
    ("positional",),
    (SEED,),
    title="Positional",
    strengths=(("-", "positional"),),
)
PATTERN = PlayerKind(
    "pattern",
    _build_pattern,
    "the learned pattern evaluation alone, 1 ply",
    ("pattern", "pattern:weights=FILE.npz"),
    (SEED, replace(WEIGHTS, help="the pattern weights file (a path relative to the current directory)")),
)
ALPHABETA = PlayerKind(
    "alphabeta",
    _build_alphabeta,
    "alpha-beta to a fixed depth (4) or by iterative deepening in a time",
    ("alphabeta:DEPTH", "alphabeta:time=SECONDS", "alphabeta:clock=SECONDS (a game)"),
    (
        Option("depth", int, 60, named=True, budget=True, help="plies deep (`alphabeta:4` says `depth=4`)"),
        replace(TIME, help="seconds a move, by iterative deepening"),
        replace(CLOCK, help="seconds for all its moves in a game, shared out by the game's phase"),
        replace(THREADS, help="cores searching one table, at a fixed depth too"),
        replace(EVAL, help="`patterns` (timed or with weights) or `hand` (fixed depths)"),
        replace(WEIGHTS, help="the pattern weights file it evaluates with (its endgame proof's move ordering too)"),
        Option(
            "probcut",
            float,
            10.0,
            zero_ok=True,
            parameter="selectivity",
            help="ProbCut at that many standard deviations (0: full width)",
        ),
        PROOF,
        BOOK,
        SEED,
    ),
    bare="depth",
    defaults=_alphabeta_defaults,
    checks=(_weights_need_patterns, _alphabeta_proof),
    title="Alpha-beta",
    strengths=(("depth 2", "alphabeta:2"), ("depth 4", "alphabeta:4"), ("depth 6", "alphabeta:6")),
)
LEVEL = PlayerKind(
    "level",
    _build_level,
    "a rung of the graded ladder",
    ("level:N",),
    (Option("level", int, named=True, help="the rung (`level:3` says `level=3`)"), SEED),
    bare="level",
)
MCTS = PlayerKind(
    "mcts",
    _build_mcts,
    "MCTS by time or simulations, guided by the learned evaluation (docs/engine.md)",
    ("mcts", "mcts:time=SECONDS", "mcts:clock=SECONDS", "mcts:sims=N (or iters=N)", "mcts:c=1.4"),
    (
        replace(TIME, help="seconds a move (the caller's default, 1, if no budget is given)"),
        CLOCK,
        SIMS,
        Option("iters", int, 10**9, means="sims", help="the course's word for `sims`"),
        Option("c", float, parameter="c", help="the exploration constant"),
        SEED,
        replace(THREADS, help="cores in one shared tree"),
        Option(
            "parallel",
            str,
            choices=PARALLEL,
            example=PARALLEL[0],
            parameter="parallel",
            help="`tree`: threads share one tree; `root`: a tree each, merged at the root",
        ),
        replace(EVAL, help="`patterns` (the learned evaluation) or `hand` (the hand-written one)"),
        replace(WEIGHTS, help="the pattern weights file it evaluates with"),
        Option("mix", float, 1.0, zero_ok=True, parameter="mix", help="the evaluation's share in a leaf's value"),
        Option("bias", float, 100.0, zero_ok=True, parameter="bias", help="the evaluation's bias in selection"),
        Option("ply", int, 1, zero_ok=True, parameter="ply", help="1: leaves one ply deeper"),
        Option("fpu", int, 1, zero_ok=True, parameter="fpu", help="1: first-play urgency for unvisited moves"),
        Option("minimax", float, 1.0, zero_ok=True, parameter="minimax", help="the minimax share of backed-up values"),
        Option("uct", int, 1, zero_ok=True, help="1: textbook UCT, no guides"),
        Option(
            "exact", int, 30, zero_ok=True, parameter="endgame_exact", help="empty squares from which it solves exactly"
        ),
        PROOF,
        Option(
            "nodes",
            int,
            2**31 - 1,
            parameter="max_nodes",
            help="the tree's most nodes (4 M, 40 bytes each; more for long moves)",
        ),
        BOOK,
    ),
    defaults=_mcts_defaults,
    checks=(_weights_need_patterns, _mcts_proof),
    title="MCTS",
    strengths=(("0.5 s", "mcts:time=0.5"), ("1 s", "mcts:time=1"), ("3 s", "mcts:time=3"), ("10 s", "mcts:time=10")),
)
ALPHAZERO = PlayerKind(
    "alphazero",
    _build_alphazero,
    "the shipped network: PUCT search, or its raw policy (`sims=0`)",
    ("alphazero:sims=N",),
    (
        replace(TIME, help="seconds a move, instead of simulations"),
        replace(SIMS, zero_ok=True, help="simulations a move (200; 0: the raw policy)"),
        Option("net", str, example="path.pt", help="another network file"),
        SEED,
    ),
    defaults=_alphazero_defaults,
)
CLASSIC = PlayerKind(
    "classic",
    _build_classic,
    'a classic course player class, built with "X" or "O" (`:CLASS` may be left out when the file has one)',
    ("classic:FILE.py:CLASS",),
    read_target=_classic_target,
    runs_code=True,
    isolated=True,
    needs_color=True,
)
PYTHON = PlayerKind(
    "python",
    _build_python,
    "an Agent, a zero-argument factory of one, or a policy callable, from a module or a .py file",
    ("python:MODULE:NAME",),
    read_target=_python_target,
    runs_code=True,
    isolated=True,
)
GTP = PlayerKind(
    "gtp",
    _build_gtp,
    "an external engine over GTP",
    ("gtp:COMMAND",),
    read_target=_gtp_target,
    runs_code=True,
)

BUILTIN_KINDS = (HUMAN, RANDOM, GREEDY, POSITIONAL, PATTERN, ALPHABETA, LEVEL, MCTS, ALPHAZERO, CLASSIC, PYTHON, GTP)
"""The kinds the project ships, simplest first (``--help`` lists their forms in this order)."""
