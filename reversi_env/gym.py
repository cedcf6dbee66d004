"""A single-agent Gymnasium env: the learner plays one colour, an opponent the other.

``ReversiGymEnv(opponent=None, play_as="black", reward="win", observation=None)``, also
``gymnasium.make("reversi_env/Reversi-v0", ...)``. Observation, action space and
pass rule are the AEC env's (see ``reversi_env.aec``): a dict of int8 own /
opponent planes (8, 8, 2) and the action mask (65,); ``Discrete(65)`` with 64 =
PASS. ``action_masks()`` gives the mask as bools (sb3-contrib's MaskablePPO).
``observation=`` (an ``ObservationSpec`` or a dict of its fields) changes the
planes as in the AEC env: dtype, layout, extra planes, history, flat. The
history holds one position per ply, the opponent's moves and passes included.

A step plays the agent's action, then the opponent's reply, so every
observation has the agent to move (it may have only PASS) or the game over.

* Rewards, at the end only: ``reward="win"`` gives +1 / -1 / 0;
  ``reward="disc_diff"`` gives (agent's discs - opponent's) / 64, in [-1, 1].
* An illegal action (in the action space but masked out) ends the episode:
  reward -1, ``terminated=True``, ``info["illegal"] = True``, position unchanged.
  A value that is not an action at all (not an integer 0-64) raises
  ``InvalidMoveError``, as a malformed move does everywhere else.
* No truncation of its own (a game lasts at most about 64 moves); for a cap,
  ``gymnasium.make(..., max_episode_steps=k)`` adds Gymnasium's TimeLimit.
* infos: ``{"player": 0 | 1}`` (the agent's colour) at reset; ``black_discs``,
  ``white_discs`` and ``disc_difference`` (agent minus opponent) at the end.
* The opponent: any callable ``observation -> action`` or any object with
  ``act(observation)`` (every ``agents.Agent``); ``reset()`` is called on it
  at each reset when it has one. It gets its own observation (its planes
  first, its mask). Default (None, or "random"): uniformly random over the legal actions.
* A bad opponent is the caller's bug, not the learner's: if it raises or
  returns an illegal or malformed action, ``step`` / ``reset`` raise
  ``OpponentError`` (with the cause chained, the action and the board) and the
  env keeps the position from before the call, so nothing is silently played.

Seeding: all randomness (the colour with ``play_as="random"`` and the default
opponent's moves) comes from one xorshift stream seeded from ``self.np_random``
at a seeded (or the first) reset, and drawn in the order ``reversi_env.batch``
documents: ``ReversiVectorEnv`` with seed ``s`` plays the same games as N of
these envs reset with seeds ``s, s + 1, ...``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, SupportsFloat

import gymnasium
import numpy as np
from gymnasium import spaces

from reversi_env import bitboard as bb
from reversi_env.batch import RANDOM_COLOR, REWARD_DISC_DIFF, REWARD_WIN
from reversi_env.errors import IllegalMoveError, InvalidMoveError
from reversi_env.notation import NUM_ACTIONS, PASS, as_action
from reversi_env.observation import ObservationSpec, observe
from reversi_env.render import EnvRenderer
from reversi_env.state import BLACK, PLAYER_NAMES, WHITE, GameState

PLAY_AS = {"black": BLACK, "white": WHITE, "random": RANDOM_COLOR}
"""``play_as`` values and their kernel codes."""
REWARDS = {"win": REWARD_WIN, "disc_diff": REWARD_DISC_DIFF}
"""``reward`` values and their kernel codes."""
RANDOM_OPPONENT = "random"
"""The name of the built-in uniformly random opponent (``opponent=None`` is the same)."""

Opponent = Callable[[dict[str, np.ndarray]], Any] | Any
"""A callable ``observation -> action`` or an object with ``act(observation)``."""


class OpponentError(RuntimeError):
    """The opponent of a single-agent env raised or chose an illegal or malformed action."""


def kernel_seed(np_random: np.random.Generator) -> int:
    """The seed of the xorshift stream an env draws from its ``np_random`` (one draw)."""
    return int(np_random.integers(0, 2**63 - 1))


def parse_play_as(play_as: object) -> int:
    """ "black" / "white" / "random" -> 0 / 1 / RANDOM_COLOR (ValueError otherwise)."""
    if not isinstance(play_as, str) or play_as not in PLAY_AS:
        raise ValueError(f"play_as must be one of {sorted(PLAY_AS)}, got {play_as!r}")
    return PLAY_AS[play_as]


def parse_reward(reward: object) -> int:
    """ "win" / "disc_diff" -> the reward code (ValueError otherwise)."""
    if not isinstance(reward, str) or reward not in REWARDS:
        raise ValueError(f"reward must be one of {sorted(REWARDS)}, got {reward!r}")
    return REWARDS[reward]


def coerce_action(action: object) -> int:
    """An action from an int, a numpy integer or a one-element integer array
    (what policies return); InvalidMoveError for anything else."""
    if isinstance(action, np.ndarray) and action.size == 1 and np.issubdtype(action.dtype, np.integer):
        action = action.reshape(()).item()
    return as_action(action)


class ReversiGymEnv(gymnasium.Env[dict[str, Any], Any]):
    """Reversi for one learner against a pluggable opponent (see the module docstring)."""

    metadata = {"render_modes": ["human", "ansi", "rgb_array"], "render_fps": 4}  # noqa: RUF012

    def __init__(
        self,
        opponent: Opponent | None = None,
        play_as: str = "black",
        reward: str = "win",
        render_mode: str | None = None,
        observation: ObservationSpec | dict[str, Any] | None = None,
    ) -> None:
        """``opponent``: None (random), a callable or an object with ``act``;
        ``play_as``: "black", "white" or "random" (drawn at each reset);
        ``reward``: "win" or "disc_diff"; ``render_mode``: None, "human", "ansi", "rgb_array";
        ``observation``: an ``ObservationSpec`` or a dict of its fields (None: the default planes).
        The opponent always gets the default observation, as every ``agents.Agent`` reads it.
        ``opponent="random"`` is None, as ``ReversiVectorEnv`` spells it, so one set of
        keyword arguments serves ``gymnasium.make`` and ``gymnasium.make_vec``."""
        if isinstance(opponent, str) and opponent == RANDOM_OPPONENT:
            opponent = None
        if opponent is not None and not callable(opponent) and not callable(getattr(opponent, "act", None)):
            raise TypeError(
                f"opponent must be None or {RANDOM_OPPONENT!r} (uniformly random), a callable observation -> action "
                f"or an object with act(), got {opponent!r}"
            )
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None or one of {self.metadata['render_modes']}, got {render_mode!r}")
        self._play_as = parse_play_as(play_as)
        self._reward_mode = parse_reward(reward)
        self.opponent = opponent
        self.render_mode = render_mode
        self.observation_spec = ObservationSpec.of(observation)
        self.observation_space = self.observation_spec.space()
        self.action_space = spaces.Discrete(NUM_ACTIONS)
        self._state = GameState.initial()
        self._player = BLACK
        self._history: tuple[GameState, ...] = ()  # the positions before the current one, newest first
        self._rng: np.ndarray | None = None
        self._done = True
        self._prev_state: GameState | None = None
        self._last_move: int | None = None
        self._renderer = EnvRenderer(fps=self.metadata["render_fps"])

    # -- reading ---------------------------------------------------------------

    @property
    def state(self) -> GameState:
        """The current position (read-only here)."""
        return self._state

    @property
    def player(self) -> int:
        """The agent's colour in this episode: 0 black, 1 white."""
        return self._player

    def action_masks(self) -> np.ndarray:
        """bool (65,): the agent's legal actions now (all False once the game is over)."""
        return self._observe()["action_mask"].astype(bool)

    def _observe(self) -> dict[str, np.ndarray]:
        return self.observation_spec.observe(self._state, self._player, self._history)

    def _push(self, *positions: GameState) -> tuple[GameState, ...]:
        """The history after ``positions`` (oldest first) were played from."""
        keep = self.observation_spec.history - 1
        return (*reversed(positions), *self._history)[:keep] if keep else ()

    # -- the episode -------------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """New game: the agent's colour, then the opponent's opening move if the agent is white."""
        super().reset(seed=seed)
        self._done = True  # until this reset succeeds: a failed one leaves nothing to step
        if seed is not None or self._rng is None:
            self._rng = bb.make_rng(kernel_seed(self.np_random))
        player = self._play_as
        if player == RANDOM_COLOR:
            player = int(bb.random_below(self._rng, np.uint64(2)))
        reset = getattr(self.opponent, "reset", None)
        if callable(reset):
            reset()
        prev, last, state = None, None, GameState.initial()
        self._history = ()
        if player == WHITE:
            prev = state
            last, state = self._opponent_move(state, 1 - player)
            self._history = self._push(prev)
        self._state, self._player, self._done = state, player, False
        self._prev_state, self._last_move = prev, last
        if self.render_mode == "human":
            self.render()
        return self._observe(), {"player": player}

    def step(self, action: object) -> tuple[dict[str, np.ndarray], SupportsFloat, bool, bool, dict[str, Any]]:
        """The agent plays ``action``, then the opponent replies (see the module docstring)."""
        a = coerce_action(action)
        if self._done:
            raise gymnasium.error.ResetNeeded("the episode is over: call reset() before step()")
        state = self._state
        if not state.is_legal(a):
            self._done = True
            return self._observe(), -1.0, True, False, {"illegal": True}
        prev, last, after = state, a, state.apply(a)
        played: tuple[GameState, ...] = (state,)
        if not after.is_terminal():
            prev, (last, after) = after, self._opponent_move(after, 1 - self._player)
            played = (state, prev)
        self._history = self._push(*played)
        self._prev_state, self._last_move, self._state = prev, last, after
        reward = 0.0
        info: dict[str, Any] = {}
        terminated = self._done = after.is_terminal()
        if terminated:
            black, white = after.score()
            diff = (black - white) if self._player == BLACK else (white - black)
            reward = float((diff > 0) - (diff < 0)) if self._reward_mode == REWARD_WIN else diff / 64.0
            info = {"black_discs": black, "white_discs": white, "disc_difference": diff}
        if self.render_mode == "human":
            self.render()
        return self._observe(), reward, terminated, False, info

    def _opponent_move(self, state: GameState, opponent: int) -> tuple[int, GameState]:
        """The opponent's action and the position after it; OpponentError if it misbehaves."""
        if self.opponent is None:
            legal = state.legal_actions()
            if legal == [PASS]:
                return PASS, state.apply(PASS)
            assert self._rng is not None
            choice = legal[int(bb.random_below(self._rng, np.uint64(len(legal))))]
            return choice, state.apply(choice)
        act = getattr(self.opponent, "act", None)
        choose = act if callable(act) else self.opponent
        name = getattr(self.opponent, "name", type(self.opponent).__name__)
        try:
            action = choose(observe(state, opponent))
        except Exception as e:
            raise OpponentError(f"the opponent {name!r} raised {type(e).__name__}: {e}\n{state}") from e
        try:
            a = coerce_action(action)
            return a, state.apply(a)
        except (InvalidMoveError, IllegalMoveError) as e:
            raise OpponentError(
                f"the opponent {name!r} ({PLAYER_NAMES[opponent]}) chose {action!r}, which is not legal here: {e}"
            ) from e

    # -- rendering -------------------------------------------------------------

    def render(self) -> np.ndarray | str | None:
        """Draw the game: the text board ("ansi"), a uint8 (H, W, 3) image ("rgb_array") or the window ("human")."""
        return self._renderer.render(self.render_mode, self._state, self._prev_state, self._last_move)

    def close(self) -> None:
        """Close the human-mode window if one is open (idempotent)."""
        self._renderer.close()
