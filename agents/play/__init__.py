"""One game under the rules: the match runner (``match``), player specs
(``specs``), adapters that let any policy play (``adapters``), the human and
course players (``human``, ``course``: the course framework), external engines
over GTP (``gtp``, on ``gtp_connection``: the engine process and its replies)
and our players as GTP engines (``gtp_server``), players in a process of their
own (``isolation``, on ``processes``), data files written atomically and
read strictly (``datafiles``), and waits on those threads that Ctrl-C ends (``waits``).

Imports ``agents.search`` and below, never the arena or the user interfaces.
"""
