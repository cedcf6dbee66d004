"""Player specs: the one place a string like ``"mcts:time=2"`` becomes a player.

The CLI's ``--black`` / ``--white`` and the arena both read these:

=========================================  =============================================
``human``                                  you, at the terminal (``agents.play.human``)
``random``, ``greedy``, ``positional``     the ladder's baselines (``seed=N`` optional)
``alphabeta:4``                            alpha-beta 4 plies deep (``depth=4,seed=1``)
``pattern``                                the learned pattern evaluation alone, 1 ply
``pattern:weights=my.npz``                 the same on the weights ``reversi train-eval
                                           --out my.npz`` wrote (a path relative to
                                           the current directory); ``alphabeta`` and
                                           ``mcts`` take ``weights=`` too, for all
                                           they evaluate with (their endgame proof's
                                           move ordering included); the player's
                                           name ends ``:weights=my.npz``, so
                                           records tell two files apart
``alphabeta:time=2``                       alpha-beta by iterative deepening, 2 s a move
                                           (``clock=60``: 60 s for all its moves in a
                                           game, shared out by the game's phase)
                                           (``threads=2``: two cores, one table, for
                                           a fixed depth too); it
                                           evaluates with the learned patterns, the
                                           fixed depths with the hand-written weights
                                           (``eval=patterns`` or ``eval=hand`` to choose;
                                           ``weights=FILE`` means the patterns);
                                           ``probcut=1.5``: ProbCut at 1.5 standard
                                           deviations, stronger against Zebra
                                           (default 0: full width, for GRhino 5;
                                           ``alphabeta:14,probcut=1.5`` is a fixed
                                           selective depth, reproducible);
                                           ``proof=N`` tries to prove the outcome
                                           from N empty squares (22; 0: never)
``level:3``                                rung 3 of the graded ladder
``mcts``, ``mcts:time=2``, ``mcts:sims=5000``  MCTS by time or simulations (``seed=N``;
                                           ``clock=60``: 60 s for a game's moves);
                                           ``iters=N`` is the course's word for
                                           ``sims``, ``c=1.4`` the exploration constant;
                                           guided by the learned evaluation
                                           (``eval=hand``: the hand-written one;
                                           ``mix``, ``bias``, ``minimax``, ``ply``,
                                           ``fpu``: see docs/engine.md), ``uct=1`` is
                                           textbook UCT, ``exact=N`` solves from N
                                           empty squares, ``proof=N`` tries to prove
                                           the outcome from N (timed; 0: never),
                                           ``threads=2`` two cores
                                           in one shared tree (``parallel=root``: a
                                           tree each, merged at the root),
                                           ``nodes=N`` the tree's most nodes (4 M,
                                           40 bytes each; more for long moves)
``alphazero``, ``alphazero:sims=0``         the shipped network: PUCT with ``sims=N`` (200) or
                                           ``time=S``, or its raw policy (``sims=0``);
                                           ``net=path.pt`` plays another network
``classic:path/to/file.py:ClassName``      a classic course player class, built with
                                           "X" or "O"; ``:ClassName`` may be left out
                                           when the file has one ``get_move`` class
``python:pkg.module:factory``              an Agent, a zero-argument factory of one, or
                                           a policy callable (``adapt``); the module
                                           is found from the current directory
                                           first, or may be a ``path/to/file.py``
``gtp:/path/to/engine [args]``             an external engine over GTP
=========================================  =============================================

Options are ``key=value`` pairs separated by commas (``mcts:sims=800,seed=3``).
A player's name shows every option but ``seed`` (``alphabeta-2:eval=patterns``,
``mcts-800sims:c=1.4``), so records tell two players apart; an option set to
its default is left out (``alphabeta:2,eval=hand`` is ``alphabeta-2``), so one
player has one name.
A bad spec raises ``SpecError`` (a ValueError) that says what was expected.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import os
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from agents.limits import MAX_SPEC

if TYPE_CHECKING:  # the rest is imported where a player is built: parsing a spec compiles nothing
    from agents.base import Agent

SPEC_HELP = (
    "human, random, greedy, positional, pattern, pattern:weights=FILE.npz, alphabeta:DEPTH, alphabeta:time=SECONDS, "
    "alphabeta:clock=SECONDS (a game), level:N, mcts, mcts:time=SECONDS, mcts:clock=SECONDS, "
    "mcts:sims=N (or iters=N), mcts:c=1.4, alphazero:sims=N, classic:FILE.py:CLASS, "
    "python:MODULE:NAME, gtp:COMMAND"
)
"""The spec forms in one line, for error messages and ``--help``."""

# kind -> (allowed option keys, the key a bare value stands for)
_OPTIONS: dict[str, tuple[tuple[str, ...], str | None]] = {
    "human": ((), None),
    "random": (("seed",), None),
    "greedy": (("seed",), None),
    "positional": (("seed",), None),
    "pattern": (("seed", "weights"), None),
    "alphabeta": (("depth", "time", "clock", "threads", "eval", "weights", "probcut", "proof", "seed"), "depth"),
    "level": (("level", "seed"), "level"),
    "mcts": (
        (
            "time",
            "clock",
            "sims",
            "iters",
            "c",
            "seed",
            "threads",
            "parallel",
            "eval",
            "weights",
            "mix",
            "bias",
            "ply",
            "fpu",
            "minimax",
            "uct",
            "exact",
            "proof",
            "nodes",
        ),
        None,
    ),
    "alphazero": (("time", "sims", "net", "seed"), None),
}
_INT_KEYS = ("seed", "depth", "level", "sims", "iters", "threads", "ply", "fpu", "uct", "exact", "proof", "nodes")
_TEXT_KEYS = ("net", "eval", "parallel", "weights")
_EVALUATIONS = ("patterns", "hand")
"""alpha-beta's evaluations: the learned pattern tables, the hand-written square weights."""
_PARALLEL = ("tree", "root")
"""How MCTS threads share a search (``agents.search.mcts.PARALLEL``; not imported: specs import agents lazily)."""
_ZERO_KEYS = (
    "seed",
    "alphazero.sims",
    "alphabeta.probcut",
    "alphabeta.proof",
    "mcts.mix",
    "mcts.bias",
    "mcts.ply",
    "mcts.fpu",
    "mcts.minimax",
    "mcts.uct",
    "mcts.exact",
    "mcts.proof",
)
"""Options that may be 0 (``kind.key`` for one kind only): ``alphazero:sims=0`` is the raw policy."""
_MAXIMA = {
    "seed": 2**63 - 1,
    "depth": 60,
    "sims": 10**9,
    "iters": 10**9,
    "time": 1e6,
    "clock": 1e6,
    "threads": 64,
    "probcut": 10.0,
    "mix": 1.0,
    "bias": 100.0,
    "minimax": 1.0,
    "ply": 1,
    "fpu": 1,
    "uct": 1,
    "exact": 30,
    "proof": 60,
    "nodes": 2**31 - 1,
}
"""The largest value of an option that plays (beyond them counters overflow or waits never end)."""
_NAMED = {
    "random": ("seed",),
    "greedy": ("seed",),
    "positional": ("seed",),
    "pattern": ("seed",),
    "alphabeta": ("depth", "time", "clock", "seed"),
    "level": ("level", "seed"),
    "mcts": ("time", "clock", "sims", "seed"),
    "alphazero": ("time", "sims", "seed"),
}
"""The options a player's own name already shows, or that change its luck, not its play (``seed``):
the others are added to the name (``alphabeta-2:eval=patterns``)."""
_PARAMETERS = {
    "alphabeta": {"threads": "threads", "probcut": "selectivity", "proof": "endgame_proof"},
    "mcts": {
        "c": "c",
        "mix": "mix",
        "bias": "bias",
        "minimax": "minimax",
        "ply": "ply",
        "fpu": "fpu",
        "threads": "threads",
        "parallel": "parallel",
        "exact": "endgame_exact",
        "proof": "endgame_proof",
        "nodes": "max_nodes",
    },
}
"""The constructor parameter an option sets, whose default is the option's when a spec leaves it out."""
_SYNONYMS = {"iters": "sims"}
"""Option names that mean another: the course says ``iters`` for simulations."""
_ALPHABETA_DEPTH = 4
"""alpha-beta's depth when a spec gives neither a depth nor a time (``alphabeta`` is ``alphabeta:4``)."""


class SpecError(ValueError):
    """A player spec that cannot be read or built; the message names the spec
    and the forms that are accepted."""


@dataclass(frozen=True)
class PlayerSpec:
    """A parsed spec: the kind, its options, and for ``classic`` / ``python`` /
    ``gtp`` the target (file, module or command) and the attribute name."""

    text: str
    kind: str
    options: dict[str, float | int | str] = field(default_factory=dict)
    target: str = ""
    attribute: str = ""

    @property
    def needs_color(self) -> bool:
        """True if building needs the colour (human and classic players do)."""
        return self.kind in ("human", "classic")

    def build(self, color: object = None, *, seed: int | None = None, default_time: float = 1.0) -> Agent:
        """A fresh Agent for this spec, playing ``color`` (0/1, "black"/"white",
        "X"/"O"). ``seed`` is used by the seeded kinds when the spec gives none;
        ``default_time`` is the MCTS time per move when the spec sets neither
        ``time`` nor ``sims``."""
        from reversi_env.state import parse_player

        seat = None if color is None else parse_player(color)
        if self.needs_color and seat is None:
            raise SpecError(f"{self.text!r}: this player needs to know its colour (black or white)")
        try:
            agent = self._build(seat, seed, default_time)
        except SpecError:
            raise
        except (ValueError, TypeError, ImportError, OSError, RuntimeError) as e:
            raise SpecError(f"cannot build player {self.text!r}: {e}") from e
        shown, defaults = _NAMED.get(self.kind, ()), self._defaults()
        played = [
            f"{key}={_option_text(value)}"
            for key, value in self.options.items()
            if key not in shown and not (key in defaults and defaults[key] == value)
        ]
        if played:  # two players differing in one option are two players in records, tables and the GUI
            agent.name = f"{agent.name}{',' if ':' in agent.name else ':'}{','.join(played)}"
        return agent

    def _defaults(self, default_time: float | None = None) -> dict[str, object]:
        """What each option is when this spec leaves it out, given its other options: an option
        set to it plays as if absent, so ``alphabeta:2,eval=hand`` is ``alphabeta-2`` as ``alphabeta:2`` is.
        MCTS's ``time`` is the caller's ``default_time`` (``build``'s), a default only when it is given."""
        if self.kind == "alphabeta":
            from agents.search.ladder import AlphaBetaAgent

            parameters = inspect.signature(AlphaBetaAgent).parameters
            fixed: dict[str, object] = {"eval": self._alphabeta_default_eval()}
            if not self.options.keys() & {"time", "clock"}:
                fixed["depth"] = _ALPHABETA_DEPTH
        elif self.kind == "mcts":
            from agents.search.mcts import TEXTBOOK_UCT, MCTSAgent

            parameters = inspect.signature(MCTSAgent).parameters
            fixed = {"eval": "patterns", "uct": 0}
            if default_time is not None:
                fixed["time"] = default_time
        elif self.kind == "alphazero":
            from agents.search.puct import DEFAULT_SIMULATIONS  # AlphaZeroAgent's, without torch

            return {"sims": DEFAULT_SIMULATIONS}
        else:
            return {}
        signature = {name: p.default for name, p in parameters.items()}
        if self.kind == "mcts" and self.options.get("uct"):
            signature.update(TEXTBOOK_UCT)
        return fixed | {key: signature[name] for key, name in _PARAMETERS[self.kind].items()}

    def _alphabeta_default_eval(self) -> str:
        """alpha-beta's evaluation without ``eval=``: the patterns for a timed search or a
        weights file, else the hand-written one."""
        return "patterns" if self.options.keys() & {"time", "clock", "weights"} else "hand"

    def _build(self, seat: int | None, default_seed: int | None, default_time: float) -> Agent:
        o = self.options
        seed = int(o["seed"]) if "seed" in o else default_seed
        if self.kind == "human":
            from agents.play.human import HumanPlayer

            assert seat is not None
            return HumanPlayer(seat)
        if self.kind in ("random", "greedy", "positional"):
            from agents.search.ladder import GreedyAgent, PositionalAgent, RandomAgent

            baseline = {"random": RandomAgent, "greedy": GreedyAgent, "positional": PositionalAgent}[self.kind]
            return baseline(seed=seed)
        if self.kind == "pattern":
            from agents.search.patterns import PatternAgent, load_weights

            return PatternAgent(load_weights(str(o["weights"])) if "weights" in o else None, seed=seed)
        if self.kind == "alphabeta":
            from agents.search.evaluation import HAND_EVALUATION
            from agents.search.ladder import AlphaBetaAgent

            evaluation = HAND_EVALUATION
            if o.get("eval", self._alphabeta_default_eval()) == "patterns":
                from agents.search.patterns import pattern_evaluation

                evaluation = pattern_evaluation(str(o["weights"]) if "weights" in o else None)
            selectivity = float(o.get("probcut", 0))
            threads = int(o.get("threads", 1))
            if "time" in o or "clock" in o:
                extra = {"endgame_proof": int(o["proof"])} if "proof" in o else {}
                return AlphaBetaAgent(
                    time_limit=float(o["time"]) if "time" in o else None,
                    game_time=float(o["clock"]) if "clock" in o else None,
                    seed=seed,
                    threads=threads,
                    evaluation=evaluation,
                    selectivity=selectivity,
                    **extra,
                )

            return AlphaBetaAgent(
                int(o.get("depth", _ALPHABETA_DEPTH)),
                seed=seed,
                evaluation=evaluation,
                selectivity=selectivity,
                threads=threads,
            )
        if self.kind == "level":
            from agents.search.ladder import ladder_agent

            if "level" not in o:
                raise SpecError(f"{self.text!r}: say which level, e.g. 'level:3'")
            return ladder_agent(int(o["level"]), seed=seed)
        if self.kind == "mcts":
            from agents.search.mcts import TEXTBOOK_UCT, MCTSAgent, handwritten_value

            knobs: dict[str, Any] = {"seed": seed, "threads": int(o.get("threads", 1))}
            if "parallel" in o:
                knobs["parallel"] = str(o["parallel"])
            if o.get("uct"):
                guides = [k for k in ("eval", "weights", "mix", "bias", "minimax", "ply", "fpu") if k in o]
                if guides:
                    raise SpecError(f"{self.text!r}: uct=1 is textbook UCT, it takes no {', '.join(guides)}")
                knobs.update(TEXTBOOK_UCT)
            if o.get("eval") == "hand":
                knobs["heuristic"] = handwritten_value
            if "weights" in o:
                from agents.search.patterns import pattern_evaluation

                knobs["evaluation"] = pattern_evaluation(str(o["weights"]))
            for key in ("c", "mix", "bias", "minimax"):
                if key in o:
                    knobs[key] = float(o[key])
            for key in ("ply", "exact", "proof", "nodes"):
                if key in o:
                    knobs[_PARAMETERS["mcts"][key]] = int(o[key])
            if "fpu" in o:
                knobs["fpu"] = bool(o["fpu"])
            if "sims" in o:
                return MCTSAgent(simulations=int(o["sims"]), **knobs)
            if "clock" in o:
                return MCTSAgent(game_time=float(o["clock"]), **knobs)
            return MCTSAgent(time_limit=float(o.get("time", default_time)), **knobs)
        if self.kind == "alphazero":
            from agents.learn.alphazero_agent import AlphaZeroAgent
            from agents.search.puct import DEFAULT_SIMULATIONS

            net = str(o["net"]) if "net" in o else None
            time_limit = float(o["time"]) if "time" in o else None
            simulations = int(o.get("sims", DEFAULT_SIMULATIONS))
            return AlphaZeroAgent(net, simulations=simulations, time_limit=time_limit, seed=seed)
        if self.kind == "classic":
            from agents.play.adapters import adapt
            from reversi_env.state import PLAYER_SYMBOLS

            assert seat is not None
            player_class = load_classic_class(self.target, self.attribute or None)
            return adapt(player_class(PLAYER_SYMBOLS[seat]), color=seat)
        if self.kind == "python":
            from agents.play.adapters import adapt

            return adapt(_python_object(self.target, self.attribute), color=seat)
        if self.kind == "gtp":
            from agents.play.gtp import GTPEngine

            return GTPEngine(self.target)
        raise SpecError(f"unknown player kind {self.kind!r}")  # parse_spec lets none through


def parse_spec(spec: str) -> PlayerSpec:
    """Read a spec without building anything (so bad specs fail before a game)."""
    if not isinstance(spec, str) or not spec.strip():
        raise SpecError(f"a player spec is a non-empty string ({SPEC_HELP}), got {spec!r}")
    text = spec.strip()
    if len(text) > MAX_SPEC:
        raise SpecError(f"a player spec is at most {MAX_SPEC} characters, got one of {len(text)}")
    kind, _, rest = text.partition(":")
    kind = kind.lower()
    if kind == "gtp":
        if not rest.strip():
            raise SpecError(f"{text!r}: give the engine command, e.g. 'gtp:/usr/games/gtp-rhino'")
        return PlayerSpec(text, kind, target=rest.strip())
    if kind in ("classic", "python"):
        return _parse_target(text, kind, rest)
    if kind not in _OPTIONS:
        raise SpecError(f"unknown player {text!r}; expected one of: {SPEC_HELP}")
    return PlayerSpec(text, kind, options=_parse_options(text, kind, rest))


def canonical_spec(spec: str, default_time: float | None = None) -> str:
    """The one spelling of the player ``spec`` names: options set to their defaults left out,
    the rest in a fixed order (``alphabeta:depth=2,eval=hand`` is ``alphabeta:2``), so two specs
    of one player compare equal (the arena rates them as one). The seed stays: two seeds are two
    players' games. ``default_time``: the MCTS seconds a move of a spec with no budget, where the
    caller fixes it (``build``'s; the arena's): ``mcts:time=1`` is then ``mcts`` at 1.
    ``classic`` / ``python`` / ``gtp`` specs are their text; SpecError for a bad spec."""
    parsed = parse_spec(spec)
    if parsed.kind not in _OPTIONS:
        return f"{parsed.kind}:{parsed.text.partition(':')[2].strip()}"
    allowed, bare = _OPTIONS[parsed.kind]
    defaults = parsed._defaults(default_time)
    kept = {k: v for k, v in parsed.options.items() if not (k in defaults and defaults[k] == v)}
    items = [
        _option_text(kept[key]) if key == bare else f"{key}={_option_text(kept[key])}" for key in allowed if key in kept
    ]
    return f"{parsed.kind}:{','.join(items)}" if items else parsed.kind


def runs_code(spec: str) -> bool:
    """Whether ``spec`` starts a program or imports a module (``gtp:``, ``python:``,
    ``classic:``), or is no spec at all: a spec read from a file is never started unasked."""
    try:
        return parse_spec(spec).kind in ("gtp", "python", "classic")
    except SpecError:
        return True  # not a spec we know: certainly not one to start unasked


def make_agent(spec: str, color: object = None, *, seed: int | None = None, default_time: float = 1.0) -> Agent:
    """``parse_spec(spec).build(...)``: a fresh Agent for ``spec`` playing ``color``.

    ``color`` is needed by ``human`` and ``classic`` players (build one per
    colour); ``seed`` seeds the seeded kinds unless the spec sets its own.
    """
    return parse_spec(spec).build(color, seed=seed, default_time=default_time)


def _parse_options(text: str, kind: str, rest: str) -> dict[str, float | int | str]:
    allowed, bare = _OPTIONS[kind]
    options: dict[str, float | int | str] = {}
    if not rest:
        return options
    for item in rest.split(","):
        if not item.strip():
            raise SpecError(f"{text!r}: an empty option (a stray comma?); options are key=value separated by commas")
        key, eq, value = item.partition("=")
        key, value = key.strip().lower(), value.strip()
        if not eq:
            if bare is None:
                hint = f"options {', '.join(k + '=...' for k in allowed)}" if allowed else "no options"
                raise SpecError(f"{text!r}: {item!r} is not key=value; {kind} takes {hint}")
            key, value = bare, item.strip()
        if key not in allowed:
            known = ", ".join(allowed) if allowed else "none"
            raise SpecError(f"{text!r}: unknown option {key!r} for {kind} (known: {known})")
        number = (
            0
            if key in _TEXT_KEYS
            else _number(text, key, value, zero_ok=key in _ZERO_KEYS or f"{kind}.{key}" in _ZERO_KEYS)
        )
        key = _SYNONYMS.get(key, key)
        if key in options:
            raise SpecError(f"{text!r}: option {key!r} given twice")
        if key in _TEXT_KEYS:
            if not value:
                examples = {"net": "path.pt", "weights": "my.npz", "eval": _EVALUATIONS[0], "parallel": _PARALLEL[0]}
                example = examples[key]
                raise SpecError(f"{text!r}: {key} needs a value, e.g. {key}={example}")
            if key == "eval" and value not in _EVALUATIONS:
                raise SpecError(f"{text!r}: eval must be one of {', '.join(_EVALUATIONS)}, got {value!r}")
            if key == "parallel" and value not in _PARALLEL:
                raise SpecError(f"{text!r}: parallel must be one of {', '.join(_PARALLEL)}, got {value!r}")
            options[key] = value
        else:
            options[key] = number
    budgets = [key for key in ("depth", "time", "clock", "sims") if key in options]
    if len(budgets) > 1:
        forms = [f"{key}=..." for key in ("depth", "time", "clock", "sims") if key in allowed]
        either = ", ".join(forms[:-1]) + " or " + forms[-1]
        raise SpecError(f"{text!r}: give {kind} one budget ({either}), not {' and '.join(budgets)} together")
    if "weights" in options and options.get("eval") == "hand":
        raise SpecError(f"{text!r}: weights=FILE is for the learned evaluation; eval=hand reads no weights file")
    untimed = "sims" in options or (kind == "alphabeta" and "time" not in options and "clock" not in options)
    if "proof" in options and untimed:  # a search by depth or simulations has no time to give the proof
        raise SpecError(f"{text!r}: proof is an option of the timed search (time=SECONDS or clock=SECONDS)")
    return options


def _option_text(value: float | int | str) -> str:
    """An option's value in a player's name: short (``1.5``, not ``1.5000``), and two values never alike."""
    if isinstance(value, float) and float(f"{value:g}") == value:
        return f"{value:g}"
    return str(value)


def _number(text: str, key: str, value: str, zero_ok: bool = False) -> float | int:
    try:
        number: float | int = int(value) if key in _INT_KEYS else float(value)
    except ValueError:
        kind = "an integer" if key in _INT_KEYS else "a number"
        raise SpecError(f"{text!r}: {key} must be {kind}, got {value!r}") from None
    if number < 0 or (not zero_ok and number == 0) or number != number:
        raise SpecError(f"{text!r}: {key} must be {'>= 0' if zero_ok else '> 0'}, got {value!r}")
    if number > _MAXIMA.get(key, float("inf")):
        most = _MAXIMA[key]
        raise SpecError(
            f"{text!r}: {key} must be at most {most if isinstance(most, int) else f'{most:g}'}, got {value!r}"
        )
    return number


def _parse_target(text: str, kind: str, rest: str) -> PlayerSpec:
    # Split at the last colon so a Windows drive ("C:\\...") stays in the path.
    target, colon, attribute = rest.rpartition(":")
    if not colon or "/" in attribute or "\\" in attribute or attribute.endswith(".py"):
        target, attribute = rest, ""
    target, attribute = target.strip(), attribute.strip()
    if not target:
        example = "classic:players/my_player.py:MyPlayer" if kind == "classic" else "python:my_pkg.agents:make_agent"
        raise SpecError(f"{text!r}: expected e.g. {example!r}")
    if kind == "python" and not attribute:
        raise SpecError(f"{text!r}: name the object after the module, e.g. 'python:my_pkg.agents:make_agent'")
    if kind == "classic" and not target.endswith(".py"):
        raise SpecError(f"{text!r}: a classic player is a .py file, e.g. 'classic:my_player.py:MyPlayer'")
    return PlayerSpec(text, kind, target=target, attribute=attribute)


def load_file_module(path: str) -> ModuleType:
    """Import a Python file as a module of its own.

    Its directory is on ``sys.path`` while it loads, so its sibling modules
    import; it loads inside ``course.loading()``, so course files doing
    ``from board import Board`` / ``from game import Game`` get the course
    framework, and a game such a file plays at module level does not start.
    """
    from agents.play import course

    file = Path(path).expanduser()
    if not file.is_file():
        raise SpecError(f"no such file: {str(file)!r}")
    file = file.resolve()
    name = f"_reversi_player_{file.stem}_{abs(hash(str(file))):x}"
    if name in sys.modules:
        return sys.modules[name]
    module_spec = importlib.util.spec_from_file_location(name, file)
    if module_spec is None or module_spec.loader is None:
        raise SpecError(f"cannot import {str(file)!r} as a Python module")
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[name] = module
    sys.path.insert(0, str(file.parent))
    skipped = course.game.skipped_runs()
    try:
        with course.loading():
            module_spec.loader.exec_module(module)
    except Exception as e:
        del sys.modules[name]
        lines = [f for f in traceback.extract_tb(e.__traceback__) if f.filename == str(file)]
        where = f" at line {lines[-1].lineno} ({(lines[-1].line or '').strip()})" if lines else ""
        why = f"{str(file)!r} failed to load{where}: {type(e).__name__}: {e}"
        if course.game.skipped_runs() > skipped and "NoneType" in str(e):
            why += (
                "; while a file is loaded for its players, Game(...).run() plays nothing and returns None,"
                " so code that uses its result fails: put the game under if __name__ == '__main__':"
            )
        raise SpecError(why) from e
    finally:
        sys.path.remove(str(file.parent))
    return module


def load_classic_class(path: str, class_name: str | None = None) -> Callable[[str], Any]:
    """The classic player class ``class_name`` from the file ``path`` (or its
    only class with a ``get_move`` method)."""
    module = load_file_module(path)
    players = [
        n
        for n, obj in vars(module).items()
        if inspect.isclass(obj) and obj.__module__ == module.__name__ and callable(getattr(obj, "get_move", None))
    ]
    if class_name is None:
        if len(players) != 1:
            found = ", ".join(players) or "none"
            raise SpecError(f"{path!r}: name the player class (classes with get_move: {found})")
        class_name = players[0]
    player_class: Any = getattr(module, class_name, None)
    if player_class is None or not callable(getattr(player_class, "get_move", None)):
        found = ", ".join(players) or "none"
        raise SpecError(f"{path!r} has no player class {class_name!r} with get_move (found: {found})")
    return player_class


def _import_from_cwd(name: str) -> ModuleType:
    """Import the module ``name`` with the current directory first on ``sys.path``
    while it loads, as ``python -c`` (an isolated player's process) and ``python
    -m`` have it, so ``python:my_bot:...`` finds ``./my_bot.py`` under the
    installed ``reversi`` script too, whose ``sys.path`` starts at its own bin
    directory."""
    here = os.getcwd()
    added = "" not in sys.path and here not in sys.path
    if added:
        sys.path.insert(0, here)
    try:
        return importlib.import_module(name)
    except ImportError as e:
        raise SpecError(f"cannot import module {name!r}: {e}") from e
    finally:
        if added:
            sys.path.remove(here)


def _python_object(target: str, attribute: str) -> object:
    from agents.play.adapters import required_positional_args

    if target.endswith(".py") or "/" in target or "\\" in target:
        module = load_file_module(target)
    else:
        module = _import_from_cwd(target)
    obj: Any = module
    for part in attribute.split("."):
        if not hasattr(obj, part):
            raise SpecError(f"{target!r} has no attribute {attribute!r}")
        obj = getattr(obj, part)
    plays = any(callable(getattr(obj, m, None)) for m in ("act", "get_move", "predict"))
    if not inspect.isclass(obj) and plays:
        return obj
    if inspect.isclass(obj) or (callable(obj) and required_positional_args(obj) == 0):
        try:
            return obj()
        except TypeError as e:
            raise SpecError(f"{target}:{attribute} must be callable with no arguments: {e}") from e
    return obj
