"""Game records: JSON, transcripts and GGF, read back exactly, and one clear error for a bad file."""

from __future__ import annotations

import itertools
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import TEST_DATA, random_game

from agents.datafiles import UNNAMED_TEMPORARY_AGE, check_writable, write_text_atomic
from agents.play.match import GameResult, play_game
from agents.play.records import (
    GGFClock,
    RecordError,
    from_ggf,
    ggf_clocks,
    load_record,
    parse_start,
    parse_transcript,
    read_record,
    record,
    to_ggf,
    write_record,
    write_transcript,
)
from agents.search.ladder import RandomAgent
from reversi_env import GameState
from reversi_env.notation import PASS, action_name


def a_game(seed: int = 0) -> GameResult:
    return play_game(f"random:seed={seed}", f"greedy:seed={seed}", time_limit=None)


def test_a_transcript_reads_from_the_start_in_any_case_and_spacing() -> None:
    assert [action_name(a) for a in parse_transcript("f5d6C3 d3")] == ["F5", "D6", "C3", "D3"]
    assert parse_transcript("") == []


def test_transcripts_leave_passes_out_and_reading_puts_them_back() -> None:
    for seed in range(40):
        states = random_game(seed)
        actions = [next(a for a in s.legal_actions() if s.apply(a) == t) for s, t in itertools.pairwise(states)]
        moves = [action_name(a) for a in actions]
        text = write_transcript(moves)
        assert "pass" not in text and len(text) == 2 * sum(a != PASS for a in actions)
        assert parse_transcript(text) == actions
        assert parse_transcript(" ".join(text[i : i + 2] for i in range(0, len(text), 2))) == actions
    real = write_transcript(load_record(TEST_DATA / "ggs_triple0_saio3000.ggf").moves)
    assert real.startswith("f5f6e6f4e3c5c4d6") and len(real) == 2 * 59
    assert parse_transcript(real.upper()) == parse_transcript(real)


def test_a_pass_may_be_written() -> None:
    # X to move with no legal move: O at A1-G8, X at G8, H8 empty.
    start = GameState.from_string("O" * 62 + "X. X")
    assert parse_transcript("--h8", start) == [PASS, 63] == parse_transcript("h8", start)
    assert parse_transcript("pa h8", start) == [PASS, 63]


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("f5d6z9", "'z9' at character 5 is not a move"),
        ("f5f5", "move 2 (F5) is not legal for white"),
        ("f5--", "move 2 (PASS) is not legal for white"),
        ("d3!", "'!' at character 3"),
    ],
)
def test_a_bad_transcript_names_the_first_bad_move(text: str, needle: str) -> None:
    with pytest.raises(RecordError, match="transcript: ") as info:
        parse_transcript(text)
    assert needle in str(info.value) and "\n" not in str(info.value)


def test_json_ggf_and_transcript_files_round_trip(tmp_path: Path) -> None:
    for seed in range(5):
        game = a_game(seed)
        for name in ("g.json", "g.ggf", "g.txt"):
            write_record(game, tmp_path / name)
            back = load_record(tmp_path / name)
            assert back.moves == game.moves and back.final_state() == game.final_state()
            assert (back.winner, back.black, back.white, back.reason) == (game.winner, game.black, game.white, "end")
        assert load_record(tmp_path / "g.json") == game
        ggf = from_ggf(to_ggf(game))
        assert ggf.times == pytest.approx(game.times, abs=0.006)
        assert (ggf.black_name, ggf.white_name) == (game.black_name, game.white_name)


def test_ggf_writes_the_start_board_and_the_result_for_black() -> None:
    game = a_game(1)
    text = to_ggf(game)
    assert text.startswith("(;GM[Othello]") and text.endswith(";)")
    assert "BO[8 -------- -------- -------- ---O*--- ---*O--- -------- -------- -------- *]" in text
    assert f"RE[{game.black - game.white:+.3f}]" in text
    assert f"B[{game.moves[0].lower()}//" in text


def test_a_game_from_a_position_keeps_its_start_in_every_format(tmp_path: Path) -> None:
    start = random_game(7, plies=20)[-1]
    game = play_game("greedy", "greedy", time_limit=None, start=start)
    for name in ("g.json", "g.ggf"):
        write_record(game, tmp_path / name)
        back = load_record(tmp_path / name)
        assert back.start_state() == start and back.final_state() == game.final_state()


def test_a_real_ggs_game_reads() -> None:
    game = load_record(TEST_DATA / "ggs_triple0_saio3000.ggf")
    assert (game.black_name, game.white_name) == ("triple0", "Saio3000")
    assert game.moves[:3] == ["F5", "F6", "E6"] and len(game.moves) == 59
    assert game.reason == "interrupted"  # the record stops before the last pass and move
    final = game.final_state()
    assert final.num_empty() == 1 and final.legal_actions() == [PASS]


def test_ggf_resign_and_timeout_flags_are_kept() -> None:
    text = "(;GM[Othello]PB[a]PW[b]RE[-64.000:r]B[f5//1.5]W[d6//2.25];)"
    game = from_ggf(text)
    assert (game.reason, game.loser, game.winner) == ("resign", "black", "white")
    assert game.times == [1.5, 2.25]
    assert from_ggf(to_ggf(game)).reason == "resign"


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("(;GM[Othello]B[f5]", "does not end with ';)'"),
        ("GM[Othello]B[f5];)", "starts with '(;'"),
        ("(;GM[Chess]B[e4];)", "not Othello"),
        ("(;GM[Othello]B[f5]W[f5];)", "move 2 W[f5] is not legal"),
        ("(;GM[Othello]W[f5];)", "move 1 W[f5] is not legal"),
        ("(;GM[Othello]B[zz];)", "move 1 B[zz] is not a move"),
        ("(;GM[Othello]B[f5//slow];)", "is not a move"),
        ("(;GM[Othello]BO[8 -------- *];)", "not an 8 x 8 board"),
        ("(;GM[Othello]BO[8 -------- -------- -------- ---O*--- ---*O--- -------- -------- ------x- *];)", "only"),
        ("(;GM[Othello] junk B[f5];)", "'junk B[f5]' is not a property"),
    ],
)
def test_a_bad_ggf_is_one_clear_error(text: str, needle: str) -> None:
    with pytest.raises(RecordError) as info:
        read_record(text)
    assert needle in str(info.value) and "\n" not in str(info.value)


def test_ggf_clocks_read_as_ggs_and_nboard_write_them() -> None:
    game = "(;GM[Othello]{};)"
    assert ggf_clocks(game.format("")) == {}
    assert ggf_clocks(game.format("TI[15:00]")) == {0: GGFClock(900.0), 1: GGFClock(900.0)}  # grace 2:00 unsaid
    assert ggf_clocks(game.format("TI[5:00/10/0]"))[1] == GGFClock(300.0, 10.0, 0.0)
    assert ggf_clocks(game.format("TB[1:00:00]TW[1.00:00:30//1:00]")) == {
        0: GGFClock(3600.0),
        1: GGFClock(86430.0, 0.0, 60.0),
    }
    assert GGFClock(60.0, 2.0, 30.0).left(50.0, 5) == 20.0  # 60 + 5 increments - 50
    assert GGFClock(60.0, 0.0, 30.0).left(70.0, 5) == 20.0  # into the grace
    assert GGFClock(60.0, 0.0, 0.0).left(70.0, 5) == 0.0
    for bad in ("TI[soon]", "TI[-5]", "TI[//]", "TI[1/2/3/4]", "TB[inf]"):
        with pytest.raises(RecordError, match=re.escape(bad)):
            ggf_clocks(game.format(bad))


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        ('{"winner": "black"', "not a JSON game result"),
        ('{"winner": "black", "black": 3}', "needs the field 'white'"),
        ('{"winner": "black", "black": 3, "white": 1, "moves": ["A1"], "times": [0]}', "A1"),
        ("f5 d6 h8", "move 3 (H8) is not legal"),
        (b"\xff\xfe\x00", "cannot read"),
    ],
)
def test_a_corrupt_file_gives_one_line_naming_it(tmp_path: Path, content: str | bytes, needle: str) -> None:
    path = tmp_path / "bad.json"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    with pytest.raises(RecordError) as info:
        load_record(path)
    message = str(info.value)
    assert message.startswith(f"{path}: ") and needle in message and "\n" not in message
    with pytest.raises(RecordError, match="cannot read"):
        load_record(tmp_path / "missing.json")


def test_an_empty_file_is_not_a_game(tmp_path: Path) -> None:
    # Not a game of no moves (play --load started a new game from it, replay showed a 2-2 draw).
    for content in ("", " \n\n"):
        (tmp_path / "empty.json").write_text(content)
        with pytest.raises(RecordError, match=r"empty.json: empty, not a game record$"):
            load_record(tmp_path / "empty.json")
    with pytest.raises(RecordError, match=r"^no file name given$"):
        load_record("")


def test_a_write_that_fails_names_the_file_not_its_temporary(tmp_path: Path) -> None:
    result = play_game(RandomAgent(seed=1), RandomAgent(seed=2))
    for path in (tmp_path, tmp_path / "missing" / "game.json"):
        with pytest.raises(OSError) as info:
            write_record(result, path)
        assert str(path) in str(info.value) and ".tmp" not in str(info.value)
        with pytest.raises(OSError, match=re.escape(str(path))):
            check_writable(path)
    check_writable(tmp_path / "game.json")
    assert list(tmp_path.iterdir()) == []  # the probe is gone
    with pytest.raises(OSError, match="no file name"):
        check_writable("")


KILLED_BEFORE_THE_RENAME = """
import os, signal, sys
from agents.datafiles import write_text_atomic
os.replace = lambda *_: os.kill(os.getpid(), signal.SIGKILL)  # killed between the write and the rename
write_text_atomic(sys.argv[1], "killed")
"""


def test_the_temporary_files_of_writers_killed_mid_write_do_not_pile_up(tmp_path: Path) -> None:
    # Each SIGKILL between write and rename left one hidden .tmp beside the file for good; a
    # train-az run killed and resumed again and again piled up replay buffers of tens of MB.
    target = tmp_path / "progress.json"
    proc = subprocess.run([sys.executable, "-c", KILLED_BEFORE_THE_RENAME, str(target)], timeout=60)
    assert proc.returncode == -signal.SIGKILL
    assert len(list(tmp_path.glob(".progress.json.*.tmp"))) == 1 and not target.exists()
    live = tmp_path / f".progress.json.{os.getpid()}.abcd_123.tmp"  # a writer still at work: left alone
    live.write_text("writing")
    write_text_atomic(target, "saved")
    assert target.read_text() == "saved"
    assert sorted(tmp_path.iterdir()) == [live, target]
    # Older versions named theirs without the process id: removed once a day old, a fresh one
    # (an older writer may be at work) left alone, as is another target's.
    old, fresh, other = (
        tmp_path / name
        for name in (".progress.json.k2x_9qaz.tmp", ".progress.json.abcdefgh.tmp", ".progress.json.x.k2x_9qaz.tmp")
    )
    for temp in (old, fresh, other):
        temp.write_text("left")
    two_days_ago = time.time() - 2 * UNNAMED_TEMPORARY_AGE
    os.utime(old, (two_days_ago, two_days_ago))
    os.utime(other, (two_days_ago, two_days_ago))
    write_text_atomic(target, "saved again")
    assert sorted(tmp_path.iterdir()) == sorted([live, fresh, other, target])


def test_a_start_is_a_board_and_side_or_a_transcript() -> None:
    state = random_game(3, plies=12)[-1]
    assert parse_start(state.compact()) == state
    assert parse_start(state.compact().replace(" ", "")) == state
    assert parse_start("f5d6c3") == GameState.initial().apply("F5").apply("D6").apply("C3")
    assert parse_start("") == GameState.initial()
    with pytest.raises(RecordError, match="not legal"):
        parse_start("f5f5")
    with pytest.raises(RecordError, match="65th character"):
        parse_start("." * 64 + "Z")


@pytest.mark.parametrize(
    ("encoding", "bom"),
    [("utf-8", b"\xef\xbb\xbf"), ("utf-16-le", b"\xff\xfe"), ("utf-16-be", b"\xfe\xff")],
)
def test_a_record_saved_with_a_byte_order_mark_loads(tmp_path: Path, encoding: str, bom: bytes) -> None:
    # What Windows editors save: a transcript read as '\ufefff5d6...', not a move, and
    # UTF-16 as a file that "cannot read"; the same game as without the mark now.
    game = a_game(3)
    texts = {"game.txt": write_transcript(game.moves), "game.json": game.to_json(), "game.ggf": to_ggf(game)}
    for name, text in texts.items():
        path = tmp_path / name
        path.write_bytes(bom + text.encode(encoding))
        loaded = load_record(path)
        assert loaded.moves == game.moves and loaded.final_state() == game.final_state()


def test_names_and_details_from_a_file_cannot_drive_the_terminal(tmp_path: Path) -> None:
    # A record is data from anywhere: an escape sequence in a name was printed as it is
    # by replay (colours, a cleared screen, a rewritten line).
    game = a_game(4)
    game.black_name, game.white_name = "evil\x1b[2J\x1b[31m", "right\u202eleft"
    game.details = "line one\nline\x07two"
    path = tmp_path / "game.json"
    path.write_text(game.to_json())
    loaded = load_record(path)
    assert loaded.black_name == "evil?[2J?[31m" and loaded.white_name == "right?left"
    assert loaded.details == "line one\nline?two"
    ggf = read_record("(;GM[Othello]PB[a\x1bc]PW[w\nx]B[f5];)")
    assert ggf.black_name == "a?c" and ggf.white_name == "w?x"


def test_a_quit_game_reads_back_from_ggf_as_a_quit() -> None:
    # to_ggf marks a game ended by Q (scored as it stands) ":s"; reading it back lost the reason.
    played = a_game(6)
    quitted = record(played.moves[:10], played.times[:10])
    quitted.reason, quitted.details = "quit", "black quit: typed Q"
    text = to_ggf(quitted)
    assert ":s]" in text
    back = read_record(text)
    assert back.reason == "quit" and back.loser is None and back.moves == quitted.moves
    assert back.summary().endswith("; a player quit")


def test_an_unfinished_record_names_no_winner() -> None:
    # "black wins, 5-2 ...; interrupted" for a transcript of an opening, or after a Ctrl-C at move 1.
    opening = read_record("f5d6c3")
    b, w = opening.final_state().score()
    assert opening.reason == "interrupted"
    assert opening.summary() == f"not finished, {b}-{w} (black black, white white); interrupted"
    assert a_game(5).summary().split(",")[0] in ("black wins", "white wins", "draw")
