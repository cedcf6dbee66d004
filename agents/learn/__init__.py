"""Training what the search uses: the pattern evaluation's self-play data
(``selfplay``), its least-squares fit (``fit``) and the rounds that tie them
together (``train``, behind ``reversi train-eval``).

Imports ``agents.search``, ``agents.base`` and ``reversi_env`` only.
"""
