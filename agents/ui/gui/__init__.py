"""``reversi gui``: Reversi in a pygame window, under the tournament rules.

A person against an AI, two people at one window, or the AI against itself
(a demo). The board is drawn by ``reversi_env.render`` (legal-move hints, the
last move and the discs it flipped); a side panel shows each side's discs and
clocks, whose turn it is with the time left, "thinking..." while the AI
searches, the last message and the moves, and buttons (new game, undo, who
plays, swap colours, the AI and its strength, resign, save, load). At the end
a dialog names the winner and the difference. The V key shows the engine's
analysis: each legal move's value on its square, the evaluation over the
game as a graph and the best line, in a strip below the board.

The rules are the match runner's: a move may take ``time_limit`` seconds
(60 by default, people too), three illegal AI moves lose, a program that
raises loses, a person may resign; forced passes are played at once.

- ``flow``: the game, its clocks and rules (no pygame);
- ``seats``: who plays each colour, and which AI at which strength (no pygame);
- ``worker``: the AI's searches in daemon threads;
- ``control``: what the buttons do to the game, and the AI's turns (no pygame);
- ``draw``: painting the panel, the buttons and the end dialog;
- ``analysis``: the analysis, searched in a thread of its own, and its painting;
- ``view``: what the panel and the dialog say, and where the buttons are;
- ``events``: pygame's clicks and keys turned into the buttons' actions;
- ``app``: ``GuiApp``, wiring the others, and the window loop.
"""

from agents.ui.gui.app import GuiApp
from agents.ui.gui.draw import BOARD_SIZE, PANEL_WIDTH, WINDOW_SIZE
from agents.ui.gui.seats import MODES

__all__ = ["BOARD_SIZE", "MODES", "PANEL_WIDTH", "WINDOW_SIZE", "GuiApp"]
