"""Fixed-seed searches find what they found when ``tests/data/mcts_golden.json`` was
written (``tests/data/make_mcts_golden.py``): the move and every root visit count of
MCTS under six settings on 24 positions, and of PUCT. A rewrite of the search's code
that keeps its behaviour keeps them all."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agents.search.mcts import MCTSAgent

GOLDEN_FILE = Path(__file__).parent.parent / "data" / "mcts_golden.json"


def load_golden() -> dict[str, list[dict[str, Any]]]:
    with GOLDEN_FILE.open() as f:
        data: dict[str, list[dict[str, Any]]] = json.load(f)
    return data


def maker() -> Any:
    """The generator script as a module (it holds the settings and positions the file was made from)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_mcts_golden", GOLDEN_FILE.parent / "make_mcts_golden.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("setting", list(maker().SETTINGS))
def test_mcts_searches_as_the_golden_file_says(setting: str) -> None:
    make = maker()
    rows = [row for row in load_golden()["mcts"] if row["setting"] == setting]
    positions = make.positions()
    assert len(rows) == len(positions) == 24
    for row in rows:
        agent: MCTSAgent = make.agent(make.SETTINGS[setting])
        result = agent.search(positions[row["position"]])
        assert (result.action, [int(v) for v in result.visits]) == (row["action"], row["visits"]), row["position"]


def test_puct_searches_as_the_golden_file_says() -> None:
    assert maker().puct_rows() == load_golden()["puct"]
