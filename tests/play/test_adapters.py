"""adapt(): Agents, callables, models and classic course players all play."""

from __future__ import annotations

import copy
import math
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from agents.base import Agent
from agents.play.adapters import ClassicAgent, FunctionAgent, ModelAgent, adapt
from agents.play.course.board import Board
from agents.play.match import play_game
from reversi_env import GameState, InvalidPositionError
from reversi_env.observation import observe


class CourseRandomPlayer:
    """A random player written exactly the way the course framework writes one."""

    def __init__(self, color: str) -> None:
        self.color = color

    def random_choice(self, board: Any) -> str | None:
        action_list = list(board.get_legal_actions(self.color))
        if len(action_list) == 0:
            return None
        return random.choice(action_list)

    def get_move(self, board: Any) -> str | None:
        return self.random_choice(board)


class CourseNode:
    def __init__(self, board: Any, color: str, parent: CourseNode | None = None, action: str | None = None) -> None:
        self.board, self.color, self.parent, self.action = board, color, parent, action
        self.children: list[CourseNode] = []
        self.untried = list(board.get_legal_actions(color))
        self.visits, self.reward = 0, 0.0


class CourseMCTSPlayer:
    """A UCT player in the course's style: deepcopy of the board per node,
    get_legal_actions, _move, get_winner, random playouts."""

    def __init__(self, color: str, simulations: int = 8, seed: int = 0) -> None:
        self.color = color
        self.simulations = simulations
        self.rng = random.Random(seed)

    @staticmethod
    def other(color: str) -> str:
        return "O" if color == "X" else "X"

    def get_move(self, board: Any) -> str | None:
        actions = list(board.get_legal_actions(self.color))
        if not actions:
            return None
        root = CourseNode(copy.deepcopy(board), self.color)
        for _ in range(self.simulations):
            node = root
            while not node.untried and node.children:
                node = max(
                    node.children,
                    key=lambda c: c.reward / c.visits + 1.4 * math.sqrt(math.log(node.visits) / c.visits),
                )
            if node.untried:
                action = node.untried.pop(self.rng.randrange(len(node.untried)))
                child_board = copy.deepcopy(node.board)
                child_board._move(action, node.color)
                child = CourseNode(child_board, self.other(node.color), node, action)
                node.children.append(child)
                node = child
            winner = self.rollout(copy.deepcopy(node.board), node.color)
            while node is not None:
                node.visits += 1
                mover = self.other(node.color)  # the colour that moved into this node
                if winner == 2:
                    node.reward += 0.5
                elif (winner == 0) == (mover == "X"):
                    node.reward += 1
                node = node.parent  # type: ignore[assignment]
        best = max(root.children, key=lambda c: c.visits)
        return best.action

    def rollout(self, board: Any, color: str) -> int:
        passes = 0
        while passes < 2:
            actions = list(board.get_legal_actions(color))
            if actions:
                board._move(self.rng.choice(actions), color)
                passes = 0
            else:
                passes += 1
            color = self.other(color)
        return int(board.get_winner()[0])


class SeededRandom:
    name = "seeded"

    def __init__(self, seed: int = 0) -> None:
        self.rng = np.random.default_rng(seed)

    def act(self, observation: dict[str, np.ndarray]) -> int:
        return int(self.rng.choice(np.flatnonzero(observation["action_mask"])))


def test_classic_random_and_classic_mcts_play_full_games() -> None:
    random.seed(0)
    for game in range(2):
        mcts_black = game == 0
        mcts = CourseMCTSPlayer("X" if mcts_black else "O", seed=game)
        rnd = CourseRandomPlayer("O" if mcts_black else "X")
        result = play_game(mcts, rnd) if mcts_black else play_game(rnd, mcts)
        assert result.reason == "end", result.details
        assert result.final_state().is_terminal()
        assert (result.black, result.white) == result.final_state().score()
        assert {result.black_name, result.white_name} == {"CourseMCTSPlayer", "CourseRandomPlayer"}


def test_adapted_classic_players_are_agents() -> None:
    agent = adapt(CourseRandomPlayer("X"))
    assert isinstance(agent, ClassicAgent) and isinstance(agent, Agent)
    assert agent.color == 0 and agent.name == "CourseRandomPlayer"
    assert adapt(CourseRandomPlayer("O"), color="white").color == 1  # type: ignore[attr-defined]


def test_a_classic_player_that_changes_its_board_loses_by_tamper() -> None:
    class Vandal(CourseRandomPlayer):
        def get_move(self, board: Any) -> str | None:
            move = self.random_choice(board)
            board._board[0][0] = self.color
            return move

    result = play_game(CourseRandomPlayer("X"), Vandal("O"))
    assert (result.reason, result.loser, result.winner) == ("tamper", "white", "black")
    assert len(result.moves) == 1 and "Vandal changed the board" in result.details
    assert "white lost by changing the board" in result.summary()


def test_a_classic_player_may_search_on_its_board_if_it_puts_it_back() -> None:
    class Searcher(CourseRandomPlayer):
        def get_move(self, board: Any) -> str | None:
            for move in list(board.get_legal_actions(self.color)):
                flipped = board._move(move, self.color)
                board.backpropagation(move, flipped, self.color)
            return self.random_choice(board)

    random.seed(4)
    result = play_game(Searcher("X"), Searcher("O"))
    assert result.reason == "end", result.details


def test_classic_quit_none_and_garbage() -> None:
    class Says:
        def __init__(self, color: str, answer: object) -> None:
            self.color, self.answer = color, answer

        def get_move(self, board: Any) -> object:
            return self.answer

    quit_result = play_game(Says("X", "Q"), CourseRandomPlayer("O"))
    assert (quit_result.reason, quit_result.winner, quit_result.moves) == ("quit", "draw", [])
    for answer in (None, "Z9", "D4", 12.5):
        result = play_game(Says("X", answer), CourseRandomPlayer("O"))
        assert (result.reason, result.loser) == ("illegal", "black"), answer


class Hostile:
    """An answer whose every method raises."""

    def __iter__(self) -> Any:
        raise RuntimeError("no iterating me")

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("no comparing me")

    __hash__ = object.__hash__

    def __repr__(self) -> str:
        raise RuntimeError("no repr for you")


@pytest.mark.parametrize(
    ("answer", "line"),
    [
        (Hostile(), "X tried <Hostile>: not a square (a move is written 'D3')"),
        # The course's Game compares the answer with its list of legal moves:
        # all of these lose there, so they are illegal tries here too.
        ("d3", "X tried 'd3': squares are written 'D3' (capitals)"),
        (" D3", "X tried ' D3': squares are written 'D3' (capitals)"),
        ((2, 3), "X tried (2, 3): squares are written 'D3', not as (row, col)"),
        (19, "X tried 19: not a square (a move is written 'D3')"),
        ("q", "X tried 'q': not a square"),
        ("PASS", "X tried 'PASS': not a square"),
        (None, "X tried None: not a move (a side with no legal move passes without being asked)"),
        ("Z9", "X tried 'Z9': not a square"),
        ("A1", "X tried 'A1': not a legal move"),
    ],
)
def test_classic_answers_are_judged_by_the_course_rules(answer: object, line: str) -> None:
    class Says:
        def __init__(self, color: str) -> None:
            self.color = color

        def get_move(self, board: Any) -> object:
            return answer

    rejected: list[str] = []
    result = play_game(Says("X"), CourseRandomPlayer("O"), on_reject=lambda _, text: rejected.append(text))
    assert (result.reason, result.loser, result.moves) == ("illegal", "black", [])
    assert rejected == [f"{line}, 2 tries left", f"{line}, 1 try left", f"{line}, no tries left"]


def test_a_string_that_equals_everything_is_read_as_its_text() -> None:
    class Sly(str):
        def __eq__(self, other: object) -> bool:
            return True

        __hash__ = str.__hash__

    class Says:
        color = "X"

        def get_move(self, board: Any) -> str:
            return Sly("A1")

    result = play_game(Says(), CourseRandomPlayer("O"))
    assert (result.reason, result.loser, result.moves) == ("illegal", "black", [])


def test_classic_colour_must_be_known_and_agree() -> None:
    class NoColour:
        def get_move(self, board: Any) -> str:
            return "D3"

    with pytest.raises(ValueError, match="color"):
        adapt(NoColour())
    assert adapt(NoColour(), color="X").color == 0  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="white"):
        adapt(CourseRandomPlayer("X"), color="white")
    with pytest.raises(ValueError, match="black"):
        play_game(CourseRandomPlayer("O"), CourseRandomPlayer("X"))


def test_an_agent_is_returned_as_is_and_a_nameless_one_is_named() -> None:
    agent = SeededRandom()
    assert adapt(agent) is agent

    class Nameless:
        def __init__(self) -> None:
            self.resets = 0

        def act(self, observation: dict[str, np.ndarray]) -> int:
            return int(np.flatnonzero(observation["action_mask"])[0])

        def reset(self) -> None:
            self.resets += 1

    inner = Nameless()
    named = adapt(inner)
    assert named.name == "Nameless"
    assert play_game(named, SeededRandom()).reason == "end"
    assert inner.resets == 1


def test_callables_of_both_forms() -> None:
    seen: list[int] = []

    def first_legal(observation: dict[str, np.ndarray]) -> int:
        return int(np.flatnonzero(observation["action_mask"])[0])

    def last_legal(observation: dict[str, np.ndarray], mask: np.ndarray) -> int:
        seen.append(int(mask.sum()))
        return int(np.flatnonzero(mask)[-1])

    one, two = adapt(first_legal), adapt(last_legal)
    assert isinstance(one, FunctionAgent) and not one.with_mask and one.name == "first_legal"
    assert isinstance(two, FunctionAgent) and two.with_mask
    result = play_game(first_legal, last_legal)
    assert result.reason == "end" and seen
    assert result.moves[0] == "D3" and result.moves[1] == "C5"  # after D3 white has C3, E3, C5
    obs = observe(GameState.initial(), 0)
    assert adapt(lambda o: "f5").act(obs) == 37
    assert adapt(lambda o, m=None: 19).with_mask is False  # type: ignore[attr-defined, misc]


class DictSpace:
    def __init__(self) -> None:
        self.spaces = {"observation": None, "action_mask": None}


class BoxSpace:
    def __init__(self, shape: tuple[int, ...]) -> None:
        self.shape = shape


class MaskableModel:
    """Duck-types sb3-contrib's MaskablePPO.predict (picks the highest legal index)."""

    def __init__(self, space: object) -> None:
        self.observation_space = space
        self.inputs: list[Any] = []

    def predict(
        self,
        observation: Any,
        state: Any = None,
        episode_start: Any = None,
        deterministic: bool = False,
        action_masks: np.ndarray | None = None,
    ) -> tuple[np.ndarray, None]:
        assert deterministic is True
        assert action_masks is not None and action_masks.dtype == bool
        self.inputs.append(observation)
        return np.array(np.flatnonzero(action_masks)[-1]), None


class PlainModel:
    """Duck-types SB3's PPO.predict without masks (picks the lowest empty square)."""

    observation_space = BoxSpace((8, 8, 2))

    def predict(self, observation: Any, deterministic: bool = False) -> tuple[np.ndarray, None]:
        assert observation.shape == (8, 8, 2)
        empty = np.flatnonzero(observation.sum(axis=2).reshape(64) == 0)
        return np.array([empty[0]]), None


def test_a_masked_model_on_the_dict_observation_plays() -> None:
    model = MaskableModel(DictSpace())
    agent = adapt(model)
    assert isinstance(agent, ModelAgent) and agent.masked and agent.name == "MaskableModel"
    result = play_game(agent, SeededRandom())
    assert result.reason == "end"
    assert set(model.inputs[0]) == {"observation", "action_mask"}
    assert result.moves[0] == "E6"  # highest legal index at the start


def test_an_unmasked_model_on_planes_gets_planes_and_can_lose_by_illegal_moves() -> None:
    result = play_game(PlainModel(), SeededRandom())
    assert (result.reason, result.loser) == ("illegal", "black")  # A1 is empty but never legal at the start
    assert "tried 0 (A1): not legal here" in result.details


def test_a_model_with_the_wrong_shape_is_refused() -> None:
    with pytest.raises(ValueError, match="128"):
        adapt(MaskableModel(BoxSpace((64,))))
    flat = adapt(MaskableModel(BoxSpace((128,))))
    obs = observe(GameState.initial(), 0)
    assert flat.act(obs) == 44


def test_what_cannot_play_is_a_type_error() -> None:
    for thing in (42, "random", None, [1, 2], SeededRandom, CourseRandomPlayer):
        with pytest.raises(TypeError, match="cannot make a player"):
            adapt(thing)
    with pytest.raises(InvalidPositionError):
        adapt(SeededRandom(), color="purple")


def test_board_given_to_classic_players_is_the_facade() -> None:
    boards: list[object] = []

    class Looker(CourseRandomPlayer):
        def get_move(self, board: Any) -> str | None:
            boards.append(board)
            return super().get_move(board)

    play_game(Looker("X"), CourseRandomPlayer("O"))
    assert boards and all(isinstance(b, Board) for b in boards)
    assert len({id(b) for b in boards}) == len(boards)


def test_a_real_maskable_ppo_model_plays_through_adapt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from sb3_contrib import MaskablePPO

    from agents.search.ladder import RandomAgent
    from reversi_env.gym import ReversiGymEnv

    monkeypatch.setenv("SB3_LOGDIR", str(tmp_path))  # SB3's logger folder, not a new one in /tmp

    model = MaskablePPO("MultiInputPolicy", ReversiGymEnv(), n_steps=32, batch_size=32, n_epochs=1, seed=0)
    model.learn(32)
    agent = adapt(model)
    assert isinstance(agent, ModelAgent) and agent.masked
    for black, white in ((model, RandomAgent(1)), (RandomAgent(2), model)):
        result = play_game(black, white)
        assert result.reason == "end", result.details  # masked: never an illegal move
