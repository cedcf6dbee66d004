"""Many games: tournaments with results files and local or Ray backends
(``tournament``), and Bradley-Terry ratings with their plot (``ratings``).

Imports ``agents.play`` and below, never the user interfaces.
"""
