"""Player specs: every form builds the right player; bad specs are clear errors."""

from __future__ import annotations

import re
import shutil
import sys
import textwrap
import zipfile
from pathlib import Path

import numpy as np
import pytest
from conftest import REPO_ROOT

from agents.play.adapters import ClassicAgent, FunctionAgent
from agents.play.human import HumanPlayer
from agents.play.match import play_game
from agents.play.specs import _OPTIONS, SpecError, canonical_spec, make_agent, parse_spec, without_book
from agents.search.ladder import AlphaBetaAgent, GreedyAgent, PositionalAgent, RandomAgent
from reversi_env import GameState

COURSE_PLAYER = '''
import copy
import random

from board import Board


class RandomPlayer:
    """The course's random player, untouched."""

    def __init__(self, color):
        self.color = color

    def random_choice(self, board):
        action_list = list(board.get_legal_actions(self.color))
        if len(action_list) == 0:
            return None
        else:
            return random.choice(action_list)

    def get_move(self, board):
        if self.color == 'X':
            player_name = '黑棋'
        else:
            player_name = '白棋'
        action = self.random_choice(board)
        return action


class GreedyCopyPlayer:
    """Tries every move on a deep copy and keeps the one with most discs."""

    def __init__(self, color):
        self.color = color

    def get_move(self, board):
        assert isinstance(board, Board)
        best, best_count = None, -1
        for action in board.get_legal_actions(self.color):
            trial = copy.deepcopy(board)
            trial._move(action, self.color)
            if trial.count(self.color) > best_count:
                best, best_count = action, trial.count(self.color)
        return best
'''


@pytest.fixture
def course_file(tmp_path: Path) -> Path:
    path = tmp_path / "course_players.py"
    path.write_text(COURSE_PLAYER, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("spec", "kind", "options"),
    [
        ("human", "human", {}),
        ("random", "random", {}),
        ("random:seed=3", "random", {"seed": 3}),
        ("Greedy", "greedy", {}),
        ("positional:seed=0", "positional", {"seed": 0}),
        ("alphabeta:4", "alphabeta", {"depth": 4}),
        ("alphabeta:depth=2,seed=7", "alphabeta", {"depth": 2, "seed": 7}),
        ("alphabeta:time=0.5", "alphabeta", {"time": 0.5}),
        ("alphabeta:time=1,threads=2", "alphabeta", {"time": 1.0, "threads": 2}),
        ("alphabeta:time=1,probcut=0", "alphabeta", {"time": 1.0, "probcut": 0}),
        ("alphabeta:time=1,proof=0", "alphabeta", {"time": 1.0, "proof": 0}),
        ("alphabeta:clock=30,probcut=1.5", "alphabeta", {"clock": 30.0, "probcut": 1.5}),
        ("level:3", "level", {"level": 3}),
        ("mcts", "mcts", {}),
        ("mcts:time=2", "mcts", {"time": 2.0}),
        ("mcts:clock=45,threads=2", "mcts", {"clock": 45.0, "threads": 2}),
        ("mcts:sims=5000", "mcts", {"sims": 5000}),
        ("mcts:sims=800, seed=3", "mcts", {"sims": 800, "seed": 3}),
        ("mcts:iters=50", "mcts", {"sims": 50}),
        ("mcts:c=1.4,iters=50", "mcts", {"c": 1.4, "sims": 50}),
        ("mcts:mix=0,bias=2,minimax=0.25", "mcts", {"mix": 0.0, "bias": 2.0, "minimax": 0.25}),
        ("mcts:ply=0,fpu=0,uct=0", "mcts", {"ply": 0, "fpu": 0, "uct": 0}),
        ("mcts:exact=20", "mcts", {"exact": 20}),
        ("mcts:proof=0", "mcts", {"proof": 0}),
        ("mcts:uct=1", "mcts", {"uct": 1}),
        ("mcts:time=2,nodes=16000000", "mcts", {"time": 2.0, "nodes": 16000000}),
    ],
)
def test_builtin_specs_parse(spec: str, kind: str, options: dict[str, float]) -> None:
    parsed = parse_spec(spec)
    assert parsed.kind == kind and parsed.options == options
    assert parsed.text == spec


def test_target_specs_parse() -> None:
    c = parse_spec("classic:path/to/file.py:ClassName")
    assert (c.kind, c.target, c.attribute) == ("classic", "path/to/file.py", "ClassName")
    assert parse_spec("classic:C:\\students\\me.py:AI").target == "C:\\students\\me.py"
    assert parse_spec("classic:players.py").attribute == ""
    p = parse_spec("python:pkg.module:factory")
    assert (p.kind, p.target, p.attribute) == ("python", "pkg.module", "factory")
    g = parse_spec("gtp:/usr/games/gtp-rhino --level 2")
    assert (g.kind, g.target) == ("gtp", "/usr/games/gtp-rhino --level 2")


@pytest.mark.parametrize(
    ("spec", "needle"),
    [
        ("", "non-empty"),
        ("nonsense", "unknown player"),
        ("alphabeta:zero", "integer"),
        ("alphabeta:0", "> 0"),
        ("mcts:time=-1", "> 0"),
        ("mcts:time=fast", "number"),
        ("mcts:speed=3", "unknown option 'speed'"),
        ("mcts:time=1,sims=100", "one budget .*not time and sims together"),
        ("mcts:time=1,iters=100", "one budget"),
        ("mcts:clock=30,time=1", "one budget .*not time and clock together"),
        ("mcts:clock=0", "> 0"),
        ("mcts:clock=2e6", "at most"),
        ("mcts:sims=10,iters=100", "given twice"),
        ("mcts:c=0", "> 0"),
        ("mcts:iters=1.5", "integer"),
        ("mcts:mix=1.5", "at most 1"),
        ("mcts:minimax=-0.1", ">= 0"),
        ("mcts:bias=101", "at most 100"),
        ("mcts:ply=2", "at most 1"),
        ("mcts:ply=0.5", "integer"),
        ("mcts:fpu=2", "at most 1"),
        ("mcts:uct=2", "at most 1"),
        ("mcts:exact=31", "at most 30"),
        ("mcts:proof=61", "at most 60"),
        ("mcts:proof=-1", ">= 0"),
        ("mcts:sims=100,proof=20", "proof is an option of the timed search"),
        ("mcts:iters=100,proof=0", "proof is an option of the timed search"),
        ("alphabeta:4,", "an empty option"),
        ("level:3,", "an empty option"),
        ("mcts:time=1,,seed=2", "an empty option"),
        ("mcts:time=1, ", "an empty option"),
        ("mcts:eval=", "e.g. eval=patterns"),
        ("mcts:parallel=", "e.g. parallel=tree"),
        ("alphazero:net=", "e.g. net=path.pt"),
        ("pattern:weights=", "e.g. weights=my.npz"),
        ("alphabeta:4,eval=hand,weights=my.npz", "eval=hand reads no weights file"),
        ("mcts:eval=hand,weights=my.npz", "eval=hand reads no weights file"),
        ("random:seed=9223372036854775808", "at most 9223372036854775807,"),
        ("mcts:nodes=2147483648", "at most 2147483647,"),
        ("alphabeta:4,time=1", "one budget"),
        ("alphabeta:4,clock=30", r"one budget \(depth=..., time=... or clock=...\)"),
        ("alphabeta:clock=-5", "> 0"),
        ("alphabeta:clock=soon", "number"),
        ("alphabeta:time=1,eval=zebra", "eval must be one of"),
        ("alphabeta:4,probcut=11", "at most 10"),
        ("alphabeta:4,proof=18", "proof is an option of the timed search"),
        ("alphabeta:time=1,proof=61", "at most 60"),
        ("alphabeta:time=1,proof=-1", ">= 0"),
        ("alphabeta:time=1,probcut=11", "at most 10"),
        ("alphabeta:time=1,probcut=-1", ">= 0"),
        ("mcts:eval=nets", "eval must be one of"),
        ("mcts:2", "not key=value"),
        ("random:3", "not key=value"),
        ("human:seed=1", "unknown option"),
        ("random:seed=1,seed=2", "twice"),
        ("random:seed=-1", ">= 0"),
        ("classic:", "expected e.g."),
        ("classic:player.txt:AI", ".py file"),
        ("python:my_module", "name the object"),
        ("gtp:", "engine command"),
    ],
)
def test_bad_specs_are_clear_errors(spec: str, needle: str) -> None:
    with pytest.raises(SpecError, match=needle):
        parse_spec(spec)
    with pytest.raises(ValueError):
        make_agent(spec, "black")


def test_not_a_string_is_a_spec_error() -> None:
    with pytest.raises(SpecError):
        parse_spec(None)  # type: ignore[arg-type]


def test_ladder_specs_build_the_ladder() -> None:
    assert isinstance(make_agent("random"), RandomAgent)
    assert isinstance(make_agent("greedy"), GreedyAgent)
    assert isinstance(make_agent("positional"), PositionalAgent)
    ab = make_agent("alphabeta:3")
    assert isinstance(ab, AlphaBetaAgent) and ab.depth == 3
    timed = make_agent("alphabeta:time=0.25")
    assert isinstance(timed, AlphaBetaAgent) and timed.time_limit == 0.25
    assert make_agent("alphabeta:time=0.25,threads=2").threads == 2  # type: ignore[attr-defined]
    assert make_agent("alphabeta:6,threads=2").threads == 2  # type: ignore[attr-defined]  # a fixed depth too
    # The timed engine evaluates with the learned patterns, the graded depths by hand, unless told.
    assert timed.evaluation.name == "patterns" and ab.evaluation.name == "hand"
    assert make_agent("alphabeta:time=0.25,eval=hand").evaluation.name == "hand"  # type: ignore[attr-defined]
    assert make_agent("alphabeta:3,eval=patterns").evaluation.name == "patterns"  # type: ignore[attr-defined]
    # ProbCut is asked for; the default search is full width.
    assert timed.selectivity == 0 and ab.selectivity == 0
    assert make_agent("alphabeta:time=0.25,probcut=2.5").selectivity == 2.5  # type: ignore[attr-defined]
    selective = make_agent("alphabeta:12,probcut=1.5,eval=patterns")
    assert isinstance(selective, AlphaBetaAgent) and (selective.depth, selective.selectivity) == (12, 1.5)
    assert make_agent("alphabeta:time=0.25").endgame_proof == 22  # type: ignore[attr-defined]
    assert make_agent("alphabeta:time=0.25,proof=0").endgame_proof == 0  # type: ignore[attr-defined]
    from agents.search.patterns import mcts_value

    assert make_agent("mcts:sims=10,eval=patterns").heuristic is mcts_value  # type: ignore[attr-defined]
    assert make_agent("mcts:sims=10").heuristic is mcts_value  # type: ignore[attr-defined]
    assert make_agent("mcts:sims=10,eval=hand").heuristic is not mcts_value  # type: ignore[attr-defined]
    tuned = make_agent("mcts:time=0.1,mix=0.5,bias=0,minimax=0.25,ply=0,fpu=0,exact=0,proof=18")
    assert (tuned.endgame_exact, tuned.endgame_proof) == (0, 18)  # type: ignore[attr-defined]
    assert (tuned.mix, tuned.bias, tuned.minimax, tuned.ply, tuned.fpu) == (0.5, 0.0, 0.25, 0, False)  # type: ignore[attr-defined]
    uct = make_agent("mcts:sims=10,uct=1")
    assert (uct.informed, uct.bias, uct.mix, uct.minimax, uct.c) == (False, 0.0, 0.0, 0.0, 1.0)  # type: ignore[attr-defined]
    assert (uct.endgame_exact, uct.endgame_proof) == (16, 0)  # type: ignore[attr-defined]
    assert make_agent("mcts:sims=10,uct=1,c=1.4").c == 1.4  # type: ignore[attr-defined]
    with pytest.raises(SpecError, match="textbook UCT, it takes no mix"):
        make_agent("mcts:sims=10,uct=1,mix=0.5")
    assert make_agent("level:2").name == "level-2"


def test_seeds_make_games_reproducible_and_the_spec_seed_wins() -> None:
    a = play_game(make_agent("random", seed=5), make_agent("random", seed=6))
    b = play_game(make_agent("random:seed=5", seed=99), make_agent("random", seed=6))
    c = play_game(RandomAgent(5), RandomAgent(6))
    assert a.moves == b.moves == c.moves


def test_out_of_range_values_fail_when_built() -> None:
    with pytest.raises(SpecError, match="alphabeta:99"):
        make_agent("alphabeta:99")
    with pytest.raises(SpecError, match="level:999"):
        make_agent("level:999")


def test_human_needs_its_colour() -> None:
    with pytest.raises(SpecError, match="colour"):
        make_agent("human")
    human = make_agent("human", "white")
    assert isinstance(human, HumanPlayer) and human.color == 1
    with pytest.raises(ValueError):
        make_agent("random", "purple")


def test_mcts_specs_build_mcts() -> None:
    from agents.search.mcts import MCTSAgent

    assert isinstance(make_agent("mcts:sims=50,seed=1"), MCTSAgent)
    assert isinstance(make_agent("mcts:time=0.5"), MCTSAgent)
    assert isinstance(make_agent("mcts", default_time=0.1), MCTSAgent)
    course_words = make_agent("mcts:c=1.4,iters=50,seed=2")
    assert isinstance(course_words, MCTSAgent)
    assert (course_words.c, course_words.simulations, course_words.seed) == (1.4, 50, 2)


def test_mcts_nodes_caps_the_tree() -> None:
    from agents.search.mcts import MCTSAgent

    capped, free = make_agent("mcts:sims=3000,nodes=2000,seed=1"), make_agent("mcts:sims=3000,seed=1")
    assert isinstance(capped, MCTSAgent) and isinstance(free, MCTSAgent)
    assert capped.max_nodes == 2000 and 1000 < capped.search(GameState.initial()).nodes <= 2000
    assert free.search(GameState.initial()).nodes > 2000
    with pytest.raises(SpecError, match="nodes must be at most"):
        make_agent("mcts:nodes=3000000000")


def test_an_unchanged_course_file_plays(course_file: Path) -> None:
    black = make_agent(f"classic:{course_file}:GreedyCopyPlayer", "black")
    white = make_agent(f"classic:{course_file}:RandomPlayer", "white")
    assert isinstance(black, ClassicAgent) and black.name == "GreedyCopyPlayer"
    result = play_game(black, white)
    assert result.reason == "end", result.details
    assert result.final_state().is_terminal()


def test_a_course_file_needs_a_colour_and_a_known_class(course_file: Path) -> None:
    with pytest.raises(SpecError, match="colour"):
        make_agent(f"classic:{course_file}:RandomPlayer")
    with pytest.raises(SpecError, match=r"no player class .Nobody.*RandomPlayer"):
        make_agent(f"classic:{course_file}:Nobody", "black")
    with pytest.raises(SpecError, match="name the player class"):
        make_agent(f"classic:{course_file}", "black")


def test_a_single_class_file_needs_no_class_name(tmp_path: Path) -> None:
    path = tmp_path / "solo.py"
    path.write_text(COURSE_PLAYER.split("class GreedyCopyPlayer")[0], encoding="utf-8")
    assert make_agent(f"classic:{path}", "O").name == "RandomPlayer"


def test_a_course_file_imports_its_sibling_modules(tmp_path: Path) -> None:
    (tmp_path / "my_helpers.py").write_text("def pick(moves):\n    return moves[0] if moves else None\n")
    player = tmp_path / "uses_helper.py"
    player.write_text(
        textwrap.dedent(
            """
            from my_helpers import pick

            class FirstMove:
                def __init__(self, color):
                    self.color = color

                def get_move(self, board):
                    return pick(list(board.get_legal_actions(self.color)))
            """
        )
    )
    result = play_game(make_agent(f"classic:{player}", "X"), make_agent("random", seed=1))
    assert result.reason == "end"
    assert result.moves[0] == "D3"
    assert str(tmp_path) not in sys.path


def test_broken_course_files_are_spec_errors(tmp_path: Path) -> None:
    with pytest.raises(SpecError, match="no such file"):
        make_agent(f"classic:{tmp_path / 'missing.py'}:AI", "X")
    bad = tmp_path / "broken.py"
    bad.write_text("class AI(:\n")
    with pytest.raises(SpecError, match=r"failed to load.*SyntaxError"):
        make_agent(f"classic:{bad}:AI", "X")


def test_python_specs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "my_policies.py").write_text(
        textwrap.dedent(
            """
            import numpy as np
            from agents.search.ladder import GreedyAgent

            AGENT = GreedyAgent(seed=1)

            def make_agent():
                return GreedyAgent(seed=2)

            def first_legal(observation):
                return int(np.flatnonzero(observation["action_mask"])[0])

            class Lowest:
                name = "lowest"

                def act(self, observation):
                    return int(np.flatnonzero(observation["action_mask"])[0])

            class Nested:
                POLICY = staticmethod(first_legal)
            """
        )
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    assert make_agent("python:my_policies:AGENT").name == "greedy"
    assert isinstance(make_agent("python:my_policies:make_agent"), GreedyAgent)
    assert isinstance(make_agent("python:my_policies:first_legal"), FunctionAgent)
    assert make_agent("python:my_policies:Lowest").name == "lowest"
    assert isinstance(make_agent("python:my_policies:Nested.POLICY"), FunctionAgent)
    assert make_agent(f"python:{tmp_path / 'my_policies.py'}:Lowest").name == "lowest"
    with pytest.raises(SpecError, match="cannot import module"):
        make_agent("python:no_such_module_here:x")
    with pytest.raises(SpecError, match="no attribute"):
        make_agent("python:my_policies:missing")


def test_gtp_spec_with_a_missing_engine_is_a_spec_error(tmp_path: Path) -> None:
    with pytest.raises(SpecError, match="cannot start engine"):
        make_agent(f"gtp:{tmp_path / 'no-engine'}")


def test_play_game_takes_spec_strings() -> None:
    result = play_game("random:seed=1", "alphabeta:1")
    assert (result.black_name, result.white_name) == ("random", "alphabeta-1")
    assert result.reason == "end"
    with pytest.raises(SpecError, match="unknown player"):
        play_game("nonsense", "random")


def test_the_players_page_shows_specs_of_every_kind_that_parse() -> None:
    """docs/players.md is where a user looks for a player: a section for each kind, and every
    spec of that kind its section shows parses (alphabeta:time, pattern and alphazero were once missing)."""
    page = (REPO_ROOT / "docs" / "players.md").read_text()
    sections = dict(re.findall(r"^### `([a-z]+)`\n(.*?)(?=^#)", page, flags=re.MULTILINE | re.DOTALL))
    assert set(sections) == {*_OPTIONS, "classic", "python", "gtp"}
    for kind, text in sections.items():
        shown = [span for span in re.findall(r"`([^`]+)`", text) if re.fullmatch(rf"{kind}:.+", span)]
        specs = [kind, *shown] if kind in _OPTIONS else shown  # classic, python and gtp need their target
        assert specs, f"the {kind} section shows no spec"
        assert {parse_spec(spec).kind for spec in specs} == {kind}, specs
    assert "`alphabeta:time=1`" in page or "`alphabeta:time=" in page


WEIGHTS_POSITIONS = [
    GameState.from_string("...........................OX......XX.......X................... O"),
    GameState.from_string("...........................OX.....XXX......OX................... O"),
]
"""Openings where the shipped weights' 1-ply move and the negated weights' differ."""

PROOF_POSITION = GameState.from_string("XXXXXX..XXOXXOO.XOXXX.XOXOXOXXO.XOOOXOX.XOOOOOXX.O.XOOXO....XO.. X")
"""14 empties of a random game, proven a win for X in under a second whatever orders the moves."""


def with_option(spec: str, option: str) -> str:
    """``spec`` with one more option (``pattern`` + ``seed=1``: ``pattern:seed=1``)."""
    return f"{spec}{',' if ':' in spec else ':'}{option}"


@pytest.fixture(scope="module")
def weights_files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with the shipped weights negated (``negated.npz``, a player that
    wants to lose discs) and an unchanged copy of them (``copy.npz``)."""
    from agents.search.patterns import load_weights, save_weights, shipped_weights_path

    folder = tmp_path_factory.mktemp("weights")
    save_weights(folder / "negated.npz", -load_weights(), {"note": "the shipped weights negated"})
    shutil.copyfile(shipped_weights_path(), folder / "copy.npz")
    return folder


def test_pattern_and_alphabeta_play_the_weights_file_they_are_given(
    weights_files: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A user who trains weights (``reversi train-eval --out my.npz``) plays them: no spec took a file."""
    from agents.search.patterns import pattern_evaluation

    monkeypatch.chdir(weights_files)  # a relative path is relative to the current directory
    for state in WEIGHTS_POSITIONS:
        for spec in ("pattern", "alphabeta:1,eval=patterns"):
            shipped = make_agent(spec, seed=0).best_actions(state)  # type: ignore[attr-defined]
            copy = make_agent(with_option(spec, "weights=copy.npz"), seed=0).best_actions(state)  # type: ignore[attr-defined]
            negated = make_agent(with_option(spec, "weights=negated.npz"), seed=0).best_actions(state)  # type: ignore[attr-defined]
            assert copy == shipped and negated != shipped, (spec, str(state))
    # The fixed depth with a file is on the patterns; the timed search's midgame and proof read the file.
    negated = pattern_evaluation(weights_files / "negated.npz")
    assert pattern_evaluation("negated.npz") is negated and negated is not pattern_evaluation()
    assert make_agent("alphabeta:1,weights=negated.npz").evaluation is negated  # type: ignore[attr-defined]
    assert make_agent("alphabeta:time=0.5,weights=negated.npz").evaluation is negated  # type: ignore[attr-defined]


def test_a_player_on_a_weights_file_is_named_with_the_file(
    weights_files: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two files are two players wherever a name is recorded: a game's record, its GGF, an arena game."""
    from agents.arena.tournament import ScheduledGame, play_scheduled
    from agents.play.records import GameResult, to_ggf

    monkeypatch.chdir(weights_files)
    copy, negated = "pattern:weights=copy.npz", "pattern:weights=negated.npz"
    result = play_game(copy, negated, time_limit=None)
    assert (result.black_name, result.white_name) == (copy, negated)
    assert f"PB[{copy}]PW[{negated}]" in to_ggf(result).replace("\n", "")
    record = play_scheduled(ScheduledGame("g", negated, copy, "start", 1), time_limit=None)
    assert GameResult.from_dict(record["result"]).black_name == negated
    assert make_agent("alphabeta:2,weights=copy.npz").name == "alphabeta-2:weights=copy.npz"
    assert make_agent("mcts:sims=8,weights=copy.npz").name == "mcts-8sims:weights=copy.npz"
    assert make_agent("pattern").name == "pattern" and make_agent("mcts:sims=8").name == "mcts-8sims"


def test_players_that_differ_in_an_option_that_plays_have_different_names() -> None:
    """``alphabeta:1`` and ``alphabeta:1,eval=patterns`` were both ``alphabeta-1`` in a game's record;
    every option but the seed is in the name."""
    hand, patterns = "alphabeta:1", "alphabeta:1,eval=patterns"
    result = play_game(hand, patterns, time_limit=None)
    assert (result.black_name, result.white_name) == ("alphabeta-1", "alphabeta-1:eval=patterns")
    assert make_agent("alphabeta:2,seed=3").name == "alphabeta-2"
    assert make_agent("alphabeta:time=1,probcut=1.5,proof=10").name == "alphabeta-1s:probcut=1.5,proof=10"
    assert make_agent("alphabeta:time=1,threads=2").name == "alphabeta-1s:threads=2"
    assert make_agent("mcts:iters=8,c=1.41421356,nodes=1000").name == "mcts-8sims:c=1.41421356,nodes=1000"
    assert make_agent("mcts:sims=8,uct=1,exact=10").name == "mcts-8sims:uct=1,exact=10"
    assert make_agent("mcts:sims=8,eval=hand,parallel=root").name == "mcts-8sims:eval=hand,parallel=root"


def test_an_option_set_to_its_default_leaves_the_name_as_it_is() -> None:
    """``alphabeta:2,eval=hand`` plays as ``alphabeta:2`` does and was ``alphabeta-2:eval=hand`` beside
    its ``alphabeta-2``: one player had two names in records and tables."""
    same = [
        ("alphabeta:2", "alphabeta:2,eval=hand,threads=1,probcut=0"),
        ("alphabeta:time=1", "alphabeta:time=1,eval=patterns,proof=22"),
        ("mcts:sims=8", "mcts:sims=8,c=0.5,eval=patterns,uct=0,exact=16,nodes=4000000,fpu=1,parallel=tree"),
        ("mcts:time=1,uct=1", "mcts:time=1,uct=1,c=1,proof=0"),
    ]
    for plain, spelled in same:
        assert make_agent(spelled).name == make_agent(plain).name, spelled
    # A default in one context is a choice in another.
    assert make_agent("alphabeta:time=1,eval=hand").name == "alphabeta-1s:eval=hand"
    assert make_agent("mcts:sims=8,uct=1,c=0.5").name == "mcts-8sims:uct=1,c=0.5"


def test_specs_of_one_player_have_one_canonical_spelling_that_builds_it() -> None:
    """The arena tells players apart by ``canonical_spec``: defaults, option order, ``iters`` and ``1.40``
    spell one player one way, the spelling builds the same player, and a seed or a real choice stays."""
    same = [
        ("alphabeta:2", ["alphabeta:depth=2,eval=hand", "ALPHABETA: 2 ,threads=1,probcut=0"]),
        ("alphabeta", ["alphabeta:4", "alphabeta:eval=hand"]),
        ("alphabeta:time=1", ["alphabeta:time=1,eval=patterns,proof=22"]),
        ("mcts:time=1", ["mcts:time=1,uct=0", "mcts:eval=patterns,time=1.0"]),
        ("mcts:sims=8,c=1.4", ["mcts:c=1.40,iters=8,fpu=1"]),
        ("mcts:sims=8,uct=1", ["mcts:uct=1,sims=8,c=1"]),
        ("random:seed=3", ["Random:seed=3"]),
        ("gtp:/usr/games/gtp-rhino", ["gtp: /usr/games/gtp-rhino"]),
    ]
    for canonical, spellings in same:
        assert canonical_spec(canonical) == canonical
        for spelled in spellings:
            assert canonical_spec(spelled) == canonical, spelled
            if not canonical.startswith("gtp"):
                assert make_agent(spelled).name == make_agent(canonical).name, spelled
    different = ["alphabeta:2", "alphabeta:2,seed=1", "alphabeta:2,eval=patterns", "alphabeta:time=1,eval=hand"]
    assert len({canonical_spec(s) for s in different}) == len(different)
    # alphazero's 200 simulations are fixed; MCTS's time without a budget is the caller's (`reversi play
    # --time`), so `mcts:time=1` is `mcts` only where the caller fixes it (the arena's player_key).
    assert canonical_spec("alphazero:sims=200") == "alphazero" != canonical_spec("alphazero:sims=100")
    assert canonical_spec("mcts:time=1") != canonical_spec("mcts") == canonical_spec("mcts:time=1", default_time=1)
    with pytest.raises(SpecError):
        canonical_spec("alphabeta:2,eval=nosuch")


def test_mcts_leaves_and_endgame_proof_read_the_weights_file(weights_files: Path) -> None:
    """``mcts:weights=FILE`` guides the tree by the file, and its endgame proof orders its moves by it too."""
    state = WEIGHTS_POSITIONS[1]
    negated, copy = weights_files / "negated.npz", weights_files / "copy.npz"
    shipped = make_agent("mcts:sims=64,seed=0").search(state)  # type: ignore[attr-defined]
    same = make_agent(f"mcts:sims=64,seed=0,weights={copy}").search(state)  # type: ignore[attr-defined]
    other = make_agent(f"mcts:sims=64,seed=0,weights={negated}").search(state)  # type: ignore[attr-defined]
    assert same.action == shipped.action and np.array_equal(same.values, shipped.values)
    assert other.action != shipped.action
    # The proof (exact=0: no root solve) proves the same win; a worse move order costs it more nodes.
    spec = "mcts:time=30,seed=0,exact=0,proof=14"
    proofs = [make_agent(f"{spec}{f}").search(PROOF_POSITION) for f in ("", f",weights={copy}", f",weights={negated}")]  # type: ignore[attr-defined]
    assert [r.proven for r in proofs] == ["win"] * 3 and all(r.simulations == 0 for r in proofs)
    assert proofs[1].nodes == proofs[0].nodes != proofs[2].nodes


def _pickle_inside(path: Path, marker: Path) -> None:
    """An .npz whose arrays are pickles that would create ``marker`` if unpickled."""
    payload = np.empty(1, dtype=object)
    payload[0] = _Touch(marker)
    npy = path.with_suffix(".npy")
    np.save(npy, payload, allow_pickle=True)
    with zipfile.ZipFile(path, "w") as archive:
        archive.write(npy, "weights.npy")
        archive.write(npy, "metadata.npy")


class _Touch:
    """Unpickled, it creates a file: proof that a pickle ran."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __reduce__(self) -> tuple[object, tuple[Path]]:
        return Path.touch, (self.path,)


def test_a_bad_weights_file_is_one_line_when_the_player_is_built(tmp_path: Path) -> None:
    """Missing, not a zip, a foreign .npz, a wrong shape, a pickle: one SpecError line naming the file; nothing runs."""
    marker = tmp_path / "pickle-ran"
    bad = {
        "missing.npz": "no such weights file",
        "garbage.npz": "not an .npz archive",
        "foreign.npz": "has no 'weights' array",
        "shape.npz": "holds weights of shape (2, 3)",
        "pickled.npz": "not plain data",
    }
    (tmp_path / "garbage.npz").write_bytes(b"not a zip")
    np.savez(tmp_path / "foreign.npz", a=np.zeros(3))
    np.savez(tmp_path / "shape.npz", weights=np.zeros((2, 3), np.float16), metadata=np.array("{}"))
    _pickle_inside(tmp_path / "pickled.npz", marker)
    for name, needle in bad.items():
        for spec in ("pattern", "alphabeta:3", "alphabeta:time=1", "mcts:sims=10"):
            with pytest.raises(SpecError) as error:
                make_agent(with_option(spec, f"weights={tmp_path / name}"))
            message = str(error.value)
            assert needle in message and str(tmp_path / name) in message and "\n" not in message, message
    assert not marker.exists()
    with pytest.raises(SpecError, match="textbook UCT, it takes no weights"):
        make_agent(f"mcts:sims=10,uct=1,weights={tmp_path / 'foreign.npz'}")


def test_without_book_turns_off_only_a_book_played_by_default() -> None:
    assert without_book("mcts:time=1") == "mcts:time=1,book=0"
    assert without_book("mcts") == "mcts:book=0"
    assert without_book("alphabeta:clock=60") == "alphabeta:clock=60,book=0"
    assert getattr(make_agent(without_book("alphabeta:time=1")), "book", "none") is None
    for spec in ("mcts:time=1,book=my.npz", "mcts:sims=10", "alphabeta:2", "random", "level:3"):
        assert without_book(spec) == spec  # it names its book, plays none by default, or has none
    with pytest.raises(SpecError):
        without_book("nonsense:1")
