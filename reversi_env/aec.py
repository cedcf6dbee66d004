"""
# Reversi

| Import             | `env = reversi_env.env()`                                      |
|--------------------|----------------------------------------------------------------|
| Creation           | `pettingzoo.make("aec", "reversi_env/reversi-v0")`              |
| Actions            | Discrete                                                       |
| Parallel API       | No (turn-based); `turn_based_aec_to_parallel(env())` converts  |
| Manual Control     | No (see the `reversi` command and its GUI)                     |
| Agents             | `agents = ['black_0', 'white_0']` (black moves first)          |
| Number of agents   | 2                                                              |
| Action Shape       | ()                                                             |
| Action Values      | Discrete(65): 0-63 place a disc, 64 = PASS                     |
| Observation Shape  | `observation` (8, 8, 2) int8, `action_mask` (65,) int8         |
|                    | (by default; see `observation=` below)                         |
| Observation Values | [0, 1]                                                         |
| Rewards            | +1 win, -1 loss, 0 draw, at the end only                       |
| Pass rule          | PASS is legal only when no placement is; the game ends as soon |
|                    | as neither side can place (no double pass is played)           |

Reversi (Othello) on an 8 x 8 board. Each move places a disc that outflanks a
line of the opponent's discs, which flip. The player with more discs at the
end wins. Squares are ``row * 8 + col``: A1 = 0 is the top-left corner, H1 = 7,
A8 = 56, H8 = 63. The start position has white on D4 and E5, black on E4 and
D5; black's legal moves are D3, C4, F5 and E6.

### Observation Space

A dict with ``"observation"`` and ``"action_mask"``, for whichever agent is
observed, at any time:

* ``observation``: int8 (8, 8, 2), ``[row, col, plane]``. Plane 0 holds the
  observer's discs, plane 1 the opponent's (1 = a disc there).
* ``action_mask``: int8 (65,), 1 for each legal action of the observer. It is
  all zeros when the observer is not the agent to move, and when the game is over.

``raw_env(observation=ObservationSpec(...))`` (or a dict of its fields; also
through ``env()``) changes the ``observation`` entry: float32, channels-first,
a legal-moves plane, a side-to-move plane, the last k positions, flat (see
``reversi_env.observation``). The mask stays as it is.

### Action Space

``Discrete(65)``. 0-63 place a disc on that square; 64 is PASS, legal if and
only if the player to move has no placement (a forced pass). Python and numpy
integers are accepted, and 0-d integer arrays (``np.array(19)``), which
``Discrete`` contains. With ``env()`` an illegal action ends the game with -1
for the agent that made it and 0 for the other (PettingZoo's
TerminateIllegalWrapper); an action outside 0-64 fails the AssertOutOfBounds
check. ``raw_env`` raises ``IllegalMoveError`` / ``InvalidMoveError`` instead
and leaves the game as it was.

### Rewards

+1 to the agent with more discs at the end, -1 to the other, 0 to both on a
draw; 0 on every other step. With ``max_moves`` set, the game is truncated
(reward 0) after that many actions, passes included.

### Infos

A fresh dict per agent after every step, deterministic (no times or ids). When
the game ends (terminated or truncated) each agent's info holds
``black_discs``, ``white_discs`` and ``disc_difference`` (that agent's discs
minus the opponent's); after an illegal action (``env()``), the offender's
info also has ``"illegal": True``.

### The live game

``env.unwrapped.state`` is the current ``GameState`` (immutable). Assigning a
``GameState`` to it restarts the episode bookkeeping from that position, so a
search can clone the live game: ``sim = raw_env(); sim.reset();
sim.state = env.unwrapped.state``. ``reset(options={"state": s})`` starts an
episode from ``s``. This property takes the name of PettingZoo's optional global
``state()`` method, which this env does not provide (an observation already
shows the whole board): ``env().state()`` and the parallel conversion's
``state()`` raise NotImplementedError saying so. ``copy.deepcopy(env)`` and
``pickle`` carry the game in progress (the copy plays on alone; a human-mode
window stays with the original).

### Version History

* v0: Initial release (reversi-env 0.1.0)
"""

from __future__ import annotations

from operator import attrgetter
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle, seeding
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from reversi_env.notation import NUM_ACTIONS, as_action
from reversi_env.observation import ObservationSpec
from reversi_env.render import EnvRenderer
from reversi_env.state import BLACK, WHITE, GameState

AGENTS = ("black_0", "white_0")
"""Agent names, indexed by player (0 black, 1 white)."""
_PLAYER_OF = {agent: player for player, agent in enumerate(AGENTS)}


class ActionSpace(spaces.Discrete):
    """``Discrete(65)`` whose ``contains`` answers a plain int without numpy.

    AssertOutOfBoundsWrapper asks on every step; Gymnasium's generic check
    builds numpy dtype info each time, which costs more than a move.
    """

    def __init__(self) -> None:
        """The 65 actions: 0-63 place a disc, 64 passes."""
        super().__init__(NUM_ACTIONS)

    def contains(self, x: Any) -> bool:
        """True for an integer action 0-64 (Python or numpy), as Discrete decides."""
        if type(x) is int:
            return 0 <= x < NUM_ACTIONS
        return bool(super().contains(x))


def _unknown_agent(agent: object) -> KeyError:
    return KeyError(f"unknown agent {agent!r}: the agents are {', '.join(AGENTS)}")


def make_observation_space(spec: ObservationSpec | None = None) -> spaces.Dict:
    """A new observation space: by default ``Dict(observation=Box(0, 1, (8, 8, 2), int8),
    action_mask=Box(0, 1, (65,), int8))``, else the one ``spec`` describes.

    Shared by the AEC, single-agent and vector envs (each builds its spaces once).
    """
    return ObservationSpec.of(spec).space()


def env(
    render_mode: str | None = None,
    max_moves: int | None = None,
    observation: ObservationSpec | dict[str, Any] | None = None,
    **kwargs: Any,
) -> AECEnv:
    """The Reversi AEC env with PettingZoo's standard wrappers for classic games:
    illegal actions end the game (-1), out-of-range ones fail an assert, call order is enforced."""
    wrapped: AECEnv = raw_env(render_mode=render_mode, max_moves=max_moves, observation=observation, **kwargs)
    wrapped = TerminateIllegalWrapper(wrapped, illegal_reward=-1)
    wrapped = AssertOutOfBoundsWrapper(wrapped)
    wrapped = OrderEnforcingWrapper(wrapped)
    return wrapped


# PettingZoo's wrappers find the per-step attributes (agent_selection, rewards,
# terminations, ...) through ``__getattr__``, which runs only after a failed
# lookup: one raised AttributeError per wrapper level, several times a step.
# That cost more than the game itself (about 12 us per attribute through three
# wrappers on the dev machine). These subclasses change nothing but the lookup:
# a property whose getter (a C-level ``attrgetter``) reads the raw env directly.
# OrderEnforcingWrapper's rule that they cannot be read before reset() is kept:
# its getters go through ``_live``, which reset() sets; until then the getter
# fails and Python falls back to the stock ``__getattr__``, which raises.
_GAME_ATTRIBUTES = (
    "agents",
    "agent_selection",
    "rewards",
    "terminations",
    "truncations",
    "infos",
    "_cumulative_rewards",
)


def _direct(path: str, name: str) -> property:
    def set_(self: Any, value: Any) -> None:
        setattr(self._raw, name, value)

    return property(attrgetter(f"{path}.{name}"), set_, doc=f"The raw env's ``{name}``, read directly.")


class TerminateIllegalWrapper(wrappers.TerminateIllegalWrapper):
    """PettingZoo's TerminateIllegalWrapper with direct attribute lookups (see above)."""

    _prev_obs: Any
    _terminated: bool

    def __init__(self, env: AECEnv, illegal_reward: float) -> None:
        """Wrap ``env``; an illegal action ends the game with ``illegal_reward`` for its author."""
        self._raw = env.unwrapped
        super().__init__(env, illegal_reward)
        self._episode = self._raw._episodes  # the episode the cached mask (_prev_obs) belongs to

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """PettingZoo's reset; the new episode is the one this wrapper's state is of."""
        super().reset(seed=seed, options=options)
        self._episode = self._raw._episodes

    def step(self, action: Any) -> None:
        """PettingZoo's step; when it ends the game for an illegal action, the infos
        also get the disc counts, and the offender's ``"illegal": True``.

        PettingZoo's wrapper judges the action by the mask of the last ``observe``
        / ``last()``; after ``env.unwrapped.state = s`` that mask is of the old
        position (another episode, counted by the raw env), so it is read again,
        and an illegal move of an earlier episode no longer counts as this one's end.
        """
        raw = self._raw
        agent = raw.agent_selection
        if self._episode != raw._episodes:  # ``env.unwrapped.state = s`` began another episode
            self._episode = raw._episodes
            self._prev_obs = None
            self._terminated = False
        already_over = self._terminated
        super().step(action)
        if self._terminated and not already_over:
            infos = self._raw._end_infos()
            infos[agent]["illegal"] = True
            self._raw.infos = infos


class AssertOutOfBoundsWrapper(wrappers.AssertOutOfBoundsWrapper):
    """PettingZoo's AssertOutOfBoundsWrapper with direct attribute lookups (see above)."""

    def __init__(self, env: AECEnv) -> None:
        """Wrap ``env``; an action outside the action space fails an assert."""
        self._raw = env.unwrapped
        super().__init__(env)

    def step(self, action: Any) -> None:
        """PettingZoo's step; a numpy integer of any width counts as its value
        (``np.uint64(19)`` is 19), and a bool is refused by name (InvalidMoveError)."""
        if isinstance(action, (bool, np.bool_)):
            as_action(action)  # raises, saying an action is an integer and not a bool
        if isinstance(action, np.integer):
            action = int(action)
        super().step(action)


class OrderEnforcingWrapper(wrappers.OrderEnforcingWrapper):
    """PettingZoo's OrderEnforcingWrapper with direct attribute lookups (see above)."""

    def __init__(self, env: AECEnv) -> None:
        """Wrap ``env``; reading game attributes or stepping before reset() is an error."""
        self._raw = env.unwrapped
        super().__init__(env)

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Reset the game; from now on the game attributes can be read."""
        self._live = self._raw
        super().reset(seed=seed, options=options)

    def __str__(self) -> str:
        return str(self.env)


def _no_global_state(self: Any) -> np.ndarray:
    """PettingZoo's optional global ``state()``, which this env does not provide:
    raises NotImplementedError, as PettingZoo's own envs without one do."""
    raise NotImplementedError(
        "reversi_env has no PettingZoo global state() (an observation already shows the whole board); "
        "the current position is the property env.unwrapped.state, a GameState"
    )


for _name in _GAME_ATTRIBUTES:
    setattr(TerminateIllegalWrapper, _name, _direct("_raw", _name))
    setattr(AssertOutOfBoundsWrapper, _name, _direct("_raw", _name))
    setattr(OrderEnforcingWrapper, _name, _direct("_live", _name))
# The raw env's ``state`` is a property holding a GameState, so PettingZoo's
# wrappers, whose ``state()`` calls ``self.env.state()``, would fail with
# "'GameState' object is not callable"; ours say what there is instead.
for _cls in (TerminateIllegalWrapper, AssertOutOfBoundsWrapper, OrderEnforcingWrapper):
    _cls.state = _no_global_state


_EPISODE_FIELDS = (
    "_state",
    "_prev_state",
    "_last_move",
    "_num_moves",
    "_history",
    "_episodes",
    "agents",
    "agent_selection",
    "rewards",
    "_cumulative_rewards",
    "terminations",
    "truncations",
    "infos",
    "np_random",
    "np_random_seed",
)
"""What a pickled or copied ``raw_env`` carries besides its constructor's arguments."""


class raw_env(AECEnv, EzPickle):  # noqa: N801 -- PettingZoo's name for the unwrapped env
    """The unwrapped Reversi AEC env: checked moves (raises on illegal ones), no wrappers."""

    metadata: dict[str, Any] = {  # noqa: RUF012 -- PettingZoo reads it as a class attribute
        "name": "reversi_v0",
        "render_modes": ["human", "ansi", "rgb_array"],
        "is_parallelizable": False,
        "render_fps": 4,
    }

    def __init__(
        self,
        render_mode: str | None = None,
        max_moves: int | None = None,
        screen_size: int = 512,
        observation: ObservationSpec | dict[str, Any] | None = None,
    ):
        """``render_mode``: None, "human", "ansi" or "rgb_array"; ``max_moves``: truncate
        after that many actions (None: play to the end); ``screen_size``: image side in pixels;
        ``observation``: an ``ObservationSpec`` or a dict of its fields (None: the default planes)."""
        EzPickle.__init__(
            self, render_mode=render_mode, max_moves=max_moves, screen_size=screen_size, observation=observation
        )
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None or one of {self.metadata['render_modes']}, got {render_mode!r}")
        if max_moves is not None and (
            isinstance(max_moves, bool) or not isinstance(max_moves, (int, np.integer)) or max_moves < 1
        ):
            raise ValueError(f"max_moves must be None or a positive int, got {max_moves!r}")
        if isinstance(screen_size, bool) or not isinstance(screen_size, (int, np.integer)) or screen_size < 64:
            raise ValueError(f"screen_size must be an int >= 64, got {screen_size!r}")
        self.render_mode = render_mode
        self.max_moves = None if max_moves is None else int(max_moves)
        self.screen_size = int(screen_size)
        self.observation_spec = ObservationSpec.of(observation)

        self.possible_agents = list(AGENTS)
        self.agents = self.possible_agents[:]
        self.action_spaces: dict[str, spaces.Discrete] = {agent: ActionSpace() for agent in AGENTS}
        self.observation_spaces = {agent: self.observation_spec.space() for agent in AGENTS}
        self._state = GameState.initial()
        self._prev_state: GameState | None = None
        self._last_move: int | None = None
        self._num_moves = 0
        self._history: tuple[GameState, ...] = ()  # the positions before the current one, newest first
        self._episodes = 0  # begun by reset or by setting state: the wrapper checks its cached mask by it
        self._renderer = EnvRenderer(self.screen_size, fps=self.metadata["render_fps"])

    # -- spaces ----------------------------------------------------------------

    def observation_space(self, agent: str) -> spaces.Space:
        """The observation space of ``agent`` (the same object every call)."""
        try:
            return self.observation_spaces[agent]
        except (KeyError, TypeError):
            raise _unknown_agent(agent) from None

    def action_space(self, agent: str) -> spaces.Space:
        """The action space of ``agent`` (the same object every call)."""
        try:
            return self.action_spaces[agent]
        except (KeyError, TypeError):
            raise _unknown_agent(agent) from None

    # -- the game --------------------------------------------------------------

    @property
    def state(self) -> GameState:
        """The current position (immutable). Assigning one restarts the episode from it."""
        return self._state

    @state.setter
    def state(self, value: GameState) -> None:
        if not isinstance(value, GameState):
            raise TypeError(f"state must be a GameState, got {type(value).__name__}")
        self._start(value)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """``agent``'s observation: its planes (as ``observation_spec`` says) and its legal-action mask."""
        try:
            player = _PLAYER_OF[agent]
        except (KeyError, TypeError):
            raise _unknown_agent(agent) from None
        return self.observation_spec.observe(self._state, player, self._history)

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a game from the initial position, or from ``options["state"]`` (a GameState).

        The game has no randomness; ``seed`` (None or an int >= 0, checked as
        Gymnasium checks it) seeds ``np_random`` for a caller's use, not the game.
        Other option keys are ignored.
        """
        if seed is not None:
            self.np_random, self.np_random_seed = seeding.np_random(seed)
        if options is not None and not isinstance(options, dict):
            raise TypeError(f"options must be a dict or None, got {type(options).__name__}")
        start = GameState.initial() if options is None else options.get("state", GameState.initial())
        if not isinstance(start, GameState):
            raise TypeError(f"options['state'] must be a GameState, got {type(start).__name__}")
        self._start(start)

    def _start(self, start: GameState) -> None:
        self._episodes += 1
        self._state = start
        self._prev_state = None
        self._last_move = None
        self._num_moves = 0
        self._history = ()
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self.agent_selection = AGENTS[start.player]
        if start.is_terminal():
            self._finish(terminated=True)
            self._accumulate_rewards()

    def step(self, action: int) -> None:
        """Play ``action`` (0-63, or 64 = PASS) for the agent to move.

        Raises InvalidMoveError / IllegalMoveError (the game unchanged) for a
        malformed or illegal action; ``env()`` turns illegal ones into a loss.
        """
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        a = as_action(action)
        prev = self._state
        self._state = prev.apply(a)
        self._prev_state = prev
        self._last_move = a
        self._num_moves += 1
        keep = self.observation_spec.history - 1
        if keep:
            self._history = (prev, *self._history[: keep - 1])
        self._cumulative_rewards[agent] = 0
        self.agent_selection = AGENTS[self._state.player]
        if self._state.is_terminal():
            self._finish(terminated=True)
            self._accumulate_rewards()
        elif self.max_moves is not None and self._num_moves >= self.max_moves:
            self._finish(terminated=False)
        else:  # mid-game: every reward is 0, so there is nothing to accumulate
            self.rewards = {AGENTS[BLACK]: 0, AGENTS[WHITE]: 0}
            self.infos = {AGENTS[BLACK]: {}, AGENTS[WHITE]: {}}
        if self.render_mode == "human":
            self.render()

    def _finish(self, *, terminated: bool) -> None:
        """End the episode: outcome rewards (when terminated) and the final disc counts."""
        black, white = self._state.score()
        diff = black - white
        if terminated:
            outcome = (diff > 0) - (diff < 0)
            self.rewards = {AGENTS[BLACK]: outcome, AGENTS[WHITE]: -outcome}
            self.terminations = dict.fromkeys(self.agents, True)
        else:
            self.rewards = dict.fromkeys(self.agents, 0)
            self.truncations = dict.fromkeys(self.agents, True)
        self.infos = self._end_infos()

    def _end_infos(self) -> dict[str, dict[str, Any]]:
        """Fresh per-agent infos with the disc counts, for the end of an episode."""
        black, white = self._state.score()
        diff = black - white
        return {
            agent: {"black_discs": black, "white_discs": white, "disc_difference": diff if p == BLACK else -diff}
            for p, agent in enumerate(AGENTS)
        }

    # -- copying ---------------------------------------------------------------

    def __getstate__(self) -> dict[str, Any]:
        """EzPickle's state (the constructor's arguments) and the game in progress.

        EzPickle alone rebuilds an env that was never reset, so a pickled or
        ``copy.deepcopy``-ed env lost its game, and a wrapped one (which still
        believes it was reset) failed on its first ``agent_selection``. The
        copy keeps the game, its bookkeeping and ``np_random``; the window of
        human mode stays with the original (a copy opens its own when it draws).
        """
        state = EzPickle.__getstate__(self)
        state["_game"] = {name: self.__dict__[name] for name in _EPISODE_FIELDS if name in self.__dict__}
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Rebuild from the constructor's arguments, then restore the game."""
        game = state.get("_game", {})
        EzPickle.__setstate__(self, {k: v for k, v in state.items() if k != "_game"})
        self.__dict__.update(game)

    # -- rendering -------------------------------------------------------------

    def render(self) -> np.ndarray | str | None:
        """Draw the game: the text board ("ansi"), a uint8 (H, W, 3) image ("rgb_array") or the window ("human")."""
        return self._renderer.render(self.render_mode, self._state, self._prev_state, self._last_move)

    def close(self) -> None:
        """Close the human-mode window if one is open (idempotent)."""
        self._renderer.close()

    def __str__(self) -> str:
        return str(self.metadata["name"])
