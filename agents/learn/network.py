"""The policy-value network: a small residual tower over the observation planes.

Input: positions as two bitboards from the mover's side (``mover``,
``opponent``: the kernels' ``(P, O)``), encoded as three 8x8 planes: the
mover's discs, the opponent's (the env's observation planes) and the mover's
legal squares (computed, so the net need not learn move generation).
Output: 65 policy logits (0-63 squares, 64 PASS) with illegal actions masked
to a large negative number, and a value in [-1, 1] for the mover (tanh).

The 8 symmetries of the square (``SYMMETRIES``) map squares to squares and
PASS to PASS; training draws one per sample (``augment``).

Weights are saved as plain tensors and numbers (``save_network``) and read
back with ``torch.load(weights_only=True)``: a file is data, never code.
"""

from __future__ import annotations

import io
import pickle
import warnings
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from numba import njit
from torch import nn
from torch.nn import functional as F  # noqa: N812 - torch's own idiom

from agents.datafiles import read_data, write_bytes_atomic
from agents.interrupts import held
from agents.limits import MAX_BLOCKS, MAX_CHANNELS, MAX_DATA_FILE
from reversi_env.bitboard import U0, U1, legal_moves
from reversi_env.observation import ObservationSpec
from reversi_env.symmetry import SYMMETRIES as SYMMETRIES  # the docstring names it; callers import it here
from reversi_env.symmetry import transform

NUM_ACTIONS = 65
PASS = 64
ILLEGAL_LOGIT = -1e9
"""What masking puts in place of an illegal action's logit (softmax gives it 0)."""
PLANES = ObservationSpec(dtype="float32", layout="CHW", legal_moves=True)
"""The input planes as an observation spec: the mover's discs, the opponent's, the mover's legal squares."""


class NetConfigError(ValueError):
    """A tower shape out of bounds (``NetConfig``)."""


@dataclass(frozen=True)
class NetConfig:
    """The tower's shape: ``blocks`` residual blocks of ``channels`` 3x3 filters.

    Raises:
        NetConfigError: (a ValueError) ``channels`` is not a whole number from 1 to ``MAX_CHANNELS`` or
            ``blocks`` not one from 0 to ``MAX_BLOCKS``: checked before any weight is
            allocated, since a saved file's config is read before its weights.
    """

    channels: int = 32
    blocks: int = 3

    def __post_init__(self) -> None:
        for name, low, high in (("channels", 1, MAX_CHANNELS), ("blocks", 0, MAX_BLOCKS)):
            value = getattr(self, name)
            if type(value) is not int or not low <= value <= high:
                raise NetConfigError(f"{name} must be a whole number from {low} to {high}, got {str(value)[:30]}")


# -- encoding ----------------------------------------------------------------------


@njit(cache=True)
def _encode(mover: np.ndarray, opponent: np.ndarray, planes: np.ndarray, masks: np.ndarray) -> None:
    for i in range(mover.shape[0]):
        p = mover[i]
        o = opponent[i]
        m = legal_moves(p, o)
        for sq in range(64):
            s = np.uint64(sq)
            planes[i, 0, sq] = np.float32((p >> s) & U1)
            planes[i, 1, sq] = np.float32((o >> s) & U1)
            planes[i, 2, sq] = np.float32((m >> s) & U1)
            masks[i, sq] = ((m >> s) & U1) != U0
        masks[i, PASS] = m == U0


def encode(mover: np.ndarray, opponent: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Planes ``(n, 3, 8, 8)`` float32 and legal masks ``(n, 65)`` bool of ``n``
    positions given as uint64 arrays from the mover's side. PASS counts as legal
    whenever no placement is (the search never asks about finished games)."""
    mover = np.ascontiguousarray(mover, dtype=np.uint64)
    opponent = np.ascontiguousarray(opponent, dtype=np.uint64)
    n = mover.shape[0]
    planes = np.empty((n, 3, 64), dtype=np.float32)
    masks = np.empty((n, NUM_ACTIONS), dtype=np.bool_)
    _encode(mover, opponent, planes, masks)
    return planes.reshape(n, 3, 8, 8), masks


# -- symmetries --------------------------------------------------------------------


def augment(
    planes: np.ndarray, policy: np.ndarray, masks: np.ndarray, k: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sample ``i`` of a batch moved by symmetry ``k[i]``: planes ``(n, c, 8, 8)``,
    policy targets and masks ``(n, 65)``. New arrays; the inputs are untouched."""
    out_planes, out_masks, out_policy = transform(k, planes, masks, policy, spec=PLANES)
    assert out_policy is not None
    return out_planes, out_policy, out_masks


# -- the network -------------------------------------------------------------------


class _Block(nn.Module):
    def __init__(self, channels: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = F.relu(self.bn1(self.conv1(x)))
        return F.relu(x + self.bn2(self.conv2(y)))


class PolicyValueNet(nn.Module):
    """AlphaZero's shape, small: a conv stem, ``blocks`` residual blocks, a policy
    head (1x1 conv, then 65 logits) and a value head (1x1 conv, hidden layer, tanh)."""

    def __init__(self, config: NetConfig | None = None) -> None:
        super().__init__()
        self.config = config or NetConfig()
        ch = self.config.channels
        self.stem = nn.Sequential(nn.Conv2d(3, ch, 3, padding=1, bias=False), nn.BatchNorm2d(ch), nn.ReLU())
        self.tower = nn.Sequential(*[_Block(ch) for _ in range(self.config.blocks)])
        self.policy_conv = nn.Sequential(nn.Conv2d(ch, 2, 1, bias=False), nn.BatchNorm2d(2), nn.ReLU())
        self.policy_fc = nn.Linear(2 * 64, NUM_ACTIONS)
        self.value_conv = nn.Sequential(nn.Conv2d(ch, 1, 1, bias=False), nn.BatchNorm2d(1), nn.ReLU())
        self.value_fc = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 1))

    def forward(self, planes: torch.Tensor, masks: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Masked policy logits ``(n, 65)`` and values ``(n,)`` for ``planes`` ``(n, 3, 8, 8)``."""
        x = self.tower(self.stem(planes))
        logits = self.policy_fc(self.policy_conv(x).flatten(1))
        logits = logits.masked_fill(~masks, ILLEGAL_LOGIT)
        value = torch.tanh(self.value_fc(self.value_conv(x).flatten(1))).squeeze(1)
        return logits, value


def loss_terms(
    net: PolicyValueNet, planes: torch.Tensor, masks: torch.Tensor, policy: torch.Tensor, value: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """AlphaZero's loss, in two parts: the cross-entropy of the policy against the
    target distribution, and the squared error of the value against the outcome."""
    logits, v = net(planes, masks)
    policy_loss = -(policy * F.log_softmax(logits, dim=1)).sum(1).mean()
    value_loss = F.mse_loss(v, value)
    return policy_loss, value_loss


# -- evaluation for the search -----------------------------------------------------


def check_device(name: str) -> torch.device:
    """The torch device ``name`` ("cpu", "cuda", "cuda:1"), or ValueError in one line
    if torch does not know it or no CUDA GPU is present for a "cuda" one."""
    try:
        device = torch.device(name)
    except (RuntimeError, TypeError):
        raise ValueError(f"unknown torch device {name!r} (try cpu or cuda)") from None
    if device.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(f"device {name!r}: no CUDA GPU here (this torch build or machine has none)")
    if device.type not in ("cpu", "cuda"):
        raise ValueError(f"device {name!r}: only cpu and cuda are supported")
    return device


class NetworkEvaluator:
    """A ``BatchEvaluator`` (``agents.search.evaluation``) over a network: one
    forward pass for a whole batch of leaves, on ``device`` (``"cpu"``, ``"cuda"``).

    On the CPU the network is traced and frozen for inference (batch norm folded
    into the convolutions, oneDNN kernels): measured 1.5 to 2.5 times as fast as
    the plain module here, same results to float rounding. ``frozen=False``
    keeps the plain module (for a network that is still training)."""

    def __init__(self, net: PolicyValueNet, device: str = "cpu", frozen: bool = True) -> None:
        self.device = torch.device(device)
        self.net = net.to(self.device).eval()
        self._forward: Any = self.net
        if frozen and self.device.type == "cpu":
            planes, masks = encode(np.zeros(2, np.uint64), np.zeros(2, np.uint64))
            # torch 2.13 marks TorchScript deprecated in favour of torch.compile, which
            # needs a C++ compiler at run time; the frozen trace needs nothing.
            with held(), torch.no_grad(), warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)
                traced = torch.jit.trace(self.net, (torch.from_numpy(planes), torch.from_numpy(masks)))
                self._forward = torch.jit.optimize_for_inference(torch.jit.freeze(traced))

    @torch.inference_mode()
    def evaluate(self, mover: np.ndarray, opponent: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Priors ``(n, 65)`` float32 (0 on illegal actions) and values ``(n,)``
        float32 for the mover, of positions given as uint64 arrays."""
        planes, masks = encode(mover, opponent)
        logits, value = self._forward(torch.from_numpy(planes).to(self.device), torch.from_numpy(masks).to(self.device))
        priors = torch.softmax(logits, dim=1)
        return priors.cpu().numpy(), value.cpu().numpy()


# -- files -------------------------------------------------------------------------


def save_network(path: str | Path, net: PolicyValueNet, info: dict[str, Any] | None = None) -> None:
    """Write the weights, the shape and ``info`` (plain numbers and strings: the
    command, data size and time that made it) to ``path``, atomically."""
    data = {
        "config": asdict(net.config),
        "state_dict": {k: v.detach().cpu() for k, v in net.state_dict().items()},
        "info": dict(info or {}),
    }
    buffer = io.BytesIO()
    torch.save(data, buffer)
    write_bytes_atomic(path, buffer.getvalue())


def load_network(path: str | Path, device: str = "cpu") -> tuple[PolicyValueNet, dict[str, Any]]:
    """The network saved at ``path`` and its info.

    Raises:
        ValueError: in one line naming the file, if it is not a network of this project
            (never torch's advice to load it with ``weights_only=False``), is larger than
            ``MAX_DATA_FILE`` or not a regular file, or its config asks for a tower past
            ``MAX_CHANNELS`` or ``MAX_BLOCKS`` (refused before the tower is built).
    """
    try:
        raw = read_data(path, MAX_DATA_FILE, "a network file")
    except FileNotFoundError:
        raise ValueError(f"no such network file: {str(path)!r}") from None
    except OSError as e:
        raise ValueError(f"{str(path)!r} is not a network file: {e.strerror or e}") from None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # torch's two-line notes on a bare pickle: the error below says it
            data = torch.load(io.BytesIO(raw), map_location=device, weights_only=True)
        config = NetConfig(**data["config"])
    except (pickle.UnpicklingError, RuntimeError, KeyError, TypeError, AttributeError, EOFError, OSError):
        raise ValueError(f"{str(path)!r} is not a saved policy-value network of this project") from None
    except ValueError as e:
        reason = str(e) if isinstance(e, NetConfigError) else "not a saved policy-value network of this project"
        raise ValueError(f"{str(path)!r}: {reason}") from None
    try:
        net = PolicyValueNet(config)
        net.load_state_dict(data["state_dict"])
        info = dict(data.get("info", {}))
    except (RuntimeError, KeyError, TypeError, AttributeError, ValueError):
        raise ValueError(f"{str(path)!r} is not a saved policy-value network of this project") from None
    return net.to(device).eval(), info


SHIPPED_NETWORK = Path(__file__).parent / "data" / "alphazero.pt"
"""The trained network shipped with the package (see docs/training.md)."""
