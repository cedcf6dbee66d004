"""Borrowed array views: the same memory, no reference count."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit, types
from numba.core import cgutils
from numba.core.errors import TypingError
from numba.extending import intrinsic

from agents.search.borrowed import borrowed


@intrinsic
def _counted(typingctx, array):  # type: ignore[no-untyped-def]
    """Whether numba counts references to ``array`` (its meminfo is not null)."""

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        meminfo = context.make_array(signature.args[0])(context, builder, args[0]).meminfo
        return builder.icmp_unsigned("!=", meminfo, cgutils.get_null_value(meminfo.type))

    return types.boolean(array), codegen


@njit
def _counts(a: np.ndarray) -> tuple[bool, bool]:
    return _counted(a), _counted(borrowed(a))


@njit
def _fill(a: np.ndarray, depth: int) -> int:
    """Write ``depth`` down a recursion that passes the view on, as the searches do."""
    if depth == 0:
        return 0
    view = borrowed(a)
    view.flat[depth % a.size] = depth
    return 1 + _fill(view, depth - 1)


@njit
def _geometry(a: np.ndarray) -> tuple[tuple[int, int], tuple[int, int]]:
    view = borrowed(a)
    return view.shape, view.strides


def test_a_view_is_not_counted_and_its_array_is() -> None:
    assert _counts(np.zeros(8, dtype=np.int64)) == (True, False)


def test_writes_through_a_view_land_in_the_callers_array() -> None:
    table = np.zeros((4, 4), dtype=np.uint64)
    assert _fill(table, 15) == 15
    assert table.ravel().tolist() == [0, *range(1, 16)]


def test_a_view_keeps_shape_and_strides() -> None:
    table = np.zeros((6, 4), dtype=np.uint64)
    assert _geometry(table) == ((6, 4), (32, 8))


def test_only_arrays_can_be_borrowed() -> None:
    @njit
    def scalar(x: int) -> int:
        return borrowed(x)  # type: ignore[no-any-return]

    with pytest.raises(TypingError):
        scalar(3)
