"""Everything that chooses a move by thinking: MCTS (``mcts``, the agent that
drives the numba tree of ``mcts_tree``), the alpha-beta family (one core,
``alphabeta``, with its transposition table ``tt``, time manager
``timecontrol`` and last-moves kernels ``lastmoves``; its agent in
``alphabeta_agent``, the ladder levels in ``ladder``, the exact solver's front door
in ``endgame``),
the value of a position (``evaluation``: the one seam every search takes it
from, compiled for alpha-beta, one position at a time for MCTS, batched for the
PUCT search of ``puct``, and the hand-written evaluation; ``patterns``: the
learned pattern tables), and the baselines.

Imports only ``agents.base`` and ``reversi_env``: nothing here knows about
matches, tournaments or user interfaces.

Importing any module here first imports the engine's core (MCTS and the
alpha-beta family), which a first run compiles under the compile notice: a
module imported directly (``from agents.search.mcts import MCTSAgent``) says so
as ``from agents import MCTSAgent`` does.
"""

from agents.compiling import compile_notice

with compile_notice("the engine"):
    from agents.search import ladder, mcts  # noqa: F401  (imported for the notice)
