"""One game under the rules: the match runner (``match``), player specs
(``specs``), adapters that let any policy play (``adapters``), the human and
course players (``human``, ``course``: the course framework), external engines
over GTP (``gtp``, on ``gtp_connection``: the engine process and its replies)
and our players as GTP engines (``gtp_server``), players in a process of their
own (``isolation``, on ``processes``), and waits on those threads that Ctrl-C
ends (``waits``). Data files are written and read by ``agents.datafiles``, a room
below search, which every room uses.

Imports ``agents.search`` and below, never the arena or the user interfaces.
"""
