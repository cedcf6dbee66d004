"""Many games: tournaments with results files and local or Ray backends
(``tournament``), Bradley-Terry ratings with their plot (``ratings``), a policy's
score against fixed opponents (``evaluate``) and its Stable-Baselines3 callback
(``sb3_callback``, with the ``sb3`` extra).

Imports ``agents.play`` and below, never the user interfaces.
"""
