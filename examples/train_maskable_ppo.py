"""Train a MaskablePPO agent (sb3-contrib) on Reversi, watch it learn, then play it.

    pip install 'reversi-env[sb3]'
    python examples/train_maskable_ppo.py                       # the default run: a few minutes
    python examples/train_maskable_ppo.py --opponent greedy --timesteps 500000
    python examples/train_maskable_ppo.py --play                # you against the saved model
    python examples/train_maskable_ppo.py --play --gui          # the same, in the window

The learner plays a random colour each game against ``--opponent`` (an agent
spec: random, greedy, positional, alphabeta:2, ...). Every ``--eval-every``
steps it plays ``--eval-games`` games against RandomAgent and GreedyAgent
through ``agents.play_game`` (half as black, half as white) and prints its win
rate; ``--plot`` draws those win rates against timesteps. TensorBoard logs go to
``--tensorboard`` (``tensorboard --logdir models/tensorboard``): SB3's training curves
and, from ``agents.arena.sb3_callback.EvaluateCallback``, ``eval/score_vs_random`` and
``eval/score_vs_greedy`` (``agents.evaluate`` over openings, both colours). The model is saved to
``--save`` (a .zip that ``MaskablePPO.load`` reads); ``agents.adapt(model)``
turns it into a player for play_game and the arena, and the player spec
``python:examples/train_maskable_ppo.py:trained_agent`` brings it to
``reversi play`` and ``reversi gui``.
"""

from __future__ import annotations

import argparse
import functools
import io
import itertools
import os
import pickle
import sys
import time
import warnings
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import cast

import gymnasium
import torch
from evaluation import CtrlCHeld, Evaluator, add_evaluation_options, check_outputs, library_seed
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.policies import MaskableMultiInputActorCriticPolicy
from stable_baselines3.common.callbacks import BaseCallback, ProgressBarCallback
from stable_baselines3.common.env_util import make_vec_env
from stable_baselines3.common.logger import Logger
from stable_baselines3.common.vec_env import VecEnv
from tqdm import TqdmExperimentalWarning

import reversi_env
from agents import Agent, play_game
from agents.arena.sb3_callback import EvaluateCallback
from agents.datafiles import load_json, write_bytes_atomic
from agents.play.adapters import adapt
from agents.play.specs import make_agent
from reversi_env.aec import make_observation_space

DEFAULT_SAVE = "models/maskable_ppo_reversi.zip"
DEFAULT_TENSORBOARD = "models/tensorboard"
MODEL_ENV = "REVERSI_SB3_MODEL"
"""The environment variable ``trained_agent`` reads the model path from."""


class EveryCallback(BaseCallback):
    """Calls ``action(model, timesteps)`` every ``every`` steps (evaluations, snapshots)."""

    def __init__(self, every: int, action: Callable[[MaskablePPO, int], object]) -> None:
        """Run ``action`` every ``every`` steps."""
        super().__init__()
        self.every = every
        self.action = action
        self._next = every

    def _on_step(self) -> bool:
        if self.num_timesteps >= self._next:
            self._next += self.every
            self.action(cast(MaskablePPO, self.model), self.num_timesteps)
        return True


class ProgressBar(ProgressBarCallback):
    """SB3's progress bar without tqdm.rich's ``TqdmExperimentalWarning`` on stderr. SB3 silences it by a
    filter set when it is first imported, which is gone if that import ran in ``warnings.catch_warnings()``
    (a script quieting its imports, pytest's collection); only that warning is silenced, only here."""

    def _on_training_start(self) -> None:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", category=TqdmExperimentalWarning)
            super()._on_training_start()


def make_env_factory(opponent: str, reward: str, seed: int = 0) -> Callable[[], gymnasium.Env]:
    """A factory of training envs: a random colour each game against ``opponent`` (a spec),
    seeded ``seed``, ``seed + 1``... in the order the envs are made (greedy breaks ties at random)."""
    seeds = itertools.count(seed)

    def make() -> gymnasium.Env:
        # "random" uses the env's built-in random opponent: the same play, no Python agent per move.
        other = None if opponent == "random" else make_agent(opponent, seed=next(seeds))
        return gymnasium.make(reversi_env.GYM_ENV_ID, opponent=other, play_as="random", reward=reward)

    return make


def new_model(env: VecEnv, n_steps: int, seed: int, tensorboard: str | None = None) -> MaskablePPO:
    """MaskablePPO with the settings of these examples (also used by selfplay_ppo.py), logging for
    TensorBoard into the folder ``tensorboard`` (a ``MaskablePPO_N`` run in it), or, without one,
    nowhere: SB3's default logger would leave an empty ``SB3-<date>`` folder in the temporary
    directory at every run."""
    model = MaskablePPO(
        "MultiInputPolicy",
        env,
        n_steps=n_steps,
        batch_size=256,
        n_epochs=4,
        learning_rate=3e-4,
        gamma=0.99,
        ent_coef=0.01,
        policy_kwargs={"net_arch": [256, 256]},
        seed=seed,
        tensorboard_log=tensorboard,
    )
    if tensorboard is None:
        model.set_logger(Logger(folder=None, output_formats=[]))
    return model


def learn(model: MaskablePPO, evaluator: Evaluator, args: argparse.Namespace, *extra: BaseCallback) -> bool:
    """Train for ``args.timesteps`` with evaluations (at the start, every
    ``args.eval_every`` steps, at the end); save the model, its history and the plot.
    Ctrl-C stops the training and saves what it learnt so far (a Ctrl-C during the
    save waits for its end); returns whether a Ctrl-C came."""
    interrupted = False
    progress = None if args.no_progress else ProgressBar()
    try:
        evaluator.evaluate(model, 0)  # the untrained policy, as a baseline
        callbacks = [*extra, EveryCallback(args.eval_every, evaluator.evaluate)]
        if progress is not None:
            callbacks.append(progress)
        model.learn(total_timesteps=args.timesteps, callback=callbacks)
        if evaluator.history[-1].timesteps < args.timesteps:  # the last rollout fell short of an evaluation
            evaluator.evaluate(model, model.num_timesteps)
    except KeyboardInterrupt:
        interrupted = True
        if progress is not None and hasattr(progress, "pbar"):  # SB3 closes it only at a normal end
            progress.pbar.close()  # before the lines below: the bar went on being redrawn after them
        if not model.num_timesteps:
            print("\ninterrupted before any training: nothing saved", file=sys.stderr)
            return interrupted
        print(f"\ninterrupted after {model.num_timesteps} of {args.timesteps} timesteps", file=sys.stderr)
    with CtrlCHeld(interrupted) as held:  # a Ctrl-C now waits for the save's end
        save = Path(args.save)
        save.parent.mkdir(parents=True, exist_ok=True)
        archive = io.BytesIO()
        model.save(archive)
        write_bytes_atomic(save, archive.getvalue())
        print(f"saved {save} after {(time.perf_counter() - evaluator.start) / 60:.1f} min")
        evaluator.write(save, args.plot, f"{type(model).__name__}: {args.title}")
    return held.interrupted


def trained_agent() -> Agent:
    """The saved model as a player: the file named by $REVERSI_SB3_MODEL, default
    models/maskable_ppo_reversi.zip. A player spec for the CLI and the GUI:
    ``reversi gui --ai python:examples/train_maskable_ppo.py:trained_agent``."""
    return adapt(load_model(os.environ.get(MODEL_ENV, DEFAULT_SAVE)))


def _unpickled_stand_ins() -> dict[str, object]:
    """What this example's models hold pickled, rebuilt here: the policy class, the env's spaces, PPO's clip range."""
    return {
        "policy_class": MaskableMultiInputActorCriticPolicy,
        "observation_space": make_observation_space(),
        "action_space": gymnasium.spaces.Discrete(reversi_env.GameState.NUM_ACTIONS),
        "clip_range": 0.2,
    }


@functools.lru_cache(maxsize=4)
def load_model(path: str) -> MaskablePPO:
    """``MaskablePPO.load(path)``, once per path (the window builds its AI player at every move),
    unpickling nothing: SB3 keeps some entries of a model as pickles, which would run any code a
    foreign file holds; they are replaced by this example's own (the rest is JSON and tensors read
    with ``weights_only``). One ValueError naming ``path`` if it is not such a model."""
    try:
        with zipfile.ZipFile(path) as archive:
            data = load_json(archive.read("data"))
        if not isinstance(data, dict):
            raise ValueError("its data is not a JSON object")
        stand_ins = _unpickled_stand_ins()
        pickled = [k for k, v in data.items() if isinstance(v, dict) and ":serialized:" in v]
        return MaskablePPO.load(path, custom_objects={k: stand_ins.get(k) for k in pickled}, device="cpu")
    except FileNotFoundError:
        raise
    except (OSError, KeyError, ValueError, RuntimeError, TypeError, AttributeError, zipfile.BadZipFile) as e:
        raise ValueError(f"{path!r} is not a MaskablePPO model of this example: {e}") from None
    except pickle.UnpicklingError:
        raise ValueError(f"{path!r} is not a MaskablePPO model of this example: tensors not plain data") from None


def play(path: str, you: str, gui: bool) -> int:
    """You against the saved model: at the terminal, or in the window (``gui``). A missing
    or unreadable model is one line and status 2, as a bad weights file is to ``reversi play``."""
    if not Path(path).is_file():
        print(f"no model at {path}: train one first (or pass --save PATH)", file=sys.stderr)
        return 2
    os.environ[MODEL_ENV] = str(Path(path).resolve())
    try:
        model = trained_agent()
    except ValueError as e:
        print(e, file=sys.stderr)
        return 2  # a bad file, as `reversi play` says of one
    if gui:  # `reversi gui`, which first checks there is a screen to open the window on
        from agents.ui.cli import main as reversi

        return reversi(["gui", "--ai", f"python:{Path(__file__).resolve()}:trained_agent", "--human", you])
    from agents.play.human import HumanPlayer
    from agents.ui.play_cli import TerminalDisplay

    human = HumanPlayer(you)
    black, white = (human, model) if you == "black" else (model, human)
    display = TerminalDisplay(("you", "model") if you == "black" else ("model", "you"))
    display.show(reversi_env.GameState.initial())
    try:
        result = play_game(black, white, time_limit=None, on_move=display.on_move)
    except KeyboardInterrupt:  # as `reversi play`: one line, the shell's status for it
        print("\ninterrupted", file=sys.stderr)
        return 130
    print(f"\nGame over: {result.summary()}")
    return 0


def even(games: int) -> int:
    """``games`` rounded up to an even number: ``agents.evaluate`` plays each opening with both colours."""
    return games + games % 2


def add_common_options(parser: argparse.ArgumentParser, save: str) -> None:
    """Options shared with selfplay_ppo.py: budget, model file, envs, seed, evaluation."""
    parser.add_argument("--timesteps", type=int, default=150_000, help="training steps (learner moves), default 150000")
    parser.add_argument("--save", default=save, help=f"model file to write (default {save})")
    parser.add_argument("--n-envs", type=int, default=8, help="envs stepped together in this process (default 8)")
    parser.add_argument("--n-steps", type=int, default=256, help="PPO rollout length per env (default 256)")
    parser.add_argument("--seed", type=library_seed, default=0, help="seed of training and evaluation (default 0)")
    parser.add_argument(
        "--reward",
        choices=["win", "disc_diff"],
        default="disc_diff",
        help="the final disc difference / 64 (default; learns faster here), or +1/-1/0",
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar (logs, CI)")
    add_evaluation_options(parser, every=25_000)


def check_common_options(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Rejects budgets below 1 with a usage error."""
    for name in ("timesteps", "n_envs", "n_steps"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be >= 1, got {getattr(args, name)}")


def main(argv: list[str] | None = None) -> int:
    """Train (default) or show a game of the saved model (``--play``)."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_common_options(p, save=DEFAULT_SAVE)
    p.add_argument("--opponent", default="random", help="training opponent, an agent spec (default random)")
    p.add_argument("--play", action="store_true", help="load --save and play against it at the terminal")
    p.add_argument("--gui", action="store_true", help="with --play: in the window")
    p.add_argument("--you", choices=["black", "white"], default="black", help="your colour with --play (default black)")
    p.add_argument(
        "--tensorboard",
        metavar="DIR",
        default=DEFAULT_TENSORBOARD,
        help=f"TensorBoard logs, with each benchmark's score (default {DEFAULT_TENSORBOARD}; '' for none)",
    )
    args = p.parse_args(argv)
    check_common_options(p, args)
    if args.gui and not args.play:
        p.error("--gui goes with --play (the window to play the saved model in)")
    try:
        make_agent(args.opponent)
    except ValueError as e:
        p.error(f"--opponent: {e}")
    torch.set_num_threads(1)  # small networks: one thread is faster and leaves a core to the envs
    if args.play:
        return play(args.save, args.you, args.gui)
    check_outputs(p, args)
    args.title = f"vs {args.opponent}, {args.reward} reward, {args.n_envs} envs, seed {args.seed}"
    vec = make_vec_env(make_env_factory(args.opponent, args.reward, args.seed), n_envs=args.n_envs, seed=args.seed)
    model = new_model(vec, args.n_steps, args.seed, args.tensorboard or None)
    # SB3's logger (TensorBoard) gets agents.evaluate's score against each benchmark, from both colours.
    scores = EvaluateCallback(list(args.benchmarks), every=args.eval_every, games=even(args.eval_games), seed=args.seed)
    extra = [scores] if args.tensorboard else []
    interrupted = learn(model, Evaluator(args.eval_games, args.benchmarks), args, *extra)
    return 130 if interrupted else 0


if __name__ == "__main__":
    sys.exit(main())
