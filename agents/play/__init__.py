"""One game under the rules: the match runner (``match``), player specs
(``specs``), adapters that let any policy play (``adapters``), the human and
course players (``human``, ``course``: the course framework) and external engines over GTP (``gtp``).

Imports ``agents.search`` and below, never the arena or the user interfaces.
"""
