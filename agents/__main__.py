"""``python -m agents``: the ``reversi`` command."""

from __future__ import annotations

import sys

from agents.ui.cli import main

sys.exit(main())
