"""What a person runs: the ``reversi`` command with its one parser (``cli``,
``arena_cli``), the terminal game and the window (``gui``).

The top room: it may import every other room; nothing imports it.
"""
