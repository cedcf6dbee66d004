"""Training data and steps shared by the warm start and the AlphaZero loop.

A sample is a position from the mover's side (two uint64 bitboards), a target
policy over the 65 actions and a target value for the mover in [-1, 1].
``ReplayBuffer`` keeps the newest ``capacity`` of them; ``train_steps`` draws
minibatches, moves each sample by a random board symmetry and takes Adam steps
on AlphaZero's loss.
"""

from __future__ import annotations

import io
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from agents.datafiles import read_npz, write_bytes_atomic
from agents.learn.network import NUM_ACTIONS, PolicyValueNet, augment, encode, loss_terms


@dataclass
class Samples:
    """Training samples as parallel arrays: ``mover``/``opponent`` uint64 (n,),
    ``policy`` float32 (n, 65) summing to 1, ``value`` float32 (n,)."""

    mover: np.ndarray
    opponent: np.ndarray
    policy: np.ndarray
    value: np.ndarray

    def __len__(self) -> int:
        return int(self.mover.shape[0])

    @classmethod
    def empty(cls) -> Samples:
        """No samples."""
        return cls(
            np.zeros(0, np.uint64),
            np.zeros(0, np.uint64),
            np.zeros((0, NUM_ACTIONS), np.float32),
            np.zeros(0, np.float32),
        )

    @classmethod
    def concat(cls, parts: list[Samples]) -> Samples:
        """All of ``parts``, in order."""
        parts = [cls.empty(), *parts]
        return cls(
            np.concatenate([s.mover for s in parts]),
            np.concatenate([s.opponent for s in parts]),
            np.concatenate([s.policy for s in parts]),
            np.concatenate([s.value for s in parts]),
        )

    def take(self, index: np.ndarray | slice) -> Samples:
        """The samples at ``index``."""
        return Samples(self.mover[index], self.opponent[index], self.policy[index], self.value[index])


class ReplayBuffer:
    """The newest ``capacity`` samples (older ones fall out first); saved to and
    loaded from an ``.npz`` file so a killed run resumes with its data."""

    def __init__(self, capacity: int) -> None:
        if capacity < 1:
            raise ValueError(f"replay buffer capacity must be >= 1, got {capacity}")
        self.capacity = capacity
        self.data = Samples.empty()

    def __len__(self) -> int:
        return len(self.data)

    def add(self, samples: Samples) -> None:
        """Append ``samples``, dropping the oldest beyond the capacity."""
        data = Samples.concat([self.data, samples])
        self.data = data.take(slice(max(0, len(data) - self.capacity), None))

    def save(self, path: str | Path) -> None:
        """Write the buffer to ``path`` (an .npz file), atomically."""
        d = self.data
        archive = io.BytesIO()
        np.savez_compressed(archive, mover=d.mover, opponent=d.opponent, policy=d.policy, value=d.value)
        write_bytes_atomic(path, archive.getvalue())

    def load(self, path: str | Path) -> None:
        """Replace the contents by the samples saved at ``path``; one ValueError
        naming it if it is not a buffer ``save`` wrote (empty, truncated, other arrays)."""
        f = read_npz(path, ("mover", "opponent", "policy", "value"), "a replay buffer")
        samples = Samples(f["mover"], f["opponent"], f["policy"], f["value"])
        n = len(samples.mover)
        shapes = {"mover": (n,), "opponent": (n,), "policy": (n, NUM_ACTIONS), "value": (n,)}
        kinds = {"mover": np.uint64, "opponent": np.uint64, "policy": np.float32, "value": np.float32}
        for name, shape in shapes.items():
            array = f[name]
            if array.shape != shape or array.dtype != kinds[name]:
                raise ValueError(f"{str(path)!r} is not a replay buffer: its {name!r} is {array.dtype} {array.shape}")
        self.data = samples
        self.add(Samples.empty())


def train_steps(
    net: PolicyValueNet,
    optimizer: torch.optim.Optimizer,
    data: Samples,
    steps: int,
    batch_size: int,
    rng: np.random.Generator,
    device: str = "cpu",
    progress: Callable[[int], object] | None = None,
    anneal: bool = False,
) -> tuple[float, float]:
    """``steps`` Adam steps on random symmetric minibatches of ``data``; returns
    the mean policy and value losses; ``progress(1)`` is called after each step.
    ``anneal``: the learning rate falls from its value to 0 along a half cosine
    over the steps (a long supervised run ends finer), and is restored after."""
    net.train()
    dev = torch.device(device)
    totals = np.zeros(2)
    base_rates = [group["lr"] for group in optimizer.param_groups]
    for step in range(steps):
        if anneal:
            factor = 0.5 * (1.0 + math.cos(math.pi * step / steps))
            for group, rate in zip(optimizer.param_groups, base_rates, strict=True):
                group["lr"] = rate * factor
        batch = data.take(rng.integers(0, len(data), size=min(batch_size, len(data))))
        planes, masks = encode(batch.mover, batch.opponent)
        planes, policy, masks = augment(planes, batch.policy, masks, rng.integers(0, 8, size=len(batch)))
        policy_loss, value_loss = loss_terms(
            net,
            torch.from_numpy(planes).to(dev),
            torch.from_numpy(masks).to(dev),
            torch.from_numpy(policy).to(dev),
            torch.from_numpy(batch.value).to(dev),
        )
        optimizer.zero_grad()
        (policy_loss + value_loss).backward()
        optimizer.step()
        totals += (policy_loss.item(), value_loss.item())
        if progress is not None:
            progress(1)
    for group, rate in zip(optimizer.param_groups, base_rates, strict=True):
        group["lr"] = rate
    net.eval()
    mean = totals / max(steps, 1)
    return float(mean[0]), float(mean[1])
