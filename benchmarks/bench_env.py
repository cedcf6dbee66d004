"""Environment speed, side by side with its anchors, in one run.

    python benchmarks/bench_env.py [--steps 20000] [--vector-steps 300] [--rounds 3] [--pgx-steps 50] [--record]

Prints: AEC ``env()`` steps/s with mask-sampled actions next to PettingZoo's
``connect_four_v3`` in the same loop, and the ratio (target >= 5x), plus our env
under PettingZoo's stock wrapper classes; raw_env step + observe in
microseconds; the single-agent env's steps/s; pgx's othello on this CPU
(jax and pgx from PyPI, in the ``bench`` extra) next to ours: one game (our
raw_env step + observe against pgx's jitted step) and batches of N = 1 to 4096
(the vector env, target >= 1,000,000 steps/s at N = 1024, against ``jit(vmap(step))``),
as ratios; then the vector env at N = 1024 with each observation
option (``ObservationSpec``) against the default observation, as the cost of
that option. Needs ``pip install '.[bench]'``.

Every figure is the best of ``--rounds`` interleaved rounds. Rates are given
per second of this process's CPU time (``time.process_time``), so other load on
a shared machine does not count; the vector env and pgx also show wall-clock
rates (XLA's worker threads can count CPU time while they wait). A vector env
step is the agent's move and the random opponent's reply (two plies); a pgx
step is one ply, each with a random legal action and a new game where one ended;
the ratios against pgx are of plies (two a vector env step, which overcounts
ours by the steps that end a game on the agent's move, about one in sixty).
``--record`` writes the figures into docs/benchmarks.md (``record.py``).
"""

from __future__ import annotations

import argparse
import functools
import random
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from pettingzoo.utils import wrappers
from record import Figure, add_record_options, check_record_file, rate_figure, record_if_asked

import reversi_env
from agents.ui.options import bounded_int, positive_int
from reversi_env import ReversiGymEnv, ReversiVectorEnv, raw_env
from reversi_env.observation import ObservationSpec

OPTIONS = {
    'dtype="float32"': ObservationSpec(dtype="float32"),
    'layout="CHW"': ObservationSpec(layout="CHW"),
    "legal_moves=True": ObservationSpec(legal_moves=True),
    "side_to_move=True": ObservationSpec(side_to_move=True),
    "history=4": ObservationSpec(history=4),
    "history=8": ObservationSpec(history=8),
    "flat=True": ObservationSpec(flat=True),
    "all (float32, CHW, both planes, 8, flat)": ObservationSpec(
        dtype="float32", layout="CHW", legal_moves=True, side_to_move=True, history=8, flat=True
    ),
}
"""The observation options measured, each against the default observation."""


def stock_wrapped_env() -> Any:
    """Our raw_env under PettingZoo's own wrapper classes (``env()`` uses faster-lookup subclasses of them)."""
    e = wrappers.TerminateIllegalWrapper(raw_env(), illegal_reward=-1)
    return wrappers.OrderEnforcingWrapper(wrappers.AssertOutOfBoundsWrapper(e))


def aec_steps_per_second(make: Callable[[], Any], steps: int, seed: int = 0) -> float:
    """Steps/s (CPU) of a wrapped AEC env: ``env.last()``, a uniformly random legal action, ``env.step()``."""
    env = make()
    rng = random.Random(seed)
    done = 0
    start = time.process_time()
    while done < steps:
        env.reset(seed=seed + done)
        for _agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                action = None
            else:
                legal = np.flatnonzero(obs["action_mask"])
                action = int(legal[int(rng.random() * len(legal))])
            env.step(action)
            done += 1
    return done / (time.process_time() - start)


def raw_step_observe_us(games: int, seed: int = 0) -> float:
    """CPU microseconds per ``raw_env.step`` + ``observe``, replaying recorded random games."""
    rng = random.Random(seed)
    env = raw_env()
    recorded = []
    for _ in range(games):
        env.reset()
        actions = []
        while not any(env.terminations.values()):
            legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
            actions.append(int(legal[int(rng.random() * len(legal))]))
            env.step(actions[-1])
        recorded.append(actions)
    total = sum(len(a) for a in recorded)
    start = time.process_time()
    for actions in recorded:
        env.reset()
        for a in actions:
            env.observe(env.agent_selection)
            env.step(a)
    return (time.process_time() - start) / total * 1e6


def gym_steps_per_second(steps: int, seed: int = 0) -> float:
    """Steps/s (CPU) of ReversiGymEnv (agent move + random opponent reply) with mask-sampled actions."""
    env = ReversiGymEnv()
    rng = random.Random(seed)
    env.reset(seed=seed)
    start = time.process_time()
    for _ in range(steps):
        legal = np.flatnonzero(env.action_masks())
        _, _, terminated, _, _ = env.step(int(legal[int(rng.random() * len(legal))]))
        if terminated:
            env.reset()
    return steps / (time.process_time() - start)


def random_legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row of a bool mask (vectorised)."""
    return np.argmax(rng.random(masks.shape) * masks, axis=1)


def vector_steps_per_second(
    n: int, steps: int, seed: int = 0, observation: ObservationSpec | None = None
) -> tuple[float, float]:
    """Game steps/s of ReversiVectorEnv(n) inside ``step`` (CPU, wall); actions drawn outside the timer."""
    env = ReversiVectorEnv(n, seed=seed, observation=observation)
    env.reset()
    rng = np.random.default_rng(seed)
    env.step(random_legal(env.action_masks(), rng))  # compile / load the kernels
    cpu = wall = 0.0
    for _ in range(steps):
        actions = random_legal(env.action_masks(), rng)
        c, w = time.process_time(), time.perf_counter()
        env.step(actions)
        cpu += time.process_time() - c
        wall += time.perf_counter() - w
    return n * steps / cpu, n * steps / wall


PGX_SIZES = (1, 16, 64, 256, 1024, 4096)
"""The batch sizes of the vector env and of pgx, side by side."""


def pgx_steps_per_second(n: int | None, steps: int, seed: int = 0) -> tuple[float, float] | None:
    """pgx's othello on this CPU: plies/s (CPU, wall) of one jitted call a step, random legal
    actions and a new game where one ended, all inside the call; ``n`` games under ``jax.vmap``,
    or one game without vmap (``n`` None). None when jax and pgx are not installed."""
    try:
        import jax
        import jax.numpy as jnp
        import pgx
    except ImportError:
        return None
    env = pgx.make("othello")

    def one(state: Any, key: Any) -> Any:
        pick, fresh = jax.random.split(key)
        action = jax.random.categorical(pick, jnp.where(state.legal_action_mask, 0.0, -jnp.inf))
        after = env.step(state, action)
        new = env.init(fresh)
        return jax.tree_util.tree_map(lambda a, b: jnp.where(after.terminated, b, a), after, new)

    if n is None:
        init, step = jax.jit(env.init), jax.jit(lambda s, k: (one(s, k), jax.random.split(k)[0]))
        state = init(jax.random.PRNGKey(seed))
    else:

        def batched(s: Any, k: Any) -> Any:
            k, sub = jax.random.split(k)
            return jax.vmap(one)(s, jax.random.split(sub, n)), k

        init, step = jax.jit(jax.vmap(env.init)), jax.jit(batched)
        state = init(jax.random.split(jax.random.PRNGKey(seed), n))
    key = jax.random.PRNGKey(seed + 1)
    state, key = step(state, key)  # compile
    jax.block_until_ready(state)
    cpu, wall = time.process_time(), time.perf_counter()
    for _ in range(steps):
        state, key = step(state, key)
    jax.block_until_ready(state)
    games = 1 if n is None else n
    return games * steps / (time.process_time() - cpu), games * steps / (time.perf_counter() - wall)


def best(rounds: int, measure: Callable[[], Any]) -> Any:
    """The best of ``rounds`` runs (max for rates, taken element-wise on tuples)."""
    runs = [measure() for _ in range(rounds)]
    return tuple(max(col) for col in zip(*runs, strict=True)) if isinstance(runs[0], tuple) else max(runs)


def main() -> None:
    """Run every measurement and print the table."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--steps",
        type=bounded_int(4, 10**9),
        default=20000,
        help="AEC / gym steps per measurement, 4 or more (connect four plays a quarter; default 20000)",
    )
    parser.add_argument(
        "--vector-steps", type=positive_int, default=300, help="vector env step() calls per N (default 300)"
    )
    parser.add_argument(
        "--rounds", type=positive_int, default=3, help="interleaved rounds; the best is shown (default 3)"
    )
    parser.add_argument(
        "--pgx-steps", type=positive_int, default=50, help="jitted pgx steps per batch size (default 50)"
    )
    add_record_options(parser)
    args = parser.parse_args()
    check_record_file(parser, args)

    import pettingzoo

    def connect_four() -> Any:
        return pettingzoo.make("aec", "classic/connect_four-v3")

    aec_steps_per_second(reversi_env.env, 500)  # warm the kernels
    ours = c4 = stock = 0.0
    for _ in range(args.rounds):  # interleaved, so a burst of load hits both
        ours = max(ours, aec_steps_per_second(reversi_env.env, args.steps))
        c4 = max(c4, aec_steps_per_second(connect_four, args.steps // 4))
        stock = max(stock, aec_steps_per_second(stock_wrapped_env, args.steps))
    raw_us = min(raw_step_observe_us(100) for _ in range(args.rounds))
    gym = best(args.rounds, lambda: gym_steps_per_second(args.steps))

    print(f"{'measurement (per CPU second)':46s} {'reversi-env':>12s} {'anchor':>12s} {'ratio':>8s}")
    print(f"{'AEC env() steps/s vs connect_four_v3':46s} {ours:12,.0f} {c4:12,.0f} {ours / c4:7.1f}x  (target >= 5x)")
    print(f"{'  same, our env under the stock wrappers':46s} {stock:12,.0f} {c4:12,.0f} {stock / c4:7.1f}x")
    print(f"{'raw_env step + observe (us)':46s} {raw_us:12.2f}")
    print(f"{'ReversiGymEnv steps/s':46s} {gym:12,.0f}")
    figures = [
        rate_figure("env.aec", "AEC `env()` steps/s, mask-sampled actions", ours, "`connect_four_v3`", c4),
        rate_figure("env.aec-stock-wrappers", "the same, PettingZoo's stock wrappers", stock, "`connect_four_v3`", c4),
        Figure("env.raw-step", "`raw_env` step + observe", f"{raw_us:.2f} us"),
        Figure("env.gym", "`ReversiGymEnv` steps/s (move + opponent reply)", f"{gym:,.0f}"),
    ]
    print(f"{'pgx othello, jitted (steps/s; pgx plies/s)':46s} {'reversi-env':>12s} {'pgx':>12s} {'plies':>8s}")
    single = pgx_steps_per_second(None, args.pgx_steps)
    for label, ours_rate, theirs in (
        ("single game: raw_env step + observe", 1e6 / raw_us, None if single is None else single[0]),
        ("  wall clock (pgx's)", None, None if single is None else single[1]),
    ):
        if ours_rate is not None:
            anchor, ratio = ("pgx n/a", "") if theirs is None else (f"{theirs:,.0f}", f"{ours_rate / theirs:7.1f}x")
            print(f"{label:46s} {ours_rate:12,.0f} {anchor:>12s} {ratio:>8s}")
            figures.append(
                rate_figure("env.single-vs-pgx", "one game, plies/s", ours_rate, "pgx othello (jit)", theirs)
            )
        elif theirs is not None:
            print(f"{label:46s} {'':12s} {theirs:12,.0f}")
    for n in PGX_SIZES:
        measure = functools.partial(vector_steps_per_second, n, args.vector_steps * (10 if n == 1 else 1))
        cpu, wall = best(args.rounds, measure)
        p = pgx_steps_per_second(n, args.pgx_steps)
        anchor, ratio = ("pgx n/a", "") if p is None else (f"{p[0]:,.0f}", f"{2 * cpu / p[0]:7.1f}x")
        target = "  (target >= 1,000,000)" if n == 1024 else ""
        print(f"{f'ReversiVectorEnv steps/s, N = {n}':46s} {cpu:12,.0f} {anchor:>12s} {ratio:>8s}{target}")
        anchor, ratio = ("", "") if p is None else (f"{p[1]:,.0f}", f"{2 * wall / p[1]:7.1f}x")
        print(f"{'  wall clock':46s} {wall:12,.0f} {anchor:>12s} {ratio:>8s}")
        figures.append(
            rate_figure(
                f"env.vector-{n}",
                f"`ReversiVectorEnv` plies/s, N = {n}",
                2 * cpu,
                "pgx othello",
                None if p is None else p[0],
            )
        )
    print(f"{'vector env N = 1024, observation option':46s} {'with it':>12s} {'default':>12s} {'ratio':>8s}")
    for name, spec in OPTIONS.items():
        runs = [
            (
                vector_steps_per_second(1024, args.vector_steps, observation=spec)[0],
                vector_steps_per_second(1024, args.vector_steps)[0],
            )
            for _ in range(args.rounds)
        ]
        with_it, default = (max(col) for col in zip(*runs, strict=True))
        print(f"{'  ' + name:46s} {with_it:12,.0f} {default:12,.0f} {with_it / default:7.2f}x")
    record_if_asked(args, figures)


if __name__ == "__main__":
    main()
