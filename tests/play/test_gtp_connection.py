"""GTPConnection against the real gtp-rhino and against a program that never answers."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from agents.base import MoveTimeout
from agents.play.gtp_connection import EngineDiedError, EngineError, GTPConnection

RHINO = "/usr/games/gtp-rhino"
SILENT = [sys.executable, "-c", "import time; time.sleep(60)"]


@pytest.mark.skipif(not Path(RHINO).exists(), reason="needs gtp-rhino (apt-get install grhino)")
def test_replies_with_ids_on_several_lines_and_refusals() -> None:
    connection = GTPConnection([RHINO], "rhino")
    try:
        assert connection.command("7 name", 10.0) == "GTP GRhino"
        # The engine itself (not a launcher) answers, leading a process group of its own.
        assert Path(f"/proc/{connection.pid}/cmdline").read_bytes().split(b"\0")[0] == RHINO.encode()
        assert os.getpgid(connection.pid) == connection.pid
        board = connection.command("showboard", 10.0).splitlines()
        assert board[0] == "Next move: Black" and len(board) == 10
        assert board[5].split() == ["4", ".", ".", ".", "O", "X", ".", ".", "."]
        with pytest.raises(EngineError, match=r"refused '3 frobnicate': 'unknown command'"):
            connection.command("3 frobnicate", 10.0)
        assert connection.alive
    finally:
        connection.quit()
    assert not connection.alive
    with pytest.raises(EngineDiedError, match="not running"):
        connection.command("name", 10.0)


@pytest.mark.parametrize("move_bound", [False, True])
def test_a_silent_engine_is_stopped_at_the_deadline(move_bound: bool) -> None:
    connection = GTPConnection(SILENT, "silent")
    pid = connection.pid
    t0 = time.monotonic()
    if move_bound:
        with pytest.raises(MoveTimeout, match="no reply to 'name' in time"):
            connection.command("name", 30.0, move_deadline=t0 + 0.5)
    else:
        with pytest.raises(EngineError, match=r"no reply to 'name' within 0\.5 s"):
            connection.command("name", 0.5)
    assert 0.5 <= time.monotonic() - t0 < 2.0
    assert not connection.alive
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    connection.stop()  # twice is fine


def test_a_program_that_cannot_run_is_an_engine_error_at_once(tmp_path: Path) -> None:
    with pytest.raises(EngineError, match=r"cannot start engine .*No such file or directory"):
        GTPConnection([str(tmp_path / "no-such-engine")], "missing")
    text = tmp_path / "engine.txt"
    text.write_text("not a program\n")
    with pytest.raises(EngineError, match=r"cannot start engine .*Permission denied"):
        GTPConnection([str(text)], "not executable")
