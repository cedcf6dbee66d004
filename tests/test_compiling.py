"""The first run's notice: a cold numba cache is a minute of compiling, which is said, not silent."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import time
from pathlib import Path

from agents.compiling import compile_notice
from tests.conftest import REPO_ROOT

NOTICE = "compiling the engine for this machine (first run only; later runs start at once)"


def test_a_slow_block_is_announced_with_its_seconds() -> None:
    out = io.StringIO()
    with compile_notice("the engine", after=0.2, stream=out):
        time.sleep(2.3)
    shown = out.getvalue()
    assert NOTICE in shown
    assert shown.endswith("00:02\n")  # the clock counts the block's seconds, not the notice's


def test_a_quick_block_says_nothing() -> None:
    out = io.StringIO()
    with compile_notice("the engine", after=5.0, stream=out):
        time.sleep(0.05)
    assert out.getvalue() == ""


def _import_agents(cache: Path | None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    if cache is not None:
        env["NUMBA_CACHE_DIR"] = str(cache)
    return subprocess.run(
        [sys.executable, "-c", "import agents"],
        cwd=REPO_ROOT,  # the checkout's code and, without NUMBA_CACHE_DIR, its warm cache
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )


def test_a_cold_first_import_says_it_is_compiling(tmp_path: Path) -> None:
    """An empty numba cache, as after an install: the import compiles for a minute or more and says so."""
    cold = _import_agents(tmp_path / "numba-cache")
    assert cold.returncode == 0, cold.stderr
    assert cold.stdout == ""
    assert NOTICE in cold.stderr
    assert "Traceback" not in cold.stderr


def test_a_warm_import_says_nothing() -> None:
    import agents  # noqa: F401  (fills the checkout's cache, if this worker has not yet)

    warm = _import_agents(None)
    assert warm.returncode == 0, warm.stderr
    assert warm.stderr == ""
