"""The registry of player kinds: a new kind is one record, and everything that reads specs knows it."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from agents.base import state_to_move
from agents.play.kinds import Build, Option, PlayerKind
from agents.play.match import play_game
from agents.play.roster import BUILTIN_KINDS
from agents.play.specs import (
    SPEC_HELP,
    SpecError,
    canonical_spec,
    make_agent,
    parse_spec,
    player_kind,
    player_kinds,
    register,
    runs_code,
    spec_help,
    spec_reference,
    unregister,
)
from agents.ui.gui.seats import Seats, opponents
from reversi_env.notation import PASS
from reversi_env.observation import Observation


class NthMoveAgent:
    """Plays the ``nth`` legal move (counting round), so its option visibly changes its play."""

    def __init__(self, nth: int, seed: int | None) -> None:
        self.nth, self.seed, self.name = nth, seed, "nth"

    def act(self, observation: Observation) -> int:
        actions = state_to_move(observation).legal_actions()
        return PASS if actions == [PASS] else actions[self.nth % len(actions)]


def build_nth(build: Build) -> NthMoveAgent:
    return NthMoveAgent(int(build.options.get("nth", 0)), build.seed)


NTH = PlayerKind(
    "nth",
    build_nth,
    "the n-th legal move",
    ("nth:N",),
    (Option("nth", int, 9, zero_ok=True, help="which legal move"), Option("seed", int, zero_ok=True, named=True)),
    bare="nth",
    defaults=lambda options, default_time: {"nth": 0},
    title="Nth",
    strengths=(("first", "nth:0"), ("second", "nth:1")),
)


@pytest.fixture
def nth_kind() -> Iterator[PlayerKind]:
    register(NTH)
    try:
        yield NTH
    finally:
        unregister(NTH.name)


def test_a_registered_kind_is_parsed_checked_built_and_played(nth_kind: PlayerKind) -> None:
    assert parse_spec("NTH:2").options == {"nth": 2}
    assert parse_spec("nth:nth=0,seed=4").options == {"nth": 0, "seed": 4}
    with pytest.raises(SpecError, match=r"'nth:10': nth must be at most 9, got '10'"):
        parse_spec("nth:10")
    with pytest.raises(SpecError, match=r"unknown option 'depth' for nth \(known: nth, seed\)"):
        parse_spec("nth:depth=2")
    with pytest.raises(SpecError, match="nth must be an integer"):
        parse_spec("nth:1.5")
    agent = make_agent("nth:1", seed=3)
    assert isinstance(agent, NthMoveAgent) and (agent.nth, agent.seed, agent.name) == (1, 3, "nth:nth=1")
    assert make_agent("nth:0").name == "nth"  # an option at its default leaves the name alone
    assert canonical_spec("nth:nth=0") == "nth" and canonical_spec("nth:nth=2,seed=1") == "nth:2,seed=1"
    assert not runs_code("nth:1")
    result = play_game("nth:0", "nth:1", time_limit=None)
    assert (result.black_name, result.white_name) == ("nth", "nth:nth=1")
    assert result.reason == "end" and len(result.moves) > 4


def test_a_registered_kind_is_offered_everywhere_specs_are_listed(nth_kind: PlayerKind) -> None:
    assert spec_help().endswith(", gtp:COMMAND, nth:N") and SPEC_HELP in spec_help()
    assert player_kinds()[-1] is nth_kind and player_kind("nth") is nth_kind
    assert opponents()[0] == ("Nth", [("first", "nth:0"), ("second", "nth:1")])
    assert Seats("nth:1", "black", "ai").ai_labels() == ("Nth", "second")
    assert "| `nth` | `nth:N` | the n-th legal move |" in spec_reference()
    assert "| `nth` | integer, 0 to 9 | which legal move |" in spec_reference()


def test_unregistered_kinds_are_gone_and_names_are_checked(nth_kind: PlayerKind) -> None:
    with pytest.raises(ValueError, match="registered already"):
        register(NTH)
    for name in ("", "Nth", "n:th", "a,b"):
        with pytest.raises(ValueError, match="one lower-case word"):
            register(PlayerKind(name, build_nth, "", ()))
    unregister("nth")
    with pytest.raises(SpecError, match="unknown player 'nth:1'"):
        parse_spec("nth:1")
    register(NTH)  # the fixture unregisters it again


def test_the_shipped_kinds_are_the_registry_and_the_window_offers_the_strongest_first() -> None:
    assert player_kinds() == BUILTIN_KINDS
    assert [title for title, _ in opponents()] == ["MCTS", "Alpha-beta", "Positional", "Greedy", "Random"]
    assert [kind.name for kind in player_kinds() if kind.isolated] == ["classic", "python"]
    assert [kind.name for kind in player_kinds() if kind.runs_code] == ["classic", "python", "gtp"]


def test_the_spec_reference_shows_every_kind_and_option_with_its_bounds() -> None:
    reference = spec_reference()
    for kind in player_kinds():
        assert f"| `{kind.name}` |" in reference
        for option in kind.options:
            assert re.search(rf"^\| `{option.key}` \| .+ \| .+ \|$", reference, flags=re.MULTILINE), option.key
    assert "| `depth` | integer, > 0 to 60 |" in reference
    assert "| `time` | number, > 0 to 1e+06 |" in reference
    assert "| `eval` | one of `patterns`, `hand` |" in reference
    assert "| `iters` | as `sims` |" in reference
    assert "| `c` | number > 0 |" in reference
