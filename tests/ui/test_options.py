"""The argument types every subcommand shares: bad text is one argparse error line."""

from __future__ import annotations

import argparse

import pytest

from agents.ui.options import bounded_float, bounded_int


def _error(kind: object, text: str, capsys: pytest.CaptureFixture[str]) -> str:
    """The last line argparse prints for ``--value TEXT`` read by ``kind``."""
    parser = argparse.ArgumentParser(prog="reversi")
    parser.add_argument("--value", type=kind)
    with pytest.raises(SystemExit):
        parser.parse_args(["--value", text])
    return capsys.readouterr().err.splitlines()[-1]


def test_bounded_whole_numbers_and_numbers_say_their_bounds_alike(capsys: pytest.CaptureFixture[str]) -> None:
    for kind in (bounded_int(0, 1234567), bounded_float(0, 1234567)):
        said = _error(kind, "1234568", capsys)
        assert said == "reversi: error: argument --value: must be from 0 to 1234567, got '1234568'"


@pytest.mark.parametrize(
    ("low", "high", "said"),
    [(0.5, 1234567.5, "0.5 to 1234567.5"), (0.0, 64.0, "0 to 64"), (0, 0.001, "0 to 0.001")],
)
def test_a_bounded_number_says_its_bounds_with_every_digit(
    low: float, high: float, said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _error(bounded_float(low, high), "-1", capsys).endswith(f": must be from {said}, got '-1'")


def test_what_is_no_number_is_said_by_the_kind_of_number_asked(capsys: pytest.CaptureFixture[str]) -> None:
    assert _error(bounded_int(0, 9), "2.5", capsys).endswith(": must be a whole number, got '2.5'")
    assert _error(bounded_float(0, 9), "two", capsys).endswith(": must be a number, got 'two'")
    assert _error(bounded_float(0, 9), "nan", capsys).endswith(": must be from 0 to 9, got 'nan'")
    assert bounded_int(0, 9)("9") == 9 and bounded_float(0, 9)("0.25") == 0.25
    assert isinstance(bounded_float(0, 9)("3"), float)
