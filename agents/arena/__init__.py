"""Many games: tournaments (``tournament`` runs one, and every public name of the arena
is importable from it), split by job: the openings (``openings``), the schedule
(``schedule``), playing one scheduled game (``games``), the results file (``results``)
and the local or Ray backends (``backends``); Bradley-Terry ratings with their
plot (``ratings``); a policy's score against fixed opponents (``evaluate``) and its
Stable-Baselines3 callback (``sb3_callback``, with the ``sb3`` extra).

Imports ``agents.play`` and below, never the user interfaces.
"""
