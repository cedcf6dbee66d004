"""Behaviour cloning in one page: a policy network learns to play the moves of a game database.

The games come from a WTHOR file (the French federation's base of expert games,
``WTH_2001.wtb`` say) or, without one, from self-play of the built-in players,
written to a WTHOR file first so the path is the same. They become training
arrays (``reversi_env.dataset``: the mover's planes, its legal moves, the move
played; the 8 symmetries of every position with ``--augment``), a small
convolutional network (torch, CPU) learns to predict the move played, and the
network then plays the ladder through ``agents.evaluate``.

    python examples/behaviour_cloning.py [WTHOR_FILE] [--games 400] [--epochs 4] [--augment] [--eval-games 20]
"""

from __future__ import annotations

import argparse
import datetime
import sys
import tempfile
from pathlib import Path

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F  # noqa: N812 - torch's own idiom

import agents
from agents.play.match import play_game
from agents.play.records import dataset_game
from agents.ui.options import positive_int, seed_int
from reversi_env.dataset import Game, games_from_wthor, games_to_arrays
from reversi_env.observation import Observation, ObservationSpec
from reversi_env.wthor import WthorError, WthorGame, read_wtb, score_of, write_wtb

SPEC = ObservationSpec(dtype="float32", layout="CHW", legal_moves=True)
"""The network's input: the mover's discs, the opponent's and the mover's legal squares, channels first."""
PLAYERS = ("greedy", "positional", "level:1")
"""The built-in players whose self-play makes the data when no WTHOR file is given."""
LADDER = ("random", "greedy", "positional", "level:1")
"""The opponents the cloned policy is evaluated against."""


def _seeded(spec: str, seed: int) -> str:
    """A player spec with its tie-breaking seed: ``greedy:seed=3``, ``level:1,seed=3``."""
    return f"{spec}{',' if ':' in spec else ':'}seed={seed}"


def self_play_wthor(path: Path, games: int, seed: int) -> None:
    """Write ``games`` games of the built-in players against each other (seeded) to a WTHOR file."""
    records = []
    for i in range(games):
        black, white = PLAYERS[i % len(PLAYERS)], PLAYERS[(i // len(PLAYERS)) % len(PLAYERS)]
        game = dataset_game(play_game(_seeded(black, seed + 2 * i), _seeded(white, seed + 2 * i + 1)))
        records.append(WthorGame(game.moves, score_of(game.moves)))
    write_wtb(path, records, year=datetime.date.today().year)


class PolicyNet(nn.Module):
    """Three 3x3 convolutions and a linear layer to 65 logits (0-63 squares, 64 PASS)."""

    def __init__(self, channels: int = 32) -> None:
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(SPEC.num_planes, channels, 3, padding=1),
            nn.ReLU(),
            nn.Conv2d(channels, channels, 3, padding=1),
            nn.ReLU(),
            nn.Conv2d(channels, channels, 3, padding=1),
            nn.ReLU(),
        )
        self.head = nn.Linear(channels * 64, 65)

    def forward(self, planes: torch.Tensor, masks: torch.Tensor) -> torch.Tensor:
        """Logits with the illegal actions masked out."""
        logits = self.head(self.body(planes).flatten(1))
        return logits.masked_fill(~masks, -1e9)


def train(arrays: dict[str, np.ndarray], epochs: int, seed: int) -> tuple[PolicyNet, float]:
    """Fit the network to the moves played; returns it and its accuracy on every tenth game (held out,
    with their symmetric images, so no image of a held-out position is trained on)."""
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    out = arrays["game"] % 10 == 9
    held, fit = np.flatnonzero(out), np.flatnonzero(~out)
    if not len(held):  # fewer than ten games: the last position is held out
        held, fit = fit[-1:], fit[:-1]
    planes = torch.from_numpy(arrays["observation"])
    masks = torch.from_numpy(arrays["action_mask"].astype(bool))
    actions = torch.from_numpy(arrays["action"])
    net = PolicyNet()
    optimizer = torch.optim.Adam(net.parameters(), lr=2e-3)
    for epoch in range(epochs):
        net.train()
        total = 0.0
        shuffled = rng.permutation(fit)
        for start in range(0, len(shuffled), 256):
            batch = torch.from_numpy(shuffled[start : start + 256])
            loss = F.cross_entropy(net(planes[batch], masks[batch]), actions[batch])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss.item() * len(batch)
        print(f"epoch {epoch + 1}: loss {total / max(1, len(fit)):.3f}")
    net.eval()
    with torch.no_grad():
        idx = torch.from_numpy(held)
        accuracy = float((net(planes[idx], masks[idx]).argmax(1) == actions[idx]).float().mean())
    return net, accuracy


class ClonedPolicy:
    """The network as a player: ``act`` takes the env's observation and plays its likeliest legal move."""

    name = "cloned"

    def __init__(self, net: PolicyNet) -> None:
        self.net = net

    def act(self, observation: Observation) -> int:
        """The legal action with the highest logit."""
        mask = np.asarray(observation["action_mask"], dtype=bool)
        planes = np.concatenate(
            [np.asarray(observation["observation"]).transpose(2, 0, 1), mask[:64].reshape(1, 8, 8)]
        ).astype(np.float32)
        with torch.no_grad():
            logits = self.net(torch.from_numpy(planes)[None], torch.from_numpy(mask)[None])
        return int(logits.argmax())


def main(argv: list[str] | None = None) -> int:
    """Read or make the games, train, evaluate; returns the exit status."""
    parser = argparse.ArgumentParser(description="Behaviour cloning on a WTHOR file.")
    parser.add_argument("file", nargs="?", metavar="WTHOR_FILE", help="a .wtb (default: self-play games)")
    parser.add_argument("--games", type=positive_int, default=400, help="self-play games without a file (default 400)")
    parser.add_argument("--epochs", type=positive_int, default=4, help="passes over the data (default 4)")
    parser.add_argument("--augment", action="store_true", help="train on the 8 symmetries too (default off)")
    parser.add_argument(
        "--eval-games", type=positive_int, default=20, help="games against each ladder player (default 20)"
    )
    parser.add_argument("--seed", type=seed_int, default=0, help="seed of the games and the training (default 0)")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    try:
        if args.file is None:
            with tempfile.TemporaryDirectory() as folder:
                path = Path(folder) / "self_play.wtb"
                self_play_wthor(path, args.games, args.seed)
                games: list[Game] = games_from_wthor(read_wtb(path))
        else:
            games = games_from_wthor(read_wtb(args.file))
        arrays = games_to_arrays(games, spec=SPEC, augment=args.augment)
    except (WthorError, ValueError) as e:
        print(f"behaviour_cloning.py: error: {e}", file=sys.stderr)
        return 2
    print(f"{len(games)} games, {len(arrays['action'])} positions")
    net, accuracy = train(arrays, args.epochs, args.seed)
    print(f"held-out accuracy (the move played): {accuracy:.1%}")
    report = agents.evaluate(ClonedPolicy(net), list(LADDER), games=args.eval_games, seed=args.seed)
    print(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
