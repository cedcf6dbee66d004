"""300 random games from OpenSpiel's independent othello (tests/data/README.md): legal moves before every
ply and the final disc counts must agree with ours."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import TEST_DATA

from reversi_env import PASS, GameState, action_name, parse_action

ORACLE = TEST_DATA / "oracle_games.jsonl"


def load_games(path: Path) -> list[dict]:
    with path.open() as f:
        return [json.loads(line) for line in f if line.strip()]


GAMES = load_games(ORACLE)


def test_oracle_has_all_games() -> None:
    assert len(GAMES) == 300


@pytest.mark.parametrize("index", range(len(GAMES)))
def test_oracle_game(index: int) -> None:
    game = GAMES[index]
    s = GameState.initial()
    assert len(game["legal"]) == len(game["moves"])
    for ply, (move, legal) in enumerate(zip(game["moves"], game["legal"], strict=True)):
        ours = [action_name(a) for a in s.legal_actions()]
        assert sorted(ours) == sorted(legal), f"game {index} ply {ply}: ours {ours}, oracle {legal}\n{s}"
        assert (parse_action(move) == PASS) == (ours == ["PASS"])
        s = s.apply(move)
    assert s.is_terminal(), f"game {index} not over after its last move\n{s}"
    assert s.legal_actions() == []
    assert s.score() == (game["black"], game["white"])
