"""Everything that chooses a move by thinking: MCTS (``mcts``, the agent that
drives the numba tree of ``mcts_tree``), the alpha-beta family with its exact
endgame mode (``ladder``, ``endgame``), evaluations and the evaluator seam a
learned model plugs into (``evaluator``), and the baselines.

Imports only ``agents.base`` and ``reversi_env``: nothing here knows about
matches, tournaments or user interfaces.
"""
