"""Square names and actions both ways, and their bad input."""

from __future__ import annotations

import numpy as np
import pytest

from reversi_env import PASS, InvalidMoveError, action_name, parse_action, parse_square, square_name
from reversi_env.notation import as_action, to_action


def test_corners_and_examples() -> None:
    assert square_name(0) == "A1" and square_name(7) == "H1"
    assert square_name(56) == "A8" and square_name(63) == "H8"
    assert square_name(19) == "D3"
    assert parse_square(" d3 ") == 19
    assert parse_action("pass") == PASS == parse_action(" PASS ")
    assert action_name(PASS) == "PASS"


def test_round_trip_every_action() -> None:
    for a in range(65):
        assert parse_action(action_name(a)) == a
        assert to_action(action_name(a).lower()) == a
        assert to_action(np.int16(a)) == a


@pytest.mark.parametrize("bad", ["", "D", "DD", "3D", "D9", "I3", "pas", "D 3 x"])
def test_bad_names(bad: str) -> None:
    with pytest.raises(InvalidMoveError, match="not a square"):
        parse_action(bad)


@pytest.mark.parametrize("bad", [None, 3, 19.0])
def test_parse_square_needs_a_string(bad: object) -> None:
    with pytest.raises(InvalidMoveError, match="string"):
        parse_square(bad)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "bad", [-1, 65, 2.0, "3", False, np.bool_(True), np.array([19]), np.array(19.0), np.array(True), np.array(65)]
)
def test_bad_actions(bad: object) -> None:
    with pytest.raises(InvalidMoveError):
        as_action(bad)


def test_a_zero_dimensional_integer_array_is_an_action() -> None:
    """What a policy's ``argmax`` returns, and what Gymnasium's Discrete contains."""
    for value in (np.array(19), np.array(19, dtype=np.uint8), np.array(PASS, dtype=np.int32)):
        a = as_action(value)
        assert a == int(value) and type(a) is int
    assert action_name(np.array(19)) == "D3" and to_action(np.array(PASS)) == PASS


def test_square_name_rejects_pass() -> None:
    with pytest.raises(InvalidMoveError, match="PASS"):
        square_name(PASS)
