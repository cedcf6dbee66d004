"""``MCTSConfig``: the knobs of the Monte Carlo tree search, one frozen record.

The agent (``agents.search.mcts.MCTSAgent``) takes one, and the numba kernels of
``agents.search.mcts_tree`` read the same fields from its ``record``, a numpy
structured scalar whose fields are the config's own (``CONFIG_DTYPE``, made from
the dataclass): a new knob is one field here and one line where a kernel uses it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields
from functools import cached_property
from typing import cast

import numpy as np
from numba import from_dtype

from agents.search.alphabeta import MAX_ENDGAME_EXACT, PROOF_EMPTIES

__all__ = [
    "CONFIG_DTYPE",
    "CONFIG_TYPE",
    "DEFAULT_BIAS",
    "DEFAULT_C",
    "DEFAULT_ENDGAME_EXACT",
    "DEFAULT_ENDGAME_PROOF",
    "DEFAULT_MAX_NODES",
    "DEFAULT_MINIMAX",
    "DEFAULT_MIX",
    "MAX_NODES",
    "MCTSConfig",
]

DEFAULT_C = 0.5
"""Default exploration constant (values are in [-1, 1]; measured best of 0.25,
0.5, 1 and 2 with the default guides, docs/engine.md; ``TEXTBOOK_UCT`` uses 1)."""

DEFAULT_ENDGAME_EXACT = 16
"""Default number of empty squares from which the root is solved exactly (at 16
empties a solve took 0.03-0.07 s of CPU here, within the node budget of a 1 s
move every time; at 18, 0.1-0.6 s, within it 4 times in 10: docs/engine.md)."""

DEFAULT_ENDGAME_PROOF = PROOF_EMPTIES
"""Default number of empty squares from which a timed search (above
``DEFAULT_ENDGAME_EXACT``) first spends part of its time trying to prove the
root's outcome with the alpha-beta engine's endgame (win/loss/draw, then the
exact score); a move proven to win or draw is played, and otherwise the tree
search takes the rest of the time. Above the exact solve the tree search had
played the endgame's first moves on its static value, and lost won or drawn
positions there against GRhino (docs/engine.md)."""

DEFAULT_MAX_NODES = 4_000_000
"""Default tree size cap: 4 M nodes of 40 bytes, 160 MB at most."""

MAX_NODES = 2**31 - 1
"""The largest tree size cap: a node's index is an int32 (``NODE_DTYPE``'s ``first``)."""

DEFAULT_BIAS = 1.0
"""Default weight of the progressive bias (the static evaluation of a move,
in [-1, 1], fading as 1 / (visits + 1))."""

DEFAULT_MIX = 1.0
"""Default share of the static evaluation in a leaf's value; the rest is the
random playout's result (AlphaGo's mixing of a value estimate and a rollout).
With the learned evaluation the playouts are worth less than their time
(docs/engine.md): none by default."""

DEFAULT_MINIMAX = 0.5
"""Default weight of a child's minimax value (over the tree's frontier, from
the static evaluation) in its selection score; the mean of its results has
the rest (implicit minimax backups, docs/engine.md)."""


def _number(name: str, value: object, low: float, high: float, *, integer: bool = False) -> float:
    """``value`` as a float if it is a number (an int with ``integer``) in [low, high], else ValueError."""
    kinds: tuple[type, ...] = (int, np.integer) if integer else (int, float, np.integer, np.floating)
    if isinstance(value, bool) or not isinstance(value, kinds) or not low <= value <= high:  # type: ignore[operator]
        what = f"an int from {low:,} to {high:,}" if integer else f"a number in [{low:g}, {high:g}]"
        raise ValueError(f"{name} must be {what}, got {value!r}")
    return float(value)  # type: ignore[arg-type]


@dataclass(frozen=True)
class MCTSConfig:
    """The search's knobs (keyword-only, as in mctx), checked when made.

    Args:
        c: the exploration constant (``DEFAULT_C``; values are in [-1, 1]).
        solver: back up proven wins, losses and draws (MCTS-Solver).
        endgame_exact: from this many empty squares down the root is solved exactly
            (at most ``MAX_ENDGAME_EXACT``; 0 turns it off).
        endgame_proof: a timed search with more than ``endgame_exact`` empties and at most this
            many first gives most of its time to proving the outcome (``DEFAULT_ENDGAME_PROOF``;
            0 turns it off).
        reuse_tree: keep the subtree of the moves played for the next search.
        max_nodes: the tree's cap in nodes of 40 bytes (at most ``MAX_NODES``; shared between
            the trees of a root-parallel search).
        informed_playouts: corner-aware playouts rather than uniformly random ones (with ``mix < 1``).
        bias: the weight of the progressive bias, ``bias * h / (visits + 1)`` (``DEFAULT_BIAS``).
        mix: the static value's share of a leaf's value, the playout's the rest (``DEFAULT_MIX``).
        ply: 1 expands a leaf on its first visit and values it by its best child; 0 on its second.
            It reads 0 with ``mix=0`` (a one-ply search needs a leaf value).
        fpu: score an unvisited child by its own static value (first-play urgency). It reads
            False when no guide asks for the static value (``guided``).
        minimax: the weight of a child's minimax value against its mean result (``DEFAULT_MINIMAX``).

    Raises:
        ValueError: a setting out of its range or of the wrong type.

    ``guided`` (not given: made from the others) is True when the static value is asked
    (``bias``, ``minimax`` or ``ply``). ``record`` is the config as the kernels read it.
    """

    c: float = DEFAULT_C
    solver: bool = True
    endgame_exact: int = DEFAULT_ENDGAME_EXACT
    endgame_proof: int = DEFAULT_ENDGAME_PROOF
    reuse_tree: bool = True
    max_nodes: int = DEFAULT_MAX_NODES
    informed_playouts: bool = True
    bias: float = DEFAULT_BIAS
    mix: float = DEFAULT_MIX
    ply: int = 1
    fpu: bool = True
    minimax: float = DEFAULT_MINIMAX
    guided: bool = field(init=False)

    def __post_init__(self) -> None:
        c = _number("c", self.c, 0.0, math.inf)
        if not 0.0 < c < math.inf:
            raise ValueError(f"c must be a positive number, got {self.c!r}")
        bias = _number("bias", self.bias, 0.0, math.inf)
        if not bias < math.inf:
            raise ValueError(f"bias must be a finite number >= 0, got {self.bias!r}")
        mix = _number("mix", self.mix, 0.0, 1.0)
        minimax = _number("minimax", self.minimax, 0.0, 1.0)
        if isinstance(self.ply, bool) or not isinstance(self.ply, (int, np.integer)) or self.ply not in (0, 1):
            raise ValueError(
                f"ply must be 0 (the leaf's own value) or 1 (the best of its children's), got {self.ply!r}"
            )
        if not isinstance(self.fpu, (bool, np.bool_)):
            raise ValueError(f"fpu must be True or False, got {self.fpu!r}")
        ply = int(self.ply) if mix > 0 else 0
        guided = bias > 0 or minimax > 0 or ply > 0
        checked = {
            "c": c,
            "solver": bool(self.solver),
            "endgame_exact": int(_number("endgame_exact", self.endgame_exact, 0, MAX_ENDGAME_EXACT, integer=True)),
            "endgame_proof": int(_number("endgame_proof", self.endgame_proof, 0, 60, integer=True)),
            "reuse_tree": bool(self.reuse_tree),
            "max_nodes": int(_number("max_nodes", self.max_nodes, 1, MAX_NODES, integer=True)),
            "informed_playouts": bool(self.informed_playouts),
            "bias": bias,
            "mix": mix,
            "ply": ply,
            "fpu": bool(self.fpu) and guided,
            "minimax": minimax,
            "guided": guided,
        }
        for name, value in checked.items():
            object.__setattr__(self, name, value)  # frozen: the checked values replace the given ones, once

    @cached_property
    def record(self) -> np.void:
        """The config as the numba kernels take it: a scalar of ``CONFIG_DTYPE``, one field a knob."""
        record = np.zeros((), dtype=CONFIG_DTYPE)
        for name in CONFIG_DTYPE.names or ():
            record[name] = getattr(self, name)
        return cast(np.void, record[()])


_NUMPY_TYPES = {"float": np.float64, "int": np.int64, "bool": np.bool_}
"""The numpy type of a field by its annotation."""

CONFIG_DTYPE = np.dtype([(f.name, _NUMPY_TYPES[str(f.type)]) for f in fields(MCTSConfig)], align=True)
"""``MCTSConfig.record``'s type: the config's fields in order, as float64, int64 and bool."""

CONFIG_TYPE = from_dtype(CONFIG_DTYPE)
"""The numba type of ``MCTSConfig.record`` (the kernels' explicit signatures)."""
