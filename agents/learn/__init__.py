"""Training what the search uses: the pattern evaluation's self-play data
(``selfplay``), its least-squares fit (``fit``) and the rounds that tie them
together (``train``, behind ``reversi train-eval``); the policy-value network
(``network``) and the AlphaZero loop (``alphazero``: self-play, replay buffer,
training, checkpoints), warm-started from the alpha-beta ladder's moves
(``supervised``).

torch is imported only in this room (the network's modules); ``agents.search``
stays free of it.
"""
