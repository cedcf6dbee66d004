"""The training loop of the pattern evaluation: rounds of self-play and refitting.

Round 0 plays its games with the hand-written evaluation (or with initial
weights, to go on from a trained evaluation); every later round
plays with the weights fitted so far, adds its positions to the data, and
refits on all of it (warm-started from the last weights). The games of a round
are cut into chunks, each seeded from ``(seed, round, chunk)`` and played by
local processes (``backend="local"``, in this process with one worker) or Ray
tasks (``backend="ray"``); chunks are put back in order, so a seed gives the
same weights whatever the workers.

With a checkpoints directory each round also leaves ``state_<k>.npz``: its
positions, the exact weights after it, its report and the run's settings, all
plain arrays and JSON. A run killed or stopped goes on from them after its
last saved round (``load_rounds``, ``check_resume``), with the seeds it would
have used, so its weights are those of a run never stopped.
"""

from __future__ import annotations

import io
import json
import signal
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, fields
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from agents.datafiles import file_sha256, load_json, read_npz, write_bytes_atomic
from agents.learn.fit import PHASE_BLEND, fit
from agents.learn.pattern_selfplay import Positions, SelfPlayConfig, generate
from agents.limits import MAX_DATA_FILE
from agents.search.patterns import N_PHASES, N_WEIGHTS, SCORE_LIMIT, read_weights, save_weights

CHUNK_GAMES = 50
"""Games a task plays: small enough to spread over workers, large enough to pay for the call."""


@dataclass(frozen=True)
class TrainConfig:
    """Everything that decides the trained weights (workers and backend do not)."""

    games: int
    seed: int = 0
    rounds: int = 4
    ridge: float = 5.0
    iterations: int = 25
    blend: int = PHASE_BLEND
    selfplay: SelfPlayConfig = field(default_factory=SelfPlayConfig)

    def round_games(self) -> list[int]:
        """Games of each round: the total split as evenly as possible."""
        base, extra = divmod(self.games, self.rounds)
        return [base + (1 if r < extra else 0) for r in range(self.rounds)]


@dataclass(frozen=True)
class RoundReport:
    """What one round did: games played, positions in the data, fit, time so far."""

    round: int
    games: int
    positions: int
    mse_before: float
    mse_after: float
    seconds: float


def settings(config: TrainConfig) -> dict[str, Any]:
    """Every setting of ``config`` by its name, the self-play ones beside the others (as the options name them)."""
    flat = asdict(config)
    return {k: v for k, v in flat.items() if k != "selfplay"} | flat["selfplay"]


def chunk_seed(seed: int, round_index: int, chunk: int) -> int:
    """The seed of one chunk of games: independent streams for every (seed, round, chunk)."""
    return int(np.random.SeedSequence((seed, round_index, chunk)).generate_state(1, np.uint64)[0])


def _chunks(n_games: int) -> list[int]:
    full, rest = divmod(n_games, CHUNK_GAMES)
    return [CHUNK_GAMES] * full + ([rest] if rest else [])


_WORKER_WEIGHTS: np.ndarray | None = None


def _set_worker_weights(weights: np.ndarray | None) -> None:
    global _WORKER_WEIGHTS  # a process pool's initializer: one copy of the weights a worker
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's: it ends the pool, no worker tracebacks
    _WORKER_WEIGHTS = weights


def _worker_generate(n_games: int, seed: int, config: SelfPlayConfig) -> Positions:
    return generate(n_games, _WORKER_WEIGHTS, seed, config)


def play_round(
    n_games: int,
    weights: np.ndarray | None,
    seed: int,
    round_index: int,
    config: SelfPlayConfig,
    *,
    workers: int = 1,
    backend: str = "local",
    advance: Callable[[int], None] | None = None,
) -> Positions:
    """The labelled positions of one round's games (in chunk order)."""
    sizes = _chunks(n_games)
    seeds = [chunk_seed(seed, round_index, c) for c in range(len(sizes))]
    tick = advance or (lambda _n: None)
    if backend == "ray":
        return _play_ray(sizes, seeds, weights, config, workers, tick)
    if backend != "local":
        raise ValueError(f"backend must be 'local' or 'ray', got {backend!r}")
    parts: list[Positions] = []
    if workers <= 1:
        for size, s in zip(sizes, seeds, strict=True):
            parts.append(generate(size, weights, s, config))
            tick(size)
        return Positions.concatenate(parts)
    # A Pool, not a ProcessPoolExecutor: leaving it (a Ctrl-C, an error) terminates the workers
    # at once; the executor would first play every chunk still queued.
    with get_context("spawn").Pool(workers, _set_worker_weights, (weights,)) as pool:
        results = [pool.apply_async(_worker_generate, (size, s, config)) for size, s in zip(sizes, seeds, strict=True)]
        for size, result in zip(sizes, results, strict=True):
            parts.append(result.get())
            tick(size)
    return Positions.concatenate(parts)


def _play_ray(
    sizes: list[int],
    seeds: list[int],
    weights: np.ndarray | None,
    config: SelfPlayConfig,
    workers: int,
    tick: Callable[[int], None],
) -> Positions:
    try:
        import ray
    except ImportError as e:
        raise ImportError("the ray backend needs Ray: pip install 'reversi-env[ray]'") from e
    started = not ray.is_initialized()
    if started:
        ray.init(num_cpus=max(workers, 1), include_dashboard=False, log_to_driver=False)
    try:
        task = ray.remote(generate)
        weights_ref = ray.put(weights)
        refs = [task.remote(size, weights_ref, s, config) for size, s in zip(sizes, seeds, strict=True)]
        parts = []
        for size, ref in zip(sizes, refs, strict=True):
            parts.append(ray.get(ref))
            tick(size)
        return Positions.concatenate(parts)
    finally:
        if started:
            ray.shutdown()


def save_data(path: Path, rounds: list[Positions], record: dict[str, Any] | None = None) -> None:
    """Write every round's labelled positions to an ``.npz`` file, atomically (``load_data`` reads it back),
    with ``record``, what made them (JSON: the run's command and start; ``data_record`` reads it back):
    the self-play of a run is most of its cost, and a fit variant (``refit``) then needs no games."""
    data = Positions.concatenate(rounds)
    sizes = np.array([len(r) for r in rounds], np.int64)
    archive = io.BytesIO()
    meta = np.array(json.dumps(record or {}))
    np.savez(archive, p=data.p, o=data.o, label=data.label.astype(np.float32), round_sizes=sizes, metadata=meta)
    write_bytes_atomic(path, archive.getvalue())


def load_data(path: Path) -> list[Positions]:
    """The rounds of positions ``save_data`` wrote, in order (data only: no pickles).
    A missing file raises ``FileNotFoundError``; anything else that is not such a
    file (impossible boards, labels no game ends with) raises one ``ValueError`` naming it."""
    arrays = read_npz(path, ("p", "o", "label", "round_sizes"), "a positions file")
    sizes = arrays["round_sizes"]
    if sizes.dtype != np.int64 or sizes.ndim != 1:
        raise ValueError(f"{str(path)!r} is not a positions file: round sizes of type {sizes.dtype}")
    data = _checked_positions(path, arrays, "a positions file")
    if len(data) != int(sizes.sum()) or np.any(sizes < 0):
        raise ValueError(f"{str(path)!r}: round sizes {sizes.tolist()} do not add up to {len(data)} positions")
    p, o, label = data.p, data.o, data.label
    ends = np.cumsum(sizes)
    return [Positions(p[e - n : e], o[e - n : e], label[e - n : e]) for n, e in zip(sizes, ends, strict=True)]


def data_record(path: Path) -> dict[str, Any]:
    """What a positions file records of the run that made it (``save_data``'s ``record``).

    Args:
        path: a positions file.

    Returns:
        The record (a JSON object); empty for a file that has none.

    Raises:
        FileNotFoundError: there is no file.
        ValueError: the file or its record is not what ``save_data`` writes, in one line naming it.
    """
    what = "a positions file"
    arrays = read_npz(path, ("metadata",), what, {"metadata": ((), "U")}, optional=("metadata",))
    if "metadata" not in arrays:
        return {}
    try:
        record = load_json(str(arrays["metadata"]))
    except ValueError as e:
        raise ValueError(f"{str(path)!r} is not {what}: its metadata is not JSON ({e})") from None
    if not isinstance(record, dict):
        raise ValueError(f"{str(path)!r} is not {what}: its metadata is not a JSON object")
    return record


def _checked_positions(path: Path, arrays: dict[str, np.ndarray], what: str) -> Positions:
    """The positions in a file's arrays ``p``, ``o``, ``label``; one ValueError naming
    the file if they are not such (types, lengths, impossible boards, labels no game ends with)."""
    p, o, label = arrays["p"], arrays["o"], arrays["label"]
    kinds = (p.dtype, o.dtype, label.dtype)
    if kinds != (np.uint64, np.uint64, np.float32) or any(a.ndim != 1 for a in (p, o, label)):
        raise ValueError(f"{str(path)!r} is not {what}: arrays of types {kinds}")
    if not len(p) == len(o) == len(label):
        raise ValueError(f"{str(path)!r} is not {what}: {len(p)}, {len(o)} and {len(label)} boards and labels")
    if not np.all(np.abs(label) <= SCORE_LIMIT):  # NaN fails it too
        raise ValueError(f"{str(path)!r} holds labels that are not disc margins from -64 to 64")
    if np.any(p & o):
        raise ValueError(f"{str(path)!r} holds impossible boards (a square with both colours' discs)")
    return Positions(p, o, label)


@dataclass(frozen=True)
class SavedRounds:
    """The rounds a checkpoints directory holds: what a resume goes on from."""

    config: TrainConfig
    """The settings of the last round saved."""
    init: dict[str, Any] | None
    """The initial weights' path, digest and command (None: the hand-written evaluation started)."""
    reports: list[RoundReport]
    data: list[Positions]
    weights: np.ndarray
    """The weights after the last round, exactly (float32, not the checkpoint's float16)."""


def state_file(checkpoints: Path, round_index: int) -> Path:
    """Where a round's resume state is saved."""
    return checkpoints / f"state_{round_index}.npz"


def save_state(
    path: Path, positions: Positions, weights: np.ndarray, report: RoundReport, config: TrainConfig, init: Any
) -> None:
    """Write what a resume needs of one round to ``path``, atomically: its positions, the
    weights after it (float32, exact), its report, the run's settings and initial weights."""
    meta = json.dumps({"config": asdict(config), "init": init, "report": asdict(report)})
    archive = io.BytesIO()
    np.savez(archive, p=positions.p, o=positions.o, label=positions.label, weights=weights, metadata=np.array(meta))
    write_bytes_atomic(path, archive.getvalue())


def load_rounds(checkpoints: Path) -> SavedRounds | None:
    """The rounds saved in ``checkpoints`` (``state_0.npz``, ``state_1.npz``... up to the
    first missing), None if it holds none; one ValueError naming a file that is not a round's state."""
    reports: list[RoundReport] = []
    data: list[Positions] = []
    meta: dict[str, Any] = {}
    weights = np.zeros(0, np.float32)
    while (path := state_file(checkpoints, len(reports))).exists():
        what = "a train-eval round's state"
        arrays = read_npz(path, ("p", "o", "label", "weights", "metadata"), what)
        data.append(_checked_positions(path, arrays, what))
        weights = arrays["weights"]
        if weights.dtype != np.float32 or weights.shape != (N_PHASES, N_WEIGHTS) or not np.all(np.isfinite(weights)):
            raise ValueError(f"{str(path)!r} is not {what}: weights of type {weights.dtype}, shape {weights.shape}")
        try:
            meta = load_json(str(arrays["metadata"]))
            if not isinstance(meta, dict):
                raise ValueError("no settings and report")
            config = _config_from(meta.get("config"))
            report = RoundReport(**_fields_of(RoundReport, meta.get("report"), "report fields"))
            if report.round != len(reports):
                raise ValueError(f"round {report.round} in the file of round {len(reports)}")
            _check_ranges(config, report, sum(map(len, data)))
        except ValueError as e:
            raise ValueError(f"{str(path)!r} is not {what}: {e}") from None
        reports.append(report)
    if not reports:
        return None
    return SavedRounds(config, meta.get("init"), reports, data, weights)


_KINDS = {"int": int, "float": float, "bool": bool}
"""The types of the settings and report fields a state file holds, by their annotations."""


def _fields_of(kind: type, given: Any, what: str) -> dict[str, Any]:
    """``given`` (JSON) as the fields of the dataclass ``kind`` (but a nested ``selfplay``); ValueError
    naming ``what`` unless it has every field with its type (a whole number does for a float)."""
    names = [f.name for f in fields(kind) if f.name != "selfplay"]
    if not isinstance(given, dict) or given.keys() - {"selfplay"} != set(names):
        raise ValueError(f"its {what} are not a run's")
    for f in fields(kind):
        value, wanted = given.get(f.name), _KINDS.get(str(f.type))
        if wanted is not None and type(value) is not wanted and not (wanted is float and type(value) is int):
            raise ValueError(f"its {what} have {f.name}={value!r}")
    return {k: v for k, v in given.items() if k != "selfplay"}


def _check_ranges(config: TrainConfig, report: RoundReport, positions: int) -> None:
    """ValueError naming the first setting or report field out of the range a run gives it
    (the command's options' ranges) and that range, or a report that does not count the
    ``positions`` saved: a resume must not train on them. ``SelfPlayConfig`` checks its own."""
    s, r = settings(config), report
    checks = [
        (
            f"games={s['games']} for rounds={s['rounds']} (1 round or more, a game a round)",
            s["games"] >= s["rounds"] >= 1,
        ),
        (f"seed={s['seed']} (0 to 2**63 - 1)", 0 <= s["seed"] < 2**63),
        (f"ridge={s['ridge']} (above 0)", s["ridge"] > 0),
        (f"iterations={s['iterations']} (1 or more)", s["iterations"] >= 1),
        (f"blend={s['blend']} (0 to 10)", 0 <= s["blend"] <= 10),
        (f"a round of {r.games} games", r.games >= 1),
        (f"a report of {r.positions} positions where the files hold {positions}", r.positions == positions),
        (f"an mse of {r.mse_before} before the fit and {r.mse_after} after", min(r.mse_before, r.mse_after) >= 0),
        (f"{r.seconds} seconds of training", r.seconds >= 0),
    ]
    bad = [shown for shown, ok in checks if not ok]
    if bad:
        raise ValueError(f"it holds {bad[0]}")


_SELFPLAY_ADDED = {"both_parities": False}
"""Self-play settings newer than some state files, with the value a file without them ran with."""


def _config_from(saved: Any) -> TrainConfig:
    """The ``TrainConfig`` a state file's JSON holds; ValueError unless every setting is there with its type
    (a setting of ``_SELFPLAY_ADDED`` may be missing: the run had its value)."""
    top = _fields_of(TrainConfig, saved, "settings")
    selfplay = saved.get("selfplay")
    if isinstance(selfplay, dict):
        selfplay = {**_SELFPLAY_ADDED, **selfplay}
    return TrainConfig(**top, selfplay=SelfPlayConfig(**_fields_of(SelfPlayConfig, selfplay, "settings")))


def check_resume(saved: SavedRounds, config: TrainConfig, where: Path) -> None:
    """ValueError, naming the saved and the asked values, if ``config`` is not the run saved in
    ``where``: every setting must be the saved one, except that ``games`` and ``rounds`` may
    grow as long as the rounds done keep their games (a finished run trained further)."""
    done = [r.games for r in saved.reports]
    flat_saved, flat_asked = settings(saved.config), settings(config)
    differ = [k for k in flat_asked if k not in ("games", "rounds") and flat_saved[k] != flat_asked[k]]
    if config.round_games()[: len(done)] != done:
        differ = ["games", "rounds", *differ]
    refuse_changes(where, flat_saved, flat_asked, differ, "--checkpoints")


def refuse_changes(where: object, saved: dict[str, Any], asked: dict[str, Any], differ: list[str], option: str) -> None:
    """ValueError unless ``differ`` is empty: a resumed run in ``where`` refused because the
    command asks for other ``differ`` settings than it was made with (both named), and how
    to go on (leave them out, or give a new ``option`` for another run)."""
    if differ:
        raise ValueError(
            f"{where}: the run there was made with {', '.join(f'{k}={saved[k]}' for k in differ)}, "
            f"the command asks for {', '.join(f'{k}={asked[k]}' for k in differ)}; "
            f"leave these options out to continue it, or give a new {option} to start another run"
        )


def train(
    config: TrainConfig,
    *,
    workers: int = 1,
    backend: str = "local",
    progress: bool = True,
    on_round: Callable[[RoundReport, np.ndarray, Positions], None] | None = None,
    data_file: Path | None = None,
    data_made_by: dict[str, Any] | None = None,
    initial: np.ndarray | None = None,
    resume: SavedRounds | None = None,
) -> tuple[np.ndarray, list[RoundReport]]:
    """Train pattern weights by ``config``; ``on_round(report, weights, positions)`` after
    each round (``positions``: the round's own); with ``data_file`` the positions of all
    rounds are saved there at the end (``save_data``, with ``data_made_by`` as the record of
    what made them); ``initial`` weights play (and label)
    the first round and start its fit; ``resume``: go on after its rounds (the first ones
    of this ``config``: ``check_resume``). Returns the final weights and the round reports."""
    if config.games < config.rounds or config.rounds < 1:
        raise ValueError(f"need at least one game a round, got {config.games} games in {config.rounds} rounds")
    weights = initial if resume is None else resume.weights
    data: list[Positions] = [] if resume is None else list(resume.data)
    reports: list[RoundReport] = [] if resume is None else list(resume.reports)
    start = time.perf_counter() - (reports[-1].seconds if reports else 0.0)
    played = sum(r.games for r in reports)
    bar = tqdm(total=config.games, initial=played, unit="game", desc="self-play", disable=not progress)
    for r, n_games in enumerate(config.round_games()):
        if r < len(reports):
            continue
        bar.set_description(f"round {r + 1}/{config.rounds} self-play")
        data.append(
            play_round(
                n_games,
                weights,
                config.seed,
                r,
                config.selfplay,
                workers=workers,
                backend=backend,
                advance=bar.update,
            )
        )
        positions = Positions.concatenate(data)
        if len(positions) == 0:
            raise ValueError(f"round {r + 1}'s games kept no positions to fit (too few games or --record too low)")
        bar.set_description(f"round {r + 1}/{config.rounds} fitting {len(positions)} positions")
        result = fit(positions, weights, ridge=config.ridge, iterations=config.iterations, blend=config.blend)
        weights = result.weights
        report = RoundReport(
            r, n_games, len(positions), result.mse_before, result.mse_after, time.perf_counter() - start
        )
        reports.append(report)
        bar.set_postfix(mse=f"{result.mse_after:.1f}")
        if on_round is not None:
            on_round(report, weights, data[-1])
    bar.close()
    assert weights is not None
    if data_file is not None:
        save_data(data_file, data, data_made_by)
    return weights, reports


def metadata(
    config: TrainConfig, reports: list[RoundReport], command: str, init: dict[str, Any] | None = None
) -> dict[str, Any]:
    """What the weights file records about its training (``init``: what the initial weights were)."""
    return {
        "command": command,
        "init": init,
        "config": asdict(config),
        "games": config.games,
        "positions": reports[-1].positions,
        "seconds": round(reports[-1].seconds, 1),
        "rounds": [asdict(r) for r in reports],
    }


def read_start(path: Path) -> tuple[np.ndarray, dict[str, Any]]:
    """The weights a run or a fit starts from, and what its file records of them.

    Args:
        path: a pattern-weights file.

    Returns:
        The weights, and the record of the start: the file's path, SHA-256 and command, and
        the start it had in turn (``init``), so a chain of runs reads back to its first
        ``train-eval``.

    Raises:
        FileNotFoundError, ValueError: as ``read_weights``.
    """
    start = read_weights(path)
    digest = file_sha256(path, MAX_DATA_FILE, "a pattern-weights file")
    record = {
        "path": str(path),
        "sha256": digest,
        "command": start.metadata.get("command"),
        "init": start.metadata.get("init"),
    }
    return start.weights, record


def train_to_file(
    config: TrainConfig,
    out: Path,
    command: str,
    *,
    workers: int = 1,
    backend: str = "local",
    checkpoints: Path | None = None,
    progress: bool = True,
    data_file: Path | None = None,
    init: Path | None = None,
    on_round: Callable[[RoundReport], None] | None = None,
    resume: SavedRounds | None = None,
    log: Callable[[str], None] = print,
) -> list[RoundReport]:
    """Train and save the weights to ``out`` (and each round's to ``checkpoints/round_<k>.npz``
    with its resume state, the positions to ``data_file``), from the weights file ``init``
    if given (its path, digest, training command and own start go into the new file's
    metadata); ``on_round(report)`` once each round is saved. ``resume``: the rounds
    ``load_rounds`` read from ``checkpoints``, to go on after (ValueError if ``config``
    or ``init`` is not their run's; ``log`` says where it goes on)."""
    reports: list[RoundReport] = [] if resume is None else list(resume.reports)
    initial, lineage, digest = None, None, ""
    if init is not None:
        initial, lineage = read_start(init)
        digest = lineage["sha256"]
    if resume is not None:
        check_resume(resume, config, checkpoints or Path("."))
        saved_digest = resume.init.get("sha256") if isinstance(resume.init, dict) else None
        if init is not None and digest != saved_digest:
            was = f"init={resume.init['path']}" if isinstance(resume.init, dict) else "no init"
            raise ValueError(
                f"{checkpoints}: the run there was made with {was}, the command asks for init={init} "
                f"(SHA-256 {digest[:12]}); leave --init out to continue it, "
                "or give a new --checkpoints to start another run"
            )
        lineage = resume.init
        if len(resume.reports) < config.rounds:
            log(f"resuming {checkpoints} after round {len(resume.reports)} ({resume.reports[-1].seconds:.0f} s so far)")

    def save_round(report: RoundReport, weights: np.ndarray, positions: Positions) -> None:
        reports.append(report)
        if checkpoints is not None:
            checkpoints.mkdir(parents=True, exist_ok=True)
            round_file = checkpoints / f"round_{report.round}.npz"
            save_weights(round_file, weights, metadata(config, reports, command, lineage))
            # The state last: a kill between the two leaves a round file without its state, and a
            # resume plays that round again (to the same weights), so no round lacks its file.
            save_state(state_file(checkpoints, report.round), positions, weights, report, config, lineage)
        if on_round is not None:
            on_round(report)

    weights, _ = train(
        config,
        workers=workers,
        backend=backend,
        progress=progress,
        on_round=save_round,
        data_file=data_file,
        data_made_by={"command": command, "init": lineage},
        initial=initial,
        resume=resume,
    )
    save_weights(out, weights, metadata(config, reports, command, lineage))
    return reports
