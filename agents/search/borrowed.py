"""Arrays passed down a numba call tree without reference counting.

Numba counts the references to every array that a function it does not inline
receives: a locked (atomic) add as the call starts and a locked subtract as it
ends. The alpha-beta search passes four arrays to every node it visits and
the MCTS loop passes its arrays to several functions each simulation, so at
tens of millions of calls a second the counting is a large share of their time
(``bench_solver.py`` and ``bench_mcts.py`` measure it). A borrowed view is the
same array with a null meminfo, which numba's counting skips. The caller's
array keeps the memory alive, so a view may only be passed down a call the
caller waits for: never stored, returned or handed to another thread.
"""

from __future__ import annotations

from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

__all__ = ["borrowed"]


@intrinsic
def borrowed(typingctx, array):  # type: ignore[no-untyped-def]
    """``array`` (any numba array) as a view numba does not count references to."""
    if not isinstance(array, types.Array):
        return None
    sig = array(array)

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        view = context.make_array(signature.args[0])(context, builder, args[0])
        view.meminfo = cgutils.get_null_value(view.meminfo.type)
        return view._getvalue()

    return sig, codegen
