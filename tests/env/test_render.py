"""render.py: the golden text board, pixels of the image, geometry, the window, bad input."""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import pygame
import pytest

from reversi_env import GameState, InvalidMoveError, env
from reversi_env import render as rd
from reversi_env.notation import PASS, parse_square

os.environ["SDL_VIDEODRIVER"] = "dummy"  # read when a display opens, not at import

AFTER_D3 = GameState.initial().apply("D3")

GOLDEN_AFTER_D3 = """\
  A B C D E F G H
1 . . . . . . . .
2 . . . . . . . .
3 . . . X . . . .
4 . . . X X . . .
5 . . . X O . . .
6 . . . . . . . .
7 . . . . . . . .
8 . . . . . . . .
O to move
X black: 4  O white: 1
last move: D3"""


def _center(square: int, size: int = 512) -> tuple[int, int]:
    x, y, w, h = rd.square_rect(square, size=size)
    return x + w // 2, y + h // 2


def _pixel(img: np.ndarray, xy: tuple[int, int]) -> np.ndarray:
    return img[xy[1], xy[0]].astype(int)


def _is_green(rgb: np.ndarray) -> bool:
    r, g, b = rgb
    return bool(g > r + 60 and g > b + 30)


# -- text --------------------------------------------------------------------------


def test_ansi_matches_the_golden_board() -> None:
    assert rd.ansi(AFTER_D3, parse_square("D3")) == GOLDEN_AFTER_D3


def test_ansi_without_last_move_and_with_a_pass() -> None:
    assert rd.ansi(AFTER_D3) == GOLDEN_AFTER_D3.rsplit("\n", 1)[0]
    assert rd.ansi(AFTER_D3, PASS).endswith("last move: PASS")


def test_ansi_rejects_bad_input() -> None:
    with pytest.raises(TypeError):
        rd.ansi("X to move")  # type: ignore[arg-type]
    with pytest.raises(InvalidMoveError):
        rd.ansi(AFTER_D3, 65)


def test_env_ansi_render_is_the_same_text() -> None:
    e = env(render_mode="ansi")
    e.reset()
    e.step(parse_square("D3"))
    assert e.render() == GOLDEN_AFTER_D3


# -- the image ---------------------------------------------------------------------


def test_board_image_pixels() -> None:
    d3, d4, e5, c3 = (parse_square(s) for s in ("D3", "D4", "E5", "C3"))
    img = rd.board_image(AFTER_D3, last_move=d3, flipped=[d4])
    assert img.dtype == np.uint8 and img.shape == (512, 512, 3)
    assert _is_green(_pixel(img, _center(parse_square("A1"))))  # an empty square
    assert _pixel(img, _center(d4)).max() < 60  # a black disc is dark
    assert _pixel(img, _center(e5)).min() > 200  # a white disc is light
    plain = rd.board_image(AFTER_D3, last_move=d3, flipped=[d4], hints=False)
    assert _pixel(img, _center(c3)).sum() > _pixel(plain, _center(c3)).sum() + 150  # white's light hint dot
    assert (img != plain).any(axis=2).sum() < 3 * 200  # and hints change nothing else (3 small dots)
    r, g, b = _pixel(img, _center(d3))
    assert r > 150 and g < 100 and b < 100  # the last move's red dot
    x, y = _center(d4)
    ring = [_pixel(img, (x + dx, y)) for dx in range(18, 28)]
    assert any(p[0] > 200 and 100 < p[1] < 220 and p[2] < 80 for p in ring)  # orange ring on a flipped disc
    x0, y0, _, _ = rd.square_rect(0)
    assert not _is_green(_pixel(img, (x0 // 2, y0 // 2)))  # the coordinate frame is not board


def test_hints_can_be_turned_off_and_size_scales() -> None:
    c3 = parse_square("C3")
    img = rd.board_image(AFTER_D3, hints=False, size=200)
    assert img.shape == (200, 200, 3)
    assert _is_green(_pixel(img, _center(c3, 200)))


def test_board_image_is_draw_board_at_an_origin() -> None:
    surface = pygame.Surface((300, 260))
    surface.fill((255, 0, 255))
    rd.draw_board(surface, AFTER_D3, last_move=19, origin=(40, 10), size=240)
    drawn = pygame.surfarray.array3d(surface).transpose(1, 0, 2)
    np.testing.assert_array_equal(drawn[10:250, 40:280], rd.board_image(AFTER_D3, last_move=19, size=240))
    assert tuple(drawn[5, 5]) == (255, 0, 255)  # nothing drawn outside the square


def test_env_rgb_array_render() -> None:
    e = env(render_mode="rgb_array", screen_size=256)
    e.reset()
    e.step(parse_square("D3"))
    img = e.render()
    flipped = GameState.initial().flipped("D3")
    np.testing.assert_array_equal(img, rd.board_image(AFTER_D3, last_move=19, flipped=flipped, size=256))


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"size": 10}, ValueError),
        ({"size": 512.0}, ValueError),
        ({"origin": (1,)}, ValueError),
        ({"origin": (1.5, 2)}, ValueError),
        ({"flipped": [64]}, InvalidMoveError),
        ({"flipped": ["D4"]}, InvalidMoveError),
        ({"last_move": -1}, InvalidMoveError),
        ({"hints": "yes"}, TypeError),
    ],
)
def test_draw_board_rejects_bad_input(kwargs: dict[str, Any], error: type[Exception]) -> None:
    surface = pygame.Surface((600, 600))
    with pytest.raises(error):
        rd.draw_board(surface, AFTER_D3, **kwargs)


def test_draw_board_needs_a_surface_and_a_state() -> None:
    with pytest.raises(TypeError, match="Surface"):
        rd.draw_board(np.zeros((512, 512, 3)), AFTER_D3)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="GameState"):
        rd.board_image(None)  # type: ignore[arg-type]


# -- geometry ----------------------------------------------------------------------


@pytest.mark.parametrize(("origin", "size"), [((0, 0), 512), ((37, 5), 300)])
def test_square_at_inverts_square_rect(origin: tuple[int, int], size: int) -> None:
    for sq in range(64):
        x, y, w, h = rd.square_rect(sq, origin=origin, size=size)
        assert w > 0 and h > 0
        for px, py in ((x, y), (x + w - 1, y + h - 1), (x + w / 2, y + h / 2)):
            assert rd.square_at((px, py), origin=origin, size=size) == sq
    assert rd.square_at((origin[0] + 1, origin[1] + 1), origin=origin, size=size) is None  # the frame
    assert rd.square_at((origin[0] + size + 5, origin[1] + 50), origin=origin, size=size) is None
    assert rd.square_at((-100, -100), origin=origin, size=size) is None


def test_geometry_rejects_bad_input() -> None:
    for pos in ("A1", (1,), None):
        with pytest.raises(ValueError):
            rd.square_at(pos)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        rd.square_at((3, 3), size=0)
    with pytest.raises(InvalidMoveError):
        rd.square_rect(PASS)
    with pytest.raises(ValueError):
        rd.margin(5)


# -- the window ----------------------------------------------------------------------


def test_window_opens_lazily_and_closes_idempotently() -> None:
    pygame.display.quit()  # whatever an earlier test left open
    window = rd.BoardWindow(size=128, fps=0)
    assert not window.is_open
    window.show(AFTER_D3, last_move=19)
    assert window.is_open and pygame.display.get_surface() is not None
    assert pygame.display.get_surface().get_size() == (128, 128)
    window.close()
    window.close()
    assert not window.is_open and not pygame.display.get_init()
    window.show(GameState.initial())
    assert window.is_open
    window.close()


def test_window_rejects_bad_input() -> None:
    with pytest.raises(ValueError):
        rd.BoardWindow(size=3)
    with pytest.raises(ValueError):
        rd.BoardWindow(fps=-1)
    window = rd.BoardWindow(size=128, fps=0)
    with pytest.raises(TypeError):
        window.show("board")  # type: ignore[arg-type]
    assert not window.is_open


def test_env_human_mode_opens_and_closes_a_window() -> None:
    pygame.display.quit()  # whatever an earlier test left open
    e = env(render_mode="human", screen_size=128)
    e.reset()
    assert not pygame.display.get_init()  # reset opens nothing
    e.step(parse_square("D3"))  # human mode draws after each step
    assert pygame.display.get_surface() is not None
    e.close()
    e.close()
    assert not pygame.display.get_init()
