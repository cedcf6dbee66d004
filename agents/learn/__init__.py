"""Training what the search uses: the policy-value network (``network``) and the
AlphaZero loop (``alphazero``: self-play, replay buffer, training, checkpoints),
warm-started from the alpha-beta ladder's moves (``supervised``).

torch is imported only in this room; ``agents.search`` stays free of it.
"""
