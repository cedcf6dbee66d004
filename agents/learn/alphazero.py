"""The AlphaZero loop: self-play with the PUCT search, a replay buffer, training,
a checkpoint every iteration, evaluation, resumable after a kill.

One iteration: the workers play ``games`` self-play games with the current
network (each worker plays its games side by side so that one network call
evaluates the leaves of all its trees), the samples go into the replay buffer,
the network takes ``train_steps`` Adam steps on symmetric minibatches from it,
and the result is saved as ``iter_NNNN.pt``. An optional ``evaluate`` hook
(the CLI plays arena matches with it) scores the new checkpoint against the
best one so far and the ladder; a checkpoint that beats the best by more than
``promote`` becomes the best. ``progress.json`` holds the history; a run that
was killed continues from its last checkpoint when started again on the same
directory, with the settings it was made with (``CHANGEABLE_ON_RESUME`` lists
the ones a resumed run may change; ``progress.json`` records each change).
``strength.png`` plots the scores against training time.

Optionally the run starts with a supervised warm start (``warm_start``
positions labelled by alpha-beta, ``agents.learn.supervised``), as AlphaGo
started from expert games; that is iteration 0.

Workers are local processes (``backend="local"``) or Ray tasks
(``backend="ray"``, on the cluster at ``address`` or a local Ray); both run
``play_games`` with the same arguments, so the command scales out unchanged.
"""

from __future__ import annotations

import io
import json
import multiprocessing
import pickle
import re
import signal
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from tqdm import tqdm

from agents.cluster import check_reachable
from agents.datafiles import load_json, read_data, write_bytes_atomic, write_text_atomic
from agents.learn.network import (
    NetConfig,
    NetworkEvaluator,
    PolicyValueNet,
    check_device,
    load_network,
    save_network,
)
from agents.learn.network_training import ReplayBuffer, Samples, train_steps
from agents.learn.pattern_training import refuse_changes
from agents.learn.supervised import labelled_positions
from agents.limits import MAX_DATA_FILE, MAX_TEXT_FILE
from agents.search.puct import PUCTConfig, PUCTTree, run_searches
from reversi_env.bitboard import INITIAL_BLACK, INITIAL_WHITE, U0, legal_moves, play

EvaluateHook = Callable[[Path, Path | None, int], dict[str, list[float]]]
"""``evaluate(checkpoint, best, iteration) -> {opponent: [score, low, high]}``:
the new checkpoint's score against each opponent ("best" for the best
checkpoint so far, None before there is one) with its 95 % interval."""


@dataclass
class AZConfig:
    """Everything a run needs; saved in ``progress.json`` so a resumed run and its
    record agree on what was done. ``eval_*`` are the ratings of the command's
    evaluation hook (games a match, simulations a move, ladder opponents)."""

    iterations: int = 10
    games: int = 32
    simulations: int = 64
    parallel_games: int = 16
    leaves_per_tree: int = 8
    dirichlet_alpha: float = 0.5
    gumbel: bool = False
    temperature_moves: int = 10
    workers: int = 1
    backend: str = "local"
    address: str | None = None
    train_steps: int = 200
    minibatch: int = 256
    learning_rate: float = 1e-3
    weight_decay: float = 1e-4
    buffer: int = 100_000
    channels: int = 32
    blocks: int = 3
    warm_start: int = 0
    warm_depth: int = 4
    warm_exact: int = 14
    warm_value_mix: float = 0.0
    warm_steps: int = 2000
    warm_anneal: bool = True
    promote: float = 0.55
    eval_games: int = 20
    eval_sims: int = 0
    eval_against: list[str] = field(default_factory=lambda: ["greedy"])
    device: str = "cpu"
    seed: int = 0

    def __post_init__(self) -> None:
        if self.backend not in ("local", "ray"):
            raise ValueError(f"backend must be 'local' or 'ray', got {self.backend!r}")
        for name in ("games", "simulations", "parallel_games", "leaves_per_tree", "workers", "minibatch", "buffer"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be >= 1, got {getattr(self, name)}")
        if self.iterations < 0 or self.train_steps < 0 or self.warm_start < 0:
            raise ValueError("iterations, train_steps and warm_start must be >= 0")
        check_device(self.device)
        NetConfig(self.channels, self.blocks)  # the tower's bounds, before anything is built
        if not 0.0 <= self.warm_value_mix <= 1.0:
            raise ValueError(f"warm_value_mix must be in [0, 1], got {self.warm_value_mix}")
        if self.eval_games < 0 or self.eval_games % 2 or self.eval_sims < 0:
            raise ValueError(
                f"eval_games must be even and >= 0 and eval_sims >= 0, got {self.eval_games}, {self.eval_sims}"
            )
        if not all(isinstance(spec, str) for spec in self.eval_against):
            raise ValueError(f"eval_against must be player specs, got {str(self.eval_against)[:60]}")

    def search_config(self) -> PUCTConfig:
        """The self-play search."""
        return PUCTConfig(
            simulations=self.simulations,
            batch_size=self.leaves_per_tree,
            dirichlet_alpha=self.dirichlet_alpha,
            gumbel=self.gumbel,
        )


CHANGEABLE_ON_RESUME = frozenset(
    {"iterations", "learning_rate", "workers", "parallel_games", "backend", "address", "device"}
    | {"eval_games", "eval_sims", "eval_against"}
)
"""The settings a resumed run may change: how far it goes, the rate of the steps to come
(lowered after the warm start, say), where the self-play runs and how the checkpoints are
rated. The others say what the run is (its seed, games, search, network, training) and must
be the saved ones."""


def saved_config(directory: str | Path) -> dict[str, Any]:
    """The settings of the run in ``directory`` (those of its last iteration) as saved in
    progress.json, {} when it holds no run; ValueError for a progress.json that is not one."""
    path = Path(directory) / "progress.json"
    return dict(_read_progress(path)["configs"][-1]["config"]) if path.exists() else {}


# -- self-play ---------------------------------------------------------------------


def play_games(
    state_dict: dict[str, torch.Tensor], net_config: dict[str, int], config: dict[str, Any], games: int, seed: int
) -> Samples:
    """Play ``games`` self-play games (``config`` is an AZConfig as a dict) with the
    network given by its weights; returns their samples. Runs in a worker: plain
    data in, plain data out."""
    torch.set_num_threads(1)
    cfg = AZConfig(**config)
    net = PolicyValueNet(NetConfig(**net_config))
    net.load_state_dict(state_dict)
    evaluator = NetworkEvaluator(net, cfg.device if cfg.backend == "local" else "cpu")
    rng = np.random.default_rng(seed)
    parts = []
    for start in range(0, games, cfg.parallel_games):
        parts.append(_play_side_by_side(min(cfg.parallel_games, games - start), cfg, evaluator, rng))
    return Samples.concat(parts)


@dataclass
class _Game:
    p: np.uint64 = INITIAL_BLACK
    o: np.uint64 = INITIAL_WHITE
    side: int = 1  # +1 when the mover is black
    ply: int = 0
    records: list[tuple[np.uint64, np.uint64, np.ndarray, int]] = field(default_factory=list)
    over: bool = False


def _play_side_by_side(n: int, cfg: AZConfig, evaluator: NetworkEvaluator, rng: np.random.Generator) -> Samples:
    search = cfg.search_config()
    games = [_Game() for _ in range(n)]
    while True:
        live = [g for g in games if not g.over]
        if not live:
            break
        for g in live:
            if legal_moves(g.p, g.o) == U0:  # forced pass: no decision, no sample
                g.p, g.o, g.side = g.o, g.p, -g.side
        trees = [PUCTTree(g.p, g.o, search, rng) for g in live]
        run_searches(trees, evaluator)
        for g, tree in zip(live, trees, strict=True):
            result = tree.result()
            g.records.append((g.p, g.o, result.policy, g.side))
            if g.ply < cfg.temperature_moves and not cfg.gumbel:
                action = int(rng.choice(65, p=result.visits / result.visits.sum()))
            else:
                action = result.action
            g.p, g.o = (np.uint64(x) for x in play(g.p, g.o, np.int64(action)))
            g.side, g.ply = -g.side, g.ply + 1
            if legal_moves(g.p, g.o) == U0 and legal_moves(g.o, g.p) == U0:
                g.over = True
    return Samples.concat([_game_samples(g) for g in games])


def _game_samples(game: _Game) -> Samples:
    # At the end (p, o) is the final position; game.side says whose p is.
    diff = int(game.p).bit_count() - int(game.o).bit_count()
    black_result = float(np.sign(diff)) * game.side
    n = len(game.records)
    return Samples(
        np.array([r[0] for r in game.records], dtype=np.uint64),
        np.array([r[1] for r in game.records], dtype=np.uint64),
        np.array([r[2] for r in game.records], dtype=np.float32).reshape(n, 65),
        np.array([r[3] * black_result for r in game.records], dtype=np.float32),
    )


def _worker_start() -> None:
    """A worker's initializer: Ctrl-C is the parent's (leaving the pool ends the workers), no worker tracebacks."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _self_play(net: PolicyValueNet, cfg: AZConfig, iteration: int) -> Samples:
    state_dict = {k: v.detach().cpu() for k, v in net.state_dict().items()}
    net_config = asdict(net.config)
    config = asdict(cfg)
    shares = [cfg.games // cfg.workers + (1 if w < cfg.games % cfg.workers else 0) for w in range(cfg.workers)]
    jobs = [
        (state_dict, net_config, config, share, cfg.seed * 1_000_003 + iteration * 101 + w)
        for w, share in enumerate(shares)
        if share
    ]
    if cfg.backend == "ray":
        import ray

        if not ray.is_initialized():
            if cfg.address:
                check_reachable(cfg.address)
            ray.init(address=cfg.address, include_dashboard=False, ignore_reinit_error=True)
        remote = ray.remote(num_cpus=1)(play_games)
        return Samples.concat(ray.get([remote.remote(*job) for job in jobs]))
    if cfg.workers == 1:
        return play_games(*jobs[0])
    with multiprocessing.get_context("spawn").Pool(cfg.workers, _worker_start) as pool:
        return Samples.concat(pool.starmap(play_games, jobs))


# -- the run -----------------------------------------------------------------------

_STATE_FILE = re.compile(r"optimizer(_\d{4,})?\.pt|replay(_\d{4,})?\.npz")
"""The names ``Run.state_files`` gives (and the unnumbered pair of older versions)."""


def _checked_record(record: Any) -> dict[str, Any]:
    """An iteration's record read from progress.json, or ValueError: the strength plot and the
    log read its time and its scores (``[score, low, high]`` an opponent)."""
    numbers = (int, float)
    if not isinstance(record, dict) or not all(
        isinstance(record[key], numbers) for key in ("iteration", "seconds", "policy_loss", "value_loss")
    ):
        raise ValueError(f"a history entry is not an iteration's record: {str(record)[:60]}")
    scores = record["scores"]
    if not isinstance(scores, dict) or not all(
        isinstance(v, list) and len(v) == 3 and all(isinstance(x, numbers) for x in v) for v in scores.values()
    ):
        raise ValueError(f"a history entry's scores are not [score, low, high] lists: {str(scores)[:60]}")
    return record


def _checked_config(entry: Any) -> dict[str, Any]:
    """A ``configs`` entry of progress.json (``{"from_iteration": n, "config": {...}}``), or
    ValueError: its settings are AZConfig fields of the fields' types (older runs lack the newer ones)."""
    if not isinstance(entry, dict) or not isinstance(entry["from_iteration"], int):
        raise ValueError(f"a configs entry is not a run's settings: {str(entry)[:60]}")
    config = entry["config"]
    if not isinstance(config, dict):
        raise ValueError(f"the saved config is not a dict of settings: {str(config)[:60]}")
    defaults = asdict(AZConfig())
    widened = {float: (int, float), type(None): (str, type(None))}  # a float may be written 1; address: None or str
    for name, value in config.items():
        if name not in defaults or type(value) not in widened.get(type(defaults[name]), (type(defaults[name]),)):
            raise ValueError(f"the saved setting {name}={str(value)[:30]} is not one of this version's")
    return {"from_iteration": entry["from_iteration"], "config": config}


def _read_progress(path: Path) -> dict[str, Any]:
    """progress.json checked: its numbers, best, history and configs (a run of an older
    version has one ``config``: it stands for the whole run); ValueError naming the file."""
    try:
        progress = load_json(read_data(path, MAX_TEXT_FILE, "a run's progress"))
        history = [_checked_record(record) for record in progress["history"]]
        if not history:
            raise ValueError("its history is empty")
        legacy = [{"from_iteration": history[0]["iteration"], "config": progress.get("config", {})}]
        return {
            "iteration": int(progress["iteration"]),
            "seconds": float(progress["seconds"]),
            "samples": int(progress["samples"]),
            "best": str(progress["best"]),
            "history": history,
            "configs": [_checked_config(entry) for entry in progress.get("configs") or legacy],
        }
    except OSError as e:
        raise ValueError(f"{str(path)!r} is not a train-az progress file: {e.strerror or e}") from None
    except (ValueError, KeyError, TypeError, AttributeError) as e:
        raise ValueError(f"{str(path)!r} is not a train-az progress file: {e}") from None


class Run:
    """A training run in one directory: its config, network, optimizer, buffer and
    history, created fresh or resumed from the files there; ``progress``: its
    progress bars (on stderr) are shown."""

    def __init__(self, directory: str | Path, config: AZConfig, progress: bool = True) -> None:
        self.dir = Path(directory)
        self.progress = progress
        self.dir.mkdir(parents=True, exist_ok=True)
        self.config = config
        self.net = PolicyValueNet(NetConfig(config.channels, config.blocks)).to(config.device)
        self.optimizer = self._optimizer()
        self.buffer = ReplayBuffer(config.buffer)
        self.iteration = -1
        self.seconds = 0.0
        self.samples_seen = 0
        self.best = ""
        self.history: list[dict[str, Any]] = []
        self.configs: list[dict[str, Any]] = []  # the settings of each stretch of iterations
        if (self.dir / "progress.json").exists():
            self._resume()

    def _optimizer(self) -> torch.optim.Optimizer:
        c = self.config
        return torch.optim.AdamW(self.net.parameters(), lr=c.learning_rate, weight_decay=c.weight_decay)

    def checkpoint(self, iteration: int) -> Path:
        """The path of an iteration's network."""
        return self.dir / f"iter_{iteration:04d}.pt"

    def state_files(self, iteration: int) -> tuple[Path, Path]:
        """The optimizer state and the replay buffer saved with an iteration's network.
        Named by the iteration, so a kill between the writes of one save leaves the
        files ``progress.json`` names as they were (runs of older versions: one pair
        without the number)."""
        return self.dir / f"optimizer_{iteration:04d}.pt", self.dir / f"replay_{iteration:04d}.npz"

    def _resume(self) -> None:
        progress = _read_progress(self.dir / "progress.json")
        self.iteration = progress["iteration"]
        self.seconds = progress["seconds"]
        self.samples_seen = progress["samples"]
        self.best = progress["best"]
        self.history = progress["history"]
        self.configs = progress["configs"]
        saved, asked = self.configs[-1]["config"], asdict(self.config)
        differ = [name for name in saved if name not in CHANGEABLE_ON_RESUME and saved[name] != asked[name]]
        refuse_changes(self.dir, saved, asked, differ, "--out")
        net, _ = load_network(self.checkpoint(self.iteration), self.config.device)
        if net.config != self.net.config:
            raise ValueError(f"{self.dir}: the saved network is {net.config}, the command asks for {self.net.config}")
        self.net = net
        self.optimizer = self._optimizer()
        optimizer_file, replay_file = self.state_files(self.iteration)
        if not optimizer_file.exists() and not replay_file.exists():
            optimizer_file, replay_file = self.dir / "optimizer.pt", self.dir / "replay.npz"
        if optimizer_file.exists():
            try:
                state = read_data(optimizer_file, MAX_DATA_FILE, "an optimizer state")
                self.optimizer.load_state_dict(torch.load(io.BytesIO(state), weights_only=True))
            except (pickle.UnpicklingError, RuntimeError, KeyError, TypeError, ValueError, EOFError, OSError):
                raise ValueError(f"{str(optimizer_file)!r} is not this run's optimizer state") from None
            for group in self.optimizer.param_groups:  # the command's rate, not the saved one
                group["lr"] = self.config.learning_rate
        if replay_file.exists():
            self.buffer.load(replay_file)

    def _save(self, iteration: int, losses: tuple[float, float], scores: dict[str, list[float]]) -> None:
        self.iteration = iteration
        info = {"iteration": iteration, "seconds": round(self.seconds, 1), "samples": self.samples_seen}
        save_network(self.checkpoint(iteration), self.net, info)
        optimizer_file, replay_file = self.state_files(iteration)
        optimizer_state = io.BytesIO()
        torch.save(self.optimizer.state_dict(), optimizer_state)
        write_bytes_atomic(optimizer_file, optimizer_state.getvalue())
        self.buffer.save(replay_file)
        self.history.append(
            {"iteration": iteration, **info, "policy_loss": losses[0], "value_loss": losses[1], "scores": scores}
        )
        self._write_progress()
        for path in self.dir.iterdir():  # the previous iteration's, no longer named by progress.json
            if _STATE_FILE.fullmatch(path.name) and path not in (optimizer_file, replay_file):
                path.unlink(missing_ok=True)

    def _write_progress(self) -> None:
        """progress.json, written last of a save: it names the saved iteration and its state files."""
        progress = {
            "iteration": self.iteration,
            "seconds": self.seconds,
            "samples": self.samples_seen,
            "best": self.best,
            "config": self.configs[-1]["config"],
            "configs": self.configs,
            "history": self.history,
        }
        write_text_atomic(self.dir / "progress.json", json.dumps(progress, indent=1))

    def _train(self, data: Samples, steps: int, label: str, seed: int, anneal: bool = False) -> tuple[float, float]:
        rng = np.random.default_rng(seed)
        c = self.config
        with tqdm(total=steps, desc=label, unit="step", leave=False, disable=not self.progress) as bar:
            return train_steps(self.net, self.optimizer, data, steps, c.minibatch, rng, c.device, bar.update, anneal)

    def warm_start(self, evaluate: EvaluateHook | None = None) -> None:
        """Iteration 0: alpha-beta-labelled positions, then supervised steps; the
        result is rated against the ladder by ``evaluate`` (there is no best yet)."""
        c = self.config
        self._record_config(0)
        start = time.monotonic()
        with tqdm(total=c.warm_start, desc="labelling positions", unit="pos", disable=not self.progress) as bar:
            data = labelled_positions(
                c.warm_start, c.warm_depth, seed=c.seed, progress=bar.update,
                exact_empties=c.warm_exact, value_mix=c.warm_value_mix,
            )  # fmt: skip
        self.buffer.add(data)
        self.samples_seen += len(data)
        losses = self._train(data, c.warm_steps, "warm start", c.seed, c.warm_anneal)
        self.seconds += time.monotonic() - start
        self.best = self.checkpoint(0).name
        self._save(0, losses, {})
        if evaluate is not None:
            self.evaluate_last(evaluate)

    def iterate(self, iteration: int, evaluate: EvaluateHook | None) -> dict[str, Any]:
        """One self-play, training and evaluation iteration; returns its record."""
        c = self.config
        self._record_config(iteration)
        start = time.monotonic()
        samples = _self_play(self.net, c, iteration)
        self.buffer.add(samples)
        self.samples_seen += len(samples)
        losses = self._train(self.buffer.data, c.train_steps, f"training {iteration}", c.seed + iteration)
        self.seconds += time.monotonic() - start
        self._save(iteration, losses, {})
        self.evaluate_last(evaluate)
        return self.history[-1]

    def evaluate_last(self, evaluate: EvaluateHook | None) -> None:
        """Score the last saved iteration with ``evaluate`` against the best before it and
        promote it, then save its scores; the step after ``iterate``'s save, which a resumed
        run redoes when a kill came before the scores were saved."""
        checkpoint = self.checkpoint(self.iteration)
        previous_best = self.dir / self.best if self.best not in ("", checkpoint.name) else None
        scores = evaluate(checkpoint, previous_best, self.iteration) if evaluate is not None else {}
        if previous_best is None or scores.get("best", [1.0])[0] > self.config.promote:
            self.best = checkpoint.name
        self.history[-1]["scores"] = scores  # the network and state files are saved already
        self._write_progress()
        plot_strength(self.history, self.dir / "strength.png")

    def _record_config(self, iteration: int) -> None:
        """Note the settings ``iteration`` is made with when they are not those of the one before."""
        config = asdict(self.config)
        if not self.configs or self.configs[-1]["config"] != config:
            self.configs.append({"from_iteration": iteration, "config": config})


def train(
    directory: str | Path,
    config: AZConfig,
    evaluate: EvaluateHook | None = None,
    log: Callable[[str], None] = print,
    progress: bool = True,
) -> Run:
    """Run (or resume) the loop in ``directory`` up to ``config.iterations`` (``progress``: with progress bars)."""
    torch.manual_seed(config.seed)
    run = Run(directory, config, progress)
    if run.iteration < 0 and config.warm_start:
        run.warm_start(evaluate)
        shown = _scores_text(run.history[-1]["scores"])
        log(f"warm start: {run.samples_seen} positions, {run.seconds:.0f} s{shown} -> {run.checkpoint(0).name}")
    elif run.iteration >= 0:
        log(f"resuming {run.dir} after iteration {run.iteration} ({run.seconds:.0f} s of training so far)")
        if evaluate is not None and not run.history[-1]["scores"]:  # killed while it was being evaluated
            run.evaluate_last(evaluate)
            log(f"iteration {run.iteration} evaluated{_scores_text(run.history[-1]['scores'])}; best {run.best}")
    for iteration in range(max(run.iteration + 1, 1), config.iterations + 1):
        record = run.iterate(iteration, evaluate)
        log(
            f"iteration {iteration}: {record['samples']} samples, losses {record['policy_loss']:.3f} / "
            f"{record['value_loss']:.3f}, {record['seconds']:.0f} s{_scores_text(record['scores'])}; best {run.best}"
        )
    return run


def _scores_text(scores: dict[str, list[float]]) -> str:
    """The scores for a log line ("; greedy 0.90 [0.70, 0.97], ..."), or nothing."""
    shown = ", ".join(f"{k} {v[0]:.2f} [{v[1]:.2f}, {v[2]:.2f}]" for k, v in scores.items())
    return "; " + shown if shown else ""


def plot_strength(history: list[dict[str, Any]], path: Path) -> None:
    """Score (with 95 % intervals) against each opponent over training time."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    opponents = sorted({k for h in history for k in h["scores"]})
    if not opponents:
        return
    fig, ax = plt.subplots(figsize=(6, 4))
    for name in opponents:
        pts = [(h["seconds"] / 60, *h["scores"][name]) for h in history if name in h["scores"]]
        x, y, lo, hi = (np.array(v) for v in zip(*pts, strict=True))
        ax.errorbar(x, y, yerr=[y - lo, hi - y], marker="o", capsize=3, label=f"vs {name}")
    ax.set_xlabel("training time (minutes)")
    ax.set_ylabel("score (95 % interval)")
    ax.set_ylim(0, 1)
    ax.axhline(0.5, color="grey", lw=0.5)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
