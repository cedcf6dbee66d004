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

MAX_CHANNELS = 256
"""The widest residual tower a policy-value network may have (``channels``): AlphaZero's
own width. The shipped network has 32; a network of 256 channels and ``MAX_BLOCKS``
blocks holds about 47 million weights (190 MB), where a file's config that asked for
3000 channels would take gigabytes before a weight is read."""

MAX_BLOCKS = 40
"""The most residual blocks a policy-value network may have (``blocks``): AlphaZero's
deepest tower had 39. The shipped network has 3."""

MAX_WORKERS = 256
"""The most worker processes a run may start (``--workers``, ``--jobs``): the cores of the
largest machines; each worker holds an engine (hundreds of MB)."""

MAX_GAMES = 10**6
"""The most games a self-play run or an arena pairing may ask for: a million games
of self-play keep about 60 million positions (some GB) and take days here."""

MAX_SIMULATIONS = 10**5
"""The most search simulations a move of AlphaZero self-play (``--simulations``,
``--eval-sims``): AlphaZero used 800; the tree's memory grows with them."""

MAX_PARALLEL_GAMES = 4096
"""The most self-play games a worker plays side by side (one batch of leaves each)."""

MAX_BUFFER = 10**7
"""The most positions a replay buffer may hold: about 300 bytes each (two bitboards,
65 policy numbers, a value), 3 GB at the most."""

MAX_SEARCH_DEPTH = 20
"""The deepest fixed-depth alpha-beta search an option may ask for (labels, the ladder):
depth 20 already takes hours a move."""

MAX_STEPS = 10**9
"""The most iterations, training steps or positions a count option may ask for."""

MAX_ROUNDS = 10**4
"""The most play-and-refit rounds (``train-eval --rounds``) or conjugate-gradient steps a fit."""

KIB = 1 << 10
MIB = 1 << 20
GIB = 1 << 30

MAX_TEXT_FILE = 64 * MIB
"""The largest text file read whole (openings, a game record, a run's progress.json):
a file of 100,000 openings is about 12 MB, a game record a few KB."""

MAX_RESULTS_FILE = 2 * GIB
"""The largest arena results file: a game's line is about 200 bytes, so ten million games."""

MAX_DATA_FILE = 4 * GIB
"""The largest binary data file (pattern weights, a network, a replay buffer, saved
positions): the shipped weights are 1.3 MB, the shipped network 0.3 MB, a full replay
buffer (``MAX_BUFFER``) about 3 GB."""

MAX_ARRAY_BYTES = 4 * GIB
"""The most bytes one array of a data file may declare (its shape times its item size),
checked in the file's header before anything is allocated."""

MAX_SPEC = 4200
"""The longest player spec (``classic:PATH:Class``): a path of the longest Linux allows (4096
bytes) with its kind and class. A spec's errors quote it whole, so this bounds them too."""

MAX_BOOK_POSITIONS = 10**7
"""The most positions an opening book may hold (``reversi book --positions``, a book file): Edax's
largest books hold a few million; a position takes about 100 bytes in memory per move it values."""

MAX_BOOK_FILE = 2 * GIB
"""The largest opening-book file: a position is about 40 bytes in the file, so ``MAX_BOOK_POSITIONS`` fit."""
