"""Training what the search uses: the pattern evaluation's self-play data
(``pattern_selfplay``), its least-squares fit (``fit``) and the rounds that tie
them together (``pattern_training``, behind ``reversi train-eval``); the
policy-value network (``network``), its samples, replay buffer and training
steps (``network_training``) and the AlphaZero loop (``alphazero``: self-play,
checkpoints), warm-started from the alpha-beta ladder's moves (``supervised``).

torch is imported only in this room (the network's modules); ``agents.search``
stays free of it.
"""
