"""Player specs: the one place a string like ``"mcts:time=2"`` becomes a player.

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
=======
The CLI's ``--black`` / ``--white``, the arena, the window and the protocol servers all
read these. A spec is a kind, then its options or its target: ``alphabeta:4``,
``mcts:sims=800,seed=3``, ``pattern:weights=my.npz``, ``classic:path/to/file.py:ClassName``,
``python:pkg.module:factory``, ``gtp:/path/to/engine [args]``. Each kind is one
``PlayerKind`` record (``agents.play.kinds``; the shipped ones in ``agents.play.roster``),
and this module parses, checks and builds against the registry of them: ``register`` adds
a kind, ``spec_reference()`` renders every kind and option as a markdown table.

Options are ``key=value`` pairs separated by commas (``mcts:sims=800,seed=3``).
A player's name shows every option but ``seed`` (``alphabeta-2:eval=patterns``,
``mcts-800sims:c=1.4``), so records tell two players apart; an option set to
its default is left out (``alphabeta:2,eval=hand`` is ``alphabeta-2``), so one
player has one name.
A bad spec raises ``SpecError`` (a ValueError) that says what was expected.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from agents.limits import MAX_SPEC
from agents.play.kinds import Build, Option, OptionValue, PlayerKind, SpecError, reference_table
from agents.play.loading import load_classic_class, load_file_module
from agents.play.roster import BUILTIN_KINDS

if TYPE_CHECKING:  # the rest is imported where a player is built: parsing a spec compiles nothing
    from agents.base import Agent
    from agents.clocks import TimeControl

__all__ = [
    "SPEC_HELP",
    "PlayerSpec",
    "SpecError",
    "canonical_spec",
    "load_classic_class",
    "load_file_module",
    "make_agent",
    "parse_spec",
    "player_kind",
    "player_kinds",
    "register",
    "runs_code",
    "spec_help",
    "spec_reference",
    "unregister",
    "with_option",
]

_KINDS: dict[str, PlayerKind] = {kind.name: kind for kind in BUILTIN_KINDS}
"""The registry: every kind a spec may name, by name, in the order ``--help`` lists them."""


def register(kind: PlayerKind) -> None:
    """Add ``kind`` to the registry: specs may name it from now on, in this process.

    Args:
        kind: the record; its name is lower case, without ``:`` or ``,``.

    Raises:
        ValueError: a kind of that name is registered already, or the name cannot be a spec's first word.

    An isolated kind's player is built in a child process, which knows only the kinds its
    imports register.
    """
    if not kind.name or kind.name != kind.name.strip().lower() or any(c in kind.name for c in ":,="):
        raise ValueError(f"a player kind's name is one lower-case word without ':', ',' or '=', got {kind.name!r}")
    if kind.name in _KINDS:
        raise ValueError(f"a player kind named {kind.name!r} is registered already")
    _KINDS[kind.name] = kind


def unregister(name: str) -> None:
    """Remove the kind ``name`` from the registry (KeyError if there is none)."""
    del _KINDS[name]


def player_kinds() -> tuple[PlayerKind, ...]:
    """Every registered kind, in the order ``--help`` lists them."""
    return tuple(_KINDS.values())


def player_kind(name: str) -> PlayerKind:
    """The registered kind ``name``; SpecError naming the kinds if there is none."""
    kind = _KINDS.get(name)
    if kind is None:
        raise SpecError(f"unknown player kind {name!r}; expected one of: {spec_help()}")
    return kind


def spec_help() -> str:
    """The spec forms of every registered kind in one line, for error messages and ``--help``."""
    return ", ".join(form for kind in _KINDS.values() for form in kind.forms)


def spec_reference() -> str:
    """The spec reference: every registered kind and its options as markdown tables
    (``kinds.reference_table``), for the docs to include."""
    return reference_table(_KINDS.values())


SPEC_HELP = spec_help()
"""The spec forms in one line, for ``--help`` (the shipped kinds; errors read ``spec_help()``)."""

_OPTIONS: dict[str, tuple[tuple[str, ...], str | None]] = {
    kind.name: (kind.keys, kind.bare) for kind in BUILTIN_KINDS if kind.read_target is None
}
"""The shipped kinds that take options: kind -> (option keys, the key a bare value stands for)."""


@dataclass(frozen=True)
class PlayerSpec:
    """A parsed spec: the kind, its options, and for ``classic`` / ``python`` /
    ``gtp`` the target (file, module or command) and the attribute name."""

    text: str
    kind: str
    options: dict[str, OptionValue] = field(default_factory=dict)
    target: str = ""
    attribute: str = ""

    @property
    def record(self) -> PlayerKind:
        """The registry's record of this spec's kind."""
        return player_kind(self.kind)

    @property
    def needs_color(self) -> bool:
        """True if building needs the colour (human and classic players do)."""
        return self.record.needs_color

    def build(
        self,
        color: object = None,
        *,
        seed: int | None = None,
        default_time: float = 1.0,
        time_control: TimeControl | None = None,
    ) -> Agent:
        """A fresh Agent for this spec, playing ``color`` (0/1, "black"/"white",
        "X"/"O"). ``seed`` is used by the seeded kinds when the spec gives none;
        ``default_time`` is the MCTS time per move when the spec sets neither
        ``time`` nor ``sims`` and ``time_control`` (the game's rule) has no game
        clock; with one, such a search plays on that clock."""
        from reversi_env.state import parse_player

        seat = None if color is None else parse_player(color)
        if self.needs_color and seat is None:
            raise SpecError(f"{self.text!r}: this player needs to know its colour (black or white)")
        o = self.options
        request = Build(
            self.text,
            o,
            self.target,
            self.attribute,
            seat,
            int(o["seed"]) if "seed" in o else seed,
            default_time,
            time_control if time_control is not None and time_control.clock is not None else None,
        )
        try:
            agent = self.record.build(request)
        except SpecError:
            raise
        except (ValueError, TypeError, ImportError, OSError, RuntimeError) as e:
            raise SpecError(f"cannot build player {self.text!r}: {e}") from e
        shown, defaults = {o.key for o in self.record.options if o.named}, self._defaults()
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
        A timed search's ``time`` is the caller's ``default_time`` (``build``'s), a default only when it is given."""
        defaults = self.record.defaults
        return {} if defaults is None else defaults(self.options, default_time)


def parse_spec(spec: str) -> PlayerSpec:
    """Read a spec without building anything (so bad specs fail before a game)."""
    if not isinstance(spec, str) or not spec.strip():
        raise SpecError(f"a player spec is a non-empty string ({spec_help()}), got {spec!r}")
    text = spec.strip()
    if len(text) > MAX_SPEC:
        raise SpecError(f"a player spec is at most {MAX_SPEC} characters, got one of {len(text)}")
    name, _, rest = text.partition(":")
    kind = _KINDS.get(name.lower())
    if kind is None:
        raise SpecError(f"unknown player {text!r}; expected one of: {spec_help()}")
    if kind.read_target is not None:
        target, attribute = kind.read_target(text, rest)
        return PlayerSpec(text, kind.name, target=target, attribute=attribute)
    return PlayerSpec(text, kind.name, options=_parse_options(text, kind, rest))


def canonical_spec(spec: str, default_time: float | None = None) -> str:
    """The one spelling of the player ``spec`` names: options set to their defaults left out,
    the rest in a fixed order (``alphabeta:depth=2,eval=hand`` is ``alphabeta:2``), so two specs
    of one player compare equal (the arena rates them as one). The seed stays: two seeds are two
    players' games. ``default_time``: the MCTS seconds a move of a spec with no budget, where the
    caller fixes it (``build``'s; the arena's): ``mcts:time=1`` is then ``mcts`` at 1.
    ``classic`` / ``python`` / ``gtp`` specs are their text; SpecError for a bad spec."""
    parsed = parse_spec(spec)
    kind = parsed.record
    if kind.read_target is not None:
        return f"{parsed.kind}:{parsed.text.partition(':')[2].strip()}"
    defaults = parsed._defaults(default_time)
    kept = {k: v for k, v in parsed.options.items() if not (k in defaults and defaults[k] == v)}
    items = [
        _option_text(kept[key]) if key == kind.bare else f"{key}={_option_text(kept[key])}"
        for key in kind.keys
        if key in kept
    ]
    return f"{parsed.kind}:{','.join(items)}" if items else parsed.kind


def with_option(spec: str, key: str, value: OptionValue) -> str:
    """``spec`` with the option ``key=value`` added (``mcts:time=1`` -> ``mcts:time=1,book=0``).

    Raises:
        SpecError: a bad spec, a kind without that option, or a spec that sets it already.
    """
    parsed = parse_spec(spec)
    if parsed.record.option(key) is None:
        raise SpecError(f"{parsed.text!r}: {parsed.kind} takes no option {key!r}")
    if key in parsed.options:
        raise SpecError(f"{parsed.text!r}: sets {key} already")
    return f"{parsed.text}{',' if ':' in parsed.text else ':'}{key}={_option_text(value)}"


def without_book(spec: str) -> str:
    """``spec`` searching its every move: ``book=0`` added where it would open from the
    package's book by default (a search by time), else ``spec`` as given (a fixed budget,
    a kind with no book, a spec that names its book). For measuring a search by itself,
    and against engines that play without their books.

    Raises:
        SpecError: a bad spec.
    """
    parsed = parse_spec(spec)
    if parsed.record.option("book") is None or "book" in parsed.options:
        return spec
    bookless = with_option(spec, "book", "0")
    return spec if canonical_spec(bookless) == canonical_spec(spec) else bookless


def runs_code(spec: str) -> bool:
    """Whether ``spec`` starts a program or imports a module (``gtp:``, ``python:``,
    ``classic:``), or is no spec at all: a spec read from a file is never started unasked."""
    try:
        return parse_spec(spec).record.runs_code
    except SpecError:
        return True  # not a spec we know: certainly not one to start unasked


def make_agent(spec: str, color: object = None, *, seed: int | None = None, default_time: float = 1.0) -> Agent:
    """``parse_spec(spec).build(...)``: a fresh Agent for ``spec`` playing ``color``.

    ``color`` is needed by ``human`` and ``classic`` players (build one per
    colour); ``seed`` seeds the seeded kinds unless the spec sets its own.
    """
    return parse_spec(spec).build(color, seed=seed, default_time=default_time)


def _parse_options(text: str, kind: PlayerKind, rest: str) -> dict[str, OptionValue]:
    options: dict[str, OptionValue] = {}
    if not rest:
        return options
    for item in rest.split(","):
        if not item.strip():
            raise SpecError(f"{text!r}: an empty option (a stray comma?); options are key=value separated by commas")
        key, eq, value = item.partition("=")
        key, value = key.strip().lower(), value.strip()
        if not eq:
            if kind.bare is None:
                hint = f"options {', '.join(k + '=...' for k in kind.keys)}" if kind.keys else "no options"
                raise SpecError(f"{text!r}: {item!r} is not key=value; {kind.name} takes {hint}")
            key, value = kind.bare, item.strip()
        option = kind.option(key)
        if option is None:
            known = ", ".join(kind.keys) if kind.keys else "none"
            raise SpecError(f"{text!r}: unknown option {key!r} for {kind.name} (known: {known})")
        number = 0 if option.value_type is str else _number(text, option, value)
        key = option.means or key
        if key in options:
            raise SpecError(f"{text!r}: option {key!r} given twice")
        options[key] = _text(text, option, value) if option.value_type is str else number
    budgets = [option.key for option in kind.options if option.budget and option.key in options]
    if len(budgets) > 1:
        forms = [f"{option.key}=..." for option in kind.options if option.budget]
        either = ", ".join(forms[:-1]) + " or " + forms[-1]
        raise SpecError(f"{text!r}: give {kind.name} one budget ({either}), not {' and '.join(budgets)} together")
    for check in kind.checks:
        check(text, options)
    return options


def _text(text: str, option: Option, value: str) -> str:
    """A text option's value, checked: not empty, one of its choices if it has them."""
    if not value:
        raise SpecError(f"{text!r}: {option.key} needs a value, e.g. {option.key}={option.example}")
    if option.choices and value not in option.choices:
        raise SpecError(f"{text!r}: {option.key} must be one of {', '.join(option.choices)}, got {value!r}")
    return value


def _option_text(value: OptionValue) -> str:
    """An option's value in a player's name: short (``1.5``, not ``1.5000``), and two values never alike."""
    if isinstance(value, float) and float(f"{value:g}") == value:
        return f"{value:g}"
    return str(value)


def _number(text: str, option: Option, value: str) -> float | int:
    key, integer = option.key, option.value_type is int
    try:
        number: float | int = int(value) if integer else float(value)
    except ValueError:
        kind = "an integer" if integer else "a number"
        raise SpecError(f"{text!r}: {key} must be {kind}, got {value!r}") from None
    if number < 0 or (not option.zero_ok and number == 0) or number != number:
        raise SpecError(f"{text!r}: {key} must be {'>= 0' if option.zero_ok else '> 0'}, got {value!r}")
    most = option.maximum
    if most is not None and number > most:
        raise SpecError(
            f"{text!r}: {key} must be at most {most if isinstance(most, int) else f'{most:g}'}, got {value!r}"
        )
    return number
