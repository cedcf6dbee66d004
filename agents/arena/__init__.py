"""Many games: tournaments (``tournament`` runs one, and every public name of the arena
is importable from it), split by job: the openings (``openings``), the schedule
(``schedule``), playing one scheduled game (``games``), the results file (``results``)
and the local or Ray backends (``backends``); and Bradley-Terry ratings with their
plot (``ratings``).

Imports ``agents.play`` and below, never the user interfaces.
"""
