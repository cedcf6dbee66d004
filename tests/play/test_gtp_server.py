"""`reversi gtp`: our players as GTP engines, checked in process and through real pipes."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest

from agents.play.gtp import GTPEngine
from agents.play.gtp_server import GTPServer
from agents.play.match import play_game
from agents.search.ladder import RandomAgent
from reversi_env import GameState
from reversi_env.notation import PASS

RHINO = "/usr/games/gtp-rhino"
SERVER = [sys.executable, "-m", "agents", "gtp", "--player", "greedy", "--seed", "1"]


def test_the_protocol_answers_in_gtp_form() -> None:
    server = GTPServer("greedy")
    assert server.handle("protocol_version") == "= 2\n\n"
    assert server.handle("7 name") == "=7 reversi-env greedy\n\n"
    assert server.handle("known_command genmove") == "= true\n\n"
    assert server.handle("boardsize 10").startswith("? unacceptable size")
    assert server.handle("boardsize 8") == "=\n\n"
    assert server.handle("play black D3") == "=\n\n"
    assert server.handle("play black C4").startswith("? illegal move")  # white's turn
    assert server.handle("play white A1").startswith("? illegal move")
    reply = server.handle("genmove white")
    assert reply is not None and reply.startswith("= ")
    move = reply[2:].strip()
    assert server.state == GameState.initial().apply("D3").apply(move)
    assert server.handle("final_score") == "= 0\n\n"  # 3-3: every white reply to D3 flips one disc
    assert "X to move" in (server.handle("showboard") or "")
    assert server.handle("frobnicate").startswith("? unknown command")
    assert server.handle("# just a comment") == ""
    assert server.handle("quit") is None


def test_a_forced_pass_the_client_skips_is_played_for_the_side_to_pass() -> None:
    # A position whose mover must pass while the other side can move, from random play.
    rng = random.Random(4)
    start = None
    while start is None:
        state = GameState.initial()
        while not state.is_terminal() and start is None:
            if state.legal_actions() == [PASS]:
                start = state
            else:
                state = state.apply(rng.choice(state.legal_actions()))
    other = ("white", "black")[start.player]
    server = GTPServer("greedy")
    server.state = start
    reply = server.handle(f"genmove {other}")  # the client skipped the pass, as gtp-rhino does
    assert reply is not None and reply.startswith("= ") and "pass" not in reply
    assert server.state.player == start.player  # pass, then the other side's move: back to the passer


def test_our_client_plays_a_whole_game_against_our_server() -> None:
    with GTPEngine(SERVER, start_timeout=60.0) as engine:
        result = play_game(engine, RandomAgent(seed=2), time_limit=30.0)
    assert result.reason == "end", result.details
    assert result.final_state().is_terminal()


@pytest.mark.skipif(not Path(RHINO).exists(), reason="needs gtp-rhino (apt-get install grhino)")
def test_gtp_rhino_and_our_server_play_a_whole_game() -> None:
    with GTPEngine(SERVER, start_timeout=60.0) as ours, GTPEngine(RHINO) as rhino:
        result = play_game(rhino, ours, time_limit=30.0)
    assert result.reason == "end", result.details
    assert result.final_state().is_terminal()


def test_the_subcommand_ends_cleanly_at_the_end_of_input_and_refuses_bad_specs() -> None:
    done = subprocess.run(SERVER, input="name\n", capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout == "= reversi-env greedy\n\n" and not done.stderr
    bad = subprocess.run([*SERVER[:-4], "--player", "human"], input="", capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr and len(bad.stderr.splitlines()) == 1
