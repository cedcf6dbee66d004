"""WTHOR files: games written from the project's own games read back the same; bad files are one line."""

from __future__ import annotations

import datetime
from itertools import pairwise
from pathlib import Path

import numpy as np
import pytest
from conftest import random_game

from reversi_env import PASS, GameState
from reversi_env.wthor import (
    GAME_SIZE,
    HEADER_SIZE,
    WthorError,
    WthorGame,
    pack_wtb,
    read_names,
    read_wtb,
    replay,
    score_of,
    write_names,
    write_wtb,
)

DAY = datetime.date(2024, 5, 17)


def _game(seed: int, plies: int | None = None) -> tuple[list[int], GameState]:
    """A seeded random game's actions (passes included) and its last position."""
    states = random_game(seed, plies)
    actions = [next(a for a in s.legal_actions() if s.apply(a) == t) for s, t in pairwise(states)]
    return actions, states[-1]


def _wthor_games(n: int) -> list[WthorGame]:
    games = []
    for seed in range(n):
        actions, _ = _game(seed, plies=None if seed % 3 else 20 + seed)  # some stop early, as a resignation does
        moves = tuple(a for a in actions if a != PASS)
        games.append(WthorGame(moves, score_of(moves), seed % 65, seed % 7, 2 * seed, 2 * seed + 1))
    return games


def test_games_written_read_back_the_same(tmp_path: Path) -> None:
    games = _wthor_games(12)
    path = tmp_path / "WTH_2024.wtb"
    write_wtb(path, games, year=2024, created=DAY)
    assert path.stat().st_size == HEADER_SIZE + GAME_SIZE * len(games)
    base = read_wtb(path)
    assert base.games == games
    assert (base.header.created, base.header.games, base.header.year, base.header.names) == (DAY, 12, 2024, 0)
    assert base.players == [] and base.player(3) == "player 3"  # no WTHOR.JOU beside it


def test_the_name_lists_beside_a_base_are_read(tmp_path: Path) -> None:
    write_wtb(tmp_path / "WTH_2024.wtb", _wthor_games(2), year=2024, created=DAY)
    players = ["Tamenori Hideshi", "Brian Rose", "Éric Lévy"]
    write_names(tmp_path / "WTHOR.JOU", players, created=DAY)
    write_names(tmp_path / "wthor.trn", ["Championnat de France"], created=DAY)
    assert (tmp_path / "WTHOR.JOU").stat().st_size == HEADER_SIZE + 20 * 3
    assert (tmp_path / "wthor.trn").stat().st_size == HEADER_SIZE + 26
    assert read_names(tmp_path / "WTHOR.JOU") == players
    base = read_wtb(tmp_path / "WTH_2024.wtb")
    assert base.players == players and base.tournaments == ["Championnat de France"]
    assert base.player(1) == "Brian Rose" and base.tournament(0) == "Championnat de France"


def test_moves_are_written_as_ten_times_the_row_plus_the_column() -> None:
    data = pack_wtb([WthorGame((19, 18, 17), 33)], year=2000, created=DAY)  # D3 C3 B3
    assert data[HEADER_SIZE + 6 : HEADER_SIZE + 8] == bytes([33, 0])
    assert data[HEADER_SIZE + 8 : HEADER_SIZE + 12] == bytes([34, 33, 32, 0])
    assert data[:4] == bytes([20, 24, 5, 17])


def test_replay_puts_back_the_forced_passes() -> None:
    for seed in range(40):
        actions, end = _game(seed)
        if PASS in actions:
            break
    else:
        pytest.fail("no random game with a pass in 40 seeds")
    moves = [a for a in actions if a != PASS]
    assert replay(moves) == actions
    black, white = end.score()
    empty = 64 - black - white
    assert score_of(moves) == (black + empty if black > white else black if black < white else 32)


@pytest.mark.parametrize(
    ("mangle", "message"),
    [
        (lambda d: d[:10], "10 bytes, shorter than the 16-byte header"),
        (lambda d: d[:-5], "the header counts 3 games, the file holds 2 and 63 bytes"),
        (lambda d: d + bytes(68), "the header counts 3 games, the file holds 4"),
        (lambda d: d[:2] + bytes([13, 1]) + d[4:], "the header's date 2024-13-01 is not a date"),
        (
            lambda d: d[: HEADER_SIZE + 8] + bytes([99]) + d[HEADER_SIZE + 9 :],
            "game 1, move 1: byte 99 is not a square",
        ),
        (
            lambda d: d[: HEADER_SIZE + 68 + 8 + 5] + bytes([0, 56]) + d[HEADER_SIZE + 68 + 8 + 7 :],
            "game 2, move 7: byte 56 follows the end of the game",
        ),
        (lambda d: d[: HEADER_SIZE + 6] + bytes([65]) + d[HEADER_SIZE + 7 :], "black's score 65 is more than 64"),
    ],
)
def test_a_corrupt_file_is_one_line(tmp_path: Path, mangle: object, message: str) -> None:
    good = pack_wtb(_wthor_games(3), year=2024, created=DAY)
    path = tmp_path / "bad.wtb"
    path.write_bytes(mangle(good))  # type: ignore[operator]
    with pytest.raises(WthorError, match=message) as err:
        read_wtb(path)
    assert "\n" not in str(err.value) and str(path) in str(err.value)


def test_an_illegal_move_names_the_move() -> None:
    with pytest.raises(WthorError, match=r"move 2 \(A1\) is not legal"):
        replay([19, 0])


def test_what_wthor_cannot_hold_is_refused_before_writing(tmp_path: Path) -> None:
    path = tmp_path / "x.wtb"
    with pytest.raises(WthorError, match="at most 60 squares"):
        write_wtb(path, [WthorGame((64,), 32)], year=2024)
    with pytest.raises(WthorError, match="longer than 19 bytes"):
        write_names(tmp_path / "x.jou", ["a name far too long for twenty bytes"])
    with pytest.raises(WthorError, match=r"a \.jou \(players\) or a \.trn"):
        read_names(tmp_path / "x.txt")
    assert not path.exists()
    with pytest.raises(WthorError, match="cannot read"):
        read_wtb(tmp_path / "missing.wtb")


def test_a_short_name_list_is_one_line(tmp_path: Path) -> None:
    write_names(tmp_path / "WTHOR.JOU", ["a", "b"], created=DAY)
    data = (tmp_path / "WTHOR.JOU").read_bytes()
    (tmp_path / "WTHOR.JOU").write_bytes(data[:-3])
    with pytest.raises(WthorError, match="the header counts 2 names, the file holds 1 and 17 bytes"):
        read_names(tmp_path / "WTHOR.JOU")
    assert np.frombuffer(data[4:8], dtype="<u4")[0] == 0  # N1 is 0 in a name list
