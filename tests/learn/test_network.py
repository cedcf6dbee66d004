"""The policy-value network: encoding, the 8 symmetries, masking, a training step
that learns, and weights files that round-trip and are only data."""

from __future__ import annotations

import contextlib
import itertools
import os
import pickle
import resource
import signal
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from conftest import random_game

from agents.interrupts import ctrl_c
from agents.learn.network import (
    PASS,
    SYMMETRIES,
    NetConfig,
    NetworkEvaluator,
    PolicyValueNet,
    augment,
    encode,
    load_network,
    save_network,
)
from agents.learn.network_training import ReplayBuffer, Samples, train_steps
from agents.limits import MAX_BLOCKS, MAX_CHANNELS
from reversi_env import GameState

# One torch thread: on a busy shared machine two threads fighting over a core are many times slower.
torch.set_num_threads(1)


def moved(state: GameState, k: int) -> GameState:
    """The position moved by symmetry k, computed square by square from the rules' side."""

    def image(bits: int) -> int:
        return sum(1 << int(SYMMETRIES[k][sq]) for sq in range(64) if bits >> sq & 1)

    return GameState(image(state.black), image(state.white), state.player)


def positions(n: int) -> list[GameState]:
    states = [s for seed in range(20) for s in random_game(seed)[:-1]]
    return states[:: max(1, len(states) // n)][:n]


def boards(states: list[GameState]) -> tuple[np.ndarray, np.ndarray]:
    pairs = [s.kernel_boards() for s in states]
    return np.array([p for p, _ in pairs], dtype=np.uint64), np.array([o for _, o in pairs], dtype=np.uint64)


def test_the_eight_symmetries_are_distinct_permutations_fixing_pass() -> None:
    assert SYMMETRIES.shape == (8, 65)
    assert len({tuple(m) for m in SYMMETRIES}) == 8
    for m in SYMMETRIES:
        assert sorted(m) == list(range(65))
        assert m[PASS] == PASS
    # Corners go to corners, the centre to the centre.
    assert {int(m[0]) for m in SYMMETRIES} == {0, 7, 56, 63}
    assert {int(m[27]) for m in SYMMETRIES} == {27, 28, 35, 36}


@pytest.mark.parametrize("k", range(8))
def test_augment_moves_planes_masks_and_moves_together(k: int) -> None:
    states = positions(40)
    # A forced pass: the PASS target must stay on PASS.
    states.append(next(s for seed in range(300) for s in random_game(seed) if s.legal_actions() == [PASS]))
    planes, masks = encode(*boards(states))
    policy = np.zeros((len(states), 65), dtype=np.float32)
    for i, s in enumerate(states):
        policy[i, s.legal_actions()[0]] = 1.0
    ks = np.full(len(states), k)
    out_planes, out_policy, out_masks = augment(planes, policy, masks, ks)
    images = [moved(s, k) for s in states]
    want_planes, want_masks = encode(*boards(images))
    np.testing.assert_array_equal(out_planes, want_planes)
    np.testing.assert_array_equal(out_masks, want_masks)
    for i, (s, im) in enumerate(zip(states, images, strict=True)):
        target = int(np.argmax(out_policy[i]))
        assert target == SYMMETRIES[k][s.legal_actions()[0]]
        assert im.is_legal(target)
        if s.legal_actions() == [PASS]:
            assert target == PASS


def test_policy_masks_illegal_moves_and_value_is_bounded() -> None:
    torch.manual_seed(0)
    evaluator = NetworkEvaluator(PolicyValueNet(NetConfig(8, 1)))
    states = positions(30)
    priors, values = evaluator.evaluate(*boards(states))
    assert priors.shape == (30, 65) and values.shape == (30,)
    for s, prior in zip(states, priors, strict=True):
        assert prior.sum() == pytest.approx(1.0, abs=1e-5)
        illegal = np.setdiff1d(np.arange(65), s.legal_actions())
        assert prior[illegal].max() < 1e-12
    assert np.all(np.abs(values) <= 1)


def fixed_batch(n: int = 64) -> Samples:
    states = positions(n)
    mover, opponent = boards(states)
    rng = np.random.default_rng(0)
    policy = np.zeros((n, 65), dtype=np.float32)
    for i, s in enumerate(states):
        policy[i, rng.choice(s.legal_actions())] = 1.0
    return Samples(mover, opponent, policy, rng.choice([-1.0, 1.0], size=n).astype(np.float32))


def test_training_steps_lower_the_loss_on_a_fixed_batch() -> None:
    torch.manual_seed(0)
    net = PolicyValueNet(NetConfig(16, 1))
    optimizer = torch.optim.Adam(net.parameters(), lr=3e-3)
    data = fixed_batch()
    rng = np.random.default_rng(0)
    first = train_steps(net, optimizer, data, 1, 64, rng)
    train_steps(net, optimizer, data, 60, 64, rng)
    last = train_steps(net, optimizer, data, 1, 64, rng)
    assert sum(last) < 0.7 * sum(first), (first, last)


def test_annealed_steps_lower_the_rate_along_a_cosine_then_restore_it() -> None:
    torch.manual_seed(0)
    net = PolicyValueNet(NetConfig(16, 1))
    optimizer = torch.optim.Adam(net.parameters(), lr=3e-3)
    data = fixed_batch()
    rates: list[float] = []
    rng = np.random.default_rng(0)
    first = train_steps(net, optimizer, data, 1, 64, rng)
    train_steps(net, optimizer, data, 60, 64, rng, progress=lambda _: rates.append(optimizer.param_groups[0]["lr"]))
    assert rates == [3e-3] * 60  # no annealing unless asked
    rates.clear()
    train_steps(
        net, optimizer, data, 40, 64, rng, progress=lambda _: rates.append(optimizer.param_groups[0]["lr"]), anneal=True
    )
    assert rates[0] == pytest.approx(3e-3) and rates[20] == pytest.approx(1.5e-3) and rates[-1] < 1e-5
    assert all(a > b for a, b in itertools.pairwise(rates))
    assert optimizer.param_groups[0]["lr"] == 3e-3
    last = train_steps(net, optimizer, data, 1, 64, rng)
    assert sum(last) < 0.7 * sum(first), (first, last)


def test_weights_round_trip_with_their_info(tmp_path: Path) -> None:
    torch.manual_seed(1)
    net = PolicyValueNet(NetConfig(8, 2))
    path = tmp_path / "net.pt"
    save_network(path, net, {"command": "reversi train-az ...", "samples": 12})
    loaded, info = load_network(path)
    assert loaded.config == NetConfig(8, 2)
    assert info == {"command": "reversi train-az ...", "samples": 12}
    mover, opponent = boards(positions(10))
    a = NetworkEvaluator(net).evaluate(mover, opponent)
    b = NetworkEvaluator(loaded).evaluate(mover, opponent)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])


class Payload:
    """Unpickling this would run code: a weights file must never do that."""

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (print, ("executed",))


def test_a_weights_file_is_data_not_code(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "evil.pt"
    torch.save({"config": {"channels": 8, "blocks": 1}, "state_dict": Payload()}, path)
    with pytest.raises(ValueError, match="not a saved policy-value network"):
        load_network(path)
    assert "executed" not in capsys.readouterr().out
    (tmp_path / "junk.pt").write_bytes(pickle.dumps([1, 2, 3]) + b"junk")
    with pytest.raises(ValueError):
        load_network(tmp_path / "junk.pt")
    with pytest.raises(ValueError, match="no such"):
        load_network(tmp_path / "missing.pt")


def test_a_saved_config_past_the_bounds_is_refused_before_the_network_is_built(tmp_path: Path) -> None:
    """A 1 KB file that asked for 3000 channels built a 2.9 GB network before it was refused."""
    path = tmp_path / "wide.pt"
    torch.save({"config": {"channels": 3000, "blocks": 4}, "state_dict": {}, "info": {}}, path)
    assert path.stat().st_size < 2000
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with pytest.raises(ValueError, match=f"channels must be a whole number from 1 to {MAX_CHANNELS}, got 3000"):
        load_network(path)
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - peak < 100_000  # KiB: nothing near gigabytes
    torch.save({"config": {"channels": 8, "blocks": MAX_BLOCKS + 1}, "state_dict": {}}, path)
    with pytest.raises(ValueError, match=f"blocks must be a whole number from 0 to {MAX_BLOCKS}"):
        load_network(path)
    with pytest.raises(ValueError, match="channels"):
        NetConfig(channels=MAX_CHANNELS + 1)


def test_a_bare_pickle_is_one_error_and_no_warning(tmp_path: Path) -> None:
    """torch warns in two lines about the pickle protocol of a file it did not write: not shown."""
    path = tmp_path / "bare.pt"
    path.write_bytes(pickle.dumps({"config": {"channels": 8}}, protocol=4))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match="not a saved policy-value network"):
            load_network(path)


def test_replay_buffer_keeps_the_newest_and_round_trips(tmp_path: Path) -> None:
    data = fixed_batch(30)
    buffer = ReplayBuffer(20)
    buffer.add(data.take(slice(0, 15)))
    buffer.add(data.take(slice(15, 30)))
    assert len(buffer) == 20
    np.testing.assert_array_equal(buffer.data.mover, data.mover[10:])
    buffer.save(tmp_path / "replay.npz")
    again = ReplayBuffer(20)
    again.load(tmp_path / "replay.npz")
    for name in ("mover", "opponent", "policy", "value"):
        np.testing.assert_array_equal(getattr(again.data, name), getattr(buffer.data, name))


@pytest.mark.parametrize("n", [1, 5, 64])
def test_the_frozen_evaluator_computes_what_the_module_computes(n: int) -> None:
    torch.manual_seed(2)
    net = PolicyValueNet(NetConfig(16, 2))
    # Non-trivial batch-norm statistics, as a trained network has.
    for module in net.modules():
        if isinstance(module, torch.nn.BatchNorm2d):
            module.running_mean.uniform_(-0.5, 0.5)
            module.running_var.uniform_(0.5, 2.0)
    mover, opponent = boards(positions(n))
    frozen = NetworkEvaluator(net).evaluate(mover, opponent)
    plain = NetworkEvaluator(net, frozen=False).evaluate(mover, opponent)
    np.testing.assert_allclose(frozen[0], plain[0], atol=1e-5)
    np.testing.assert_allclose(frozen[1], plain[1], atol=1e-5)


@pytest.mark.parametrize("inside_ctrl_c", [False, True], ids=["alone", "inside-ctrl_c"])
def test_a_ctrl_c_while_the_network_is_traced_is_a_keyboard_interrupt_after_it(
    monkeypatch: pytest.MonkeyPatch, inside_ctrl_c: bool
) -> None:
    """TorchScript turns a KeyboardInterrupt inside its tracing into a RuntimeError that no
    Ctrl-C handler catches: the press waits for the trace and comes out as itself, also inside
    the ``ctrl_c`` block every ``reversi`` command runs in."""
    real_trace = torch.jit.trace
    traced: list[bool] = []

    def pressed_while_tracing(*args: Any, **kwargs: Any) -> Any:
        os.kill(os.getpid(), signal.SIGINT)  # the press lands in the trace
        result = real_trace(*args, **kwargs)
        traced.append(True)
        return result

    monkeypatch.setattr(torch.jit, "trace", pressed_while_tracing)
    with pytest.raises(KeyboardInterrupt), ctrl_c() if inside_ctrl_c else contextlib.nullcontext():
        NetworkEvaluator(PolicyValueNet(NetConfig(8, 1)))
    assert traced == [True]  # the trace ran to its end first
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
