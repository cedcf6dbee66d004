"""``reversi dataset``: the built-in players' games, written as WTHOR and GGF, read back into the same arrays."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from conftest import run_cli

from agents import play_game
from agents.play.match import GameResult
from agents.play.records import dataset_game, from_ggf_games, to_ggf
from agents.search.ladder import RandomAgent
from reversi_env.dataset import ARRAYS, games_to_arrays, load_arrays
from reversi_env.observation import ObservationSpec
from reversi_env.wthor import WthorGame, read_wtb, score_of, write_wtb


@pytest.fixture(scope="module")
def results() -> list[GameResult]:
    """Games of the built-in players: random against greedy, both ways."""
    return [
        play_game(RandomAgent(seed), "greedy", time_limit=None)
        if seed % 2
        else play_game("greedy", RandomAgent(seed), time_limit=None)
        for seed in range(4)
    ]


def _write_both(results: list[GameResult], folder: Path) -> tuple[Path, Path]:
    games = [dataset_game(r) for r in results]
    wtb = folder / "WTH_2024.wtb"
    write_wtb(wtb, [WthorGame(g.moves, score_of(g.moves)) for g in games], year=2024)
    ggf = folder / "games.ggf"
    ggf.write_text("".join(to_ggf(r) + "\n" for r in results))
    return wtb, ggf


def test_wthor_and_ggf_files_of_the_players_games_read_back_the_same(results: list[GameResult], tmp_path: Path) -> None:
    wtb, ggf = _write_both(results, tmp_path)
    games = [dataset_game(r) for r in results]
    assert [g.moves for g in games] == [tuple(int(m) for m in g.moves) for g in read_wtb(wtb).games]
    assert [dataset_game(r) for r in from_ggf_games(ggf.read_text())] == games


def test_the_command_writes_the_arrays_of_every_file(
    results: list[GameResult], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    wtb, ggf = _write_both(results, tmp_path)
    out = tmp_path / "data.npz"
    status, err = run_cli(
        ["dataset", str(wtb), str(ggf), "--out", str(out), "--layout", "CHW", "--legal-moves", "--no-progress"], capsys
    )
    assert status == 0, err
    got = load_arrays(out)
    spec = ObservationSpec(layout="CHW", legal_moves=True)
    want = games_to_arrays([dataset_game(r) for r in results], spec=spec)
    n = len(want["action"])
    assert len(got["action"]) == 2 * n
    for k in ARRAYS:
        if k not in ("game", "disc_difference"):  # WTHOR's scores give the empty squares to the winner
            np.testing.assert_array_equal(got[k][:n], want[k])
            np.testing.assert_array_equal(got[k][n:], want[k])
    np.testing.assert_array_equal(got["game"][n:], want["game"] + len(results))
    np.testing.assert_array_equal(np.sign(got["disc_difference"][:n]), np.sign(want["disc_difference"]))


def test_a_corrupt_or_illegal_file_is_one_line_and_writes_nothing(
    results: list[GameResult], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    wtb, ggf = _write_both(results, tmp_path)
    out = tmp_path / "data.npz"
    (tmp_path / "short.wtb").write_bytes(wtb.read_bytes()[:-1])
    status, err = run_cli(["dataset", str(ggf), str(tmp_path / "short.wtb"), "--out", str(out)], capsys)
    assert status == 2 and err.strip().count("\n") == 0
    assert "short.wtb: the header counts 4 games, the file holds 3 and 67 bytes" in err
    data = bytearray(wtb.read_bytes())
    data[16 + 8 + 1] = data[16 + 8]  # the second move played on the first's square
    (tmp_path / "illegal.wtb").write_bytes(bytes(data))
    status, err = run_cli(["dataset", str(tmp_path / "illegal.wtb"), "--out", str(out)], capsys)
    assert status == 2 and "illegal.wtb: game 1, move 2 (" in err and "not legal" in err
    status, err = run_cli(["dataset", str(tmp_path / "notes.md"), "--out", str(out)], capsys)
    assert status == 2 and "not a game file" in err
    assert not out.exists()
