"""``reversi gui``: Reversi in a pygame window, under the tournament rules.

A person against an AI, two people at one window, or the AI against itself
(a demo). The board is drawn by ``reversi_env.render`` (legal-move hints, the
last move and the discs it flipped); a side panel shows each side's discs and
clocks, whose turn it is with the time left, "thinking..." while the AI
searches, the last message and the moves, and buttons (new game, undo, who
plays, swap colours, the AI and its strength, resign, save, load). At the end
a dialog names the winner and the difference.

The rules are the match runner's: a move may take ``time_limit`` seconds
(60 by default, people too), three illegal AI moves lose, a program that
raises loses, a person may resign; forced passes are played at once.

- ``flow``: the game, its clocks and rules (no pygame);
- ``worker``: the AI's searches in daemon threads;
- ``draw``: the panel, the buttons and the end dialog;
- ``app``: ``GuiApp``, the events and the window loop around the others.
"""

from agents.ui.gui.app import MODES, GuiApp
from agents.ui.gui.draw import BOARD_SIZE, PANEL_WIDTH, WINDOW_SIZE

__all__ = ["BOARD_SIZE", "MODES", "PANEL_WIDTH", "WINDOW_SIZE", "GuiApp"]
