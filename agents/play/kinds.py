"""The record of a player kind: what a spec such as ``"mcts:sims=800"`` may say and how it becomes a player.

A kind (``mcts``, ``gtp``, ...) is one ``PlayerKind``: its options (``Option``: type, bounds,
whether 0 is allowed, the constructor parameter it sets), whether it runs other people's code
and so runs isolated, whether it needs its colour, the forms ``--help`` lists, the strengths
the window offers, and the function that builds it. ``agents.play.specs`` parses and checks
every spec against these records and builds through them; ``agents.play.roster`` holds the
kinds the project ships. Nothing here imports an agent: a record is read by ``--help``,
which compiles nothing, and its builder imports the agent when it builds one.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agents.base import Agent
    from agents.clocks import TimeControl

OptionValue = float | int | str
"""A parsed option's value: an int, a float or a text, as its ``Option.value_type`` says."""


class SpecError(ValueError):
    """A player spec that cannot be read or built; the message names the spec
    and the forms that are accepted."""


@dataclass(frozen=True)
class Option:
    """One ``key=value`` option of a player kind.

    Attributes:
        key: the option's name in a spec (lower case).
        value_type: ``int``, ``float`` or ``str`` (a text such as a file name).
        maximum: the largest value that plays (beyond it counters overflow or waits never end).
        zero_ok: whether 0 is a value (``alphazero:sims=0`` is the raw policy); else it must be > 0.
        choices: the values a text option may take (none: any non-empty text).
        example: a value shown when a text option is given empty.
        named: whether the player's own name already shows it, or it changes the player's
            luck, not its play (``seed``); the other options set are added to the name.
        budget: whether it is one of the kind's budgets (depth, time, ...), of which a spec gives one.
        means: the option this one is another word for (``iters`` means ``sims``).
        parameter: the agent's constructor parameter it sets, whose default is the option's.
        help: one line for the spec reference.
    """

    key: str
    value_type: type = float
    maximum: int | float | None = None
    zero_ok: bool = False
    choices: tuple[str, ...] = ()
    example: str = ""
    named: bool = False
    budget: bool = False
    means: str | None = None
    parameter: str | None = None
    help: str = ""


@dataclass(frozen=True)
class Build:
    """What a kind's builder receives: the spec's text and options, its target and attribute
    (``classic`` / ``python`` / ``gtp``), the seat (0 black, 1 white, None unknown), the seed
    (the spec's, else the caller's), the seconds a move of a timed search given no budget, and
    the game's time rule when it has a game clock: a search given no budget plays on that clock."""

    text: str
    options: Mapping[str, OptionValue]
    target: str = ""
    attribute: str = ""
    seat: int | None = None
    seed: int | None = None
    default_time: float = 1.0
    game_clock: TimeControl | None = None


@dataclass(frozen=True)
class PlayerKind:
    """One kind of player, all that specs, ``--help``, the docs and the window know of it.

    Attributes:
        name: the spec's first word (``mcts``), lower case.
        build: makes the player from a ``Build``; imports the agent's module itself, so
            that reading the record compiles nothing. Raises SpecError (or ValueError,
            TypeError, ImportError, OSError, RuntimeError, reported as "cannot build").
        summary: one line for the spec reference.
        forms: the spec's forms in ``--help`` (``mcts:time=SECONDS``).
        options: the options, in the order a canonical spec writes them.
        bare: the option a bare value stands for (``alphabeta:4`` is ``depth=4``).
        read_target: for kinds that name a file, a module or a command rather than take
            options: ``(spec text, the text after the kind) -> (target, attribute)``,
            raising SpecError for a bad one.
        runs_code: whether it starts a program or imports code: a spec read from a file
            is never started unasked.
        isolated: whether it runs in a child process of its own under a time limit or when
            isolation is asked (other people's Python code).
        needs_color: whether building needs the colour (a person, a course player class).
        defaults: ``(options, default_time) -> {option: value}``: what each option is when the
            spec leaves it out, given its others (an option set to it plays as if absent).
        checks: each ``(spec text, options)`` raises SpecError for options that do not go together.
        title: the kind's name in the window's list of opponents.
        strengths: the window's strengths of it, ``(label, spec)`` from the weakest; none: not offered.
    """

    name: str
    build: Callable[[Build], Agent]
    summary: str
    forms: tuple[str, ...]
    options: tuple[Option, ...] = ()
    bare: str | None = None
    read_target: Callable[[str, str], tuple[str, str]] | None = None
    runs_code: bool = False
    isolated: bool = False
    needs_color: bool = False
    defaults: Callable[[Mapping[str, OptionValue], float | None], dict[str, object]] | None = None
    checks: tuple[Callable[[str, Mapping[str, OptionValue]], None], ...] = ()
    title: str = ""
    strengths: tuple[tuple[str, str], ...] = ()

    def option(self, key: str) -> Option | None:
        """The option named ``key``, or None if the kind has none of that name."""
        return next((option for option in self.options if option.key == key), None)

    @property
    def keys(self) -> tuple[str, ...]:
        """The option names, in the canonical order."""
        return tuple(option.key for option in self.options)


def parameter_defaults(
    agent: Callable[..., object], options: Iterable[Option], overrides: Mapping[str, object] | None = None
) -> dict[str, object]:
    """Each option's default read from the parameter it sets in ``agent``'s signature.

    Args:
        agent: the agent's class or factory.
        options: the kind's options; those without a ``parameter`` are left out.
        overrides: parameter values that replace the signature's (``mcts:uct=1`` changes the guides').

    Returns:
        ``{option key: default}``, so the agent's signature stays the one place a default is written.
    """
    signature = {name: p.default for name, p in inspect.signature(agent).parameters.items()}
    signature.update(overrides or {})
    return {option.key: signature[option.parameter] for option in options if option.parameter}


def reference_table(kinds: Iterable[PlayerKind]) -> str:
    """The spec reference as markdown: a table of the kinds, then a table of each kind's options.

    Args:
        kinds: the records to show, in order (``agents.play.specs.player_kinds()``).

    Returns:
        Markdown text, ending in a newline; the docs generate their spec reference from it.
    """
    kinds = tuple(kinds)
    lines = ["| kind | forms | player |", "| --- | --- | --- |"]
    lines += [f"| `{k.name}` | {', '.join(f'`{form}`' for form in k.forms)} | {k.summary} |" for k in kinds]
    for kind in kinds:
        if not kind.options:
            continue
        lines += ["", f"`{kind.name}` options:", "", "| option | value | meaning |", "| --- | --- | --- |"]
        lines += [f"| `{option.key}` | {_value_text(option)} | {option.help} |" for option in kind.options]
    return "\n".join(lines) + "\n"


def _value_text(option: Option) -> str:
    """An option's values in words: ``integer, 1 to 60``, ``one of patterns, hand``."""
    if option.means:
        return f"as `{option.means}`"
    if option.choices:
        return "one of " + ", ".join(f"`{choice}`" for choice in option.choices)
    if option.value_type is str:
        return "text"
    kind = "integer" if option.value_type is int else "number"
    low = ">= 0" if option.zero_ok else "> 0"
    if option.maximum is None:
        return f"{kind} {low}"
    most = option.maximum if isinstance(option.maximum, int) else f"{option.maximum:g}"
    return f"{kind}, {0 if option.zero_ok else '> 0'} to {most}"
