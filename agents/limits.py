"""The bounds of the settings every room checks: time limits, random openings,
exact solves, endgame scorings.

They live apart from the code they bound, which compiles with numba at import,
so that ``reversi``'s parser can show them in ``--help`` and check an option
against them without compiling the engine.
"""

from __future__ import annotations

MAX_SECONDS = 1e6
"""The longest time limit accepted (about 11 days): waits on pipes and clocks
cannot take an arbitrarily large timeout."""

MAX_OPENING_PLIES = 59
"""The most random plies an opening may have (the arena's, self-play's): it leaves at least one square to play."""

MAX_SOLVED_EMPTIES = 20
"""The most empties self-play solves from (``exact_empties``, ``solve_empties``):
it solves every such position of every game. Measured on a busy two-core
machine, one game took 0.3-1.2 s at 18 and 1-11 s at 20; two empties more
multiply that by about five to ten (40 did not finish one game in 45 s)."""

SCORINGS = ("count", "wof")
"""The exact solver's scorings: ``count``, the raw final disc difference
(default); ``wof``, empty squares go to the winner."""
