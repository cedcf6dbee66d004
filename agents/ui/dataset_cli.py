"""The ``reversi dataset`` subcommand: game files into training arrays.

    reversi dataset WTH_2001.wtb WTH_2002.wtb --out data.npz
    reversi dataset games.ggf --out data.npz --dtype float32 --layout CHW --legal-moves --augment

Each file's games are replayed (``reversi_env.dataset``); a file that cannot be
read, or a game with an illegal move, stops the command with one line naming
the file, the game and the move, before anything is written.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
from tqdm import tqdm

from agents.play.records import RecordError, dataset_game, decode_record, from_ggf_games, load_record
from agents.ui.options import unwritable_output
from reversi_env.dataset import ARRAYS, DatasetError, Game, games_from_wthor, games_to_arrays, save_arrays
from reversi_env.observation import ObservationSpec
from reversi_env.wthor import WthorError, read_wtb

MAX_GGF_BYTES = 256 * 1024 * 1024
"""The largest GGF file read (GGS's yearly archives are tens of megabytes)."""


def read_games(path: str) -> list[Game]:
    """The games of one file, by its suffix; ValueError (one line, naming the file) if it cannot be read."""
    suffix = Path(path).suffix.lower()
    if suffix == ".wtb":
        return games_from_wthor(read_wtb(path))
    try:
        if suffix == ".ggf":
            with open(path, "rb") as f:
                data = f.read(MAX_GGF_BYTES + 1)
            if len(data) > MAX_GGF_BYTES:
                raise RecordError(f"larger than {MAX_GGF_BYTES:,} bytes")
            results = from_ggf_games(decode_record(data))
        elif suffix in (".json", ".txt"):
            return [dataset_game(load_record(path))]
        else:
            raise RecordError("not a game file: .wtb, .ggf, .json or .txt")
        games = []
        for i, r in enumerate(results):
            try:
                games.append(dataset_game(r))
            except RecordError as e:
                raise RecordError(f"game {i + 1}: {e}") from None
        return games
    except OSError as e:
        raise RecordError(f"{path}: cannot read: {e.strerror or e}") from None
    except RecordError as e:
        text = str(e)
        raise RecordError(text if text.startswith(f"{path}:") else f"{path}: {text}") from None


def run_dataset(args: argparse.Namespace) -> int:
    """``reversi dataset``: read every file, replay the games, write the arrays; 2 on a bad file."""
    if unwritable_output("dataset", "--out", args.out):
        return 2
    spec = ObservationSpec(
        dtype=args.dtype,
        layout=args.layout,
        legal_moves=args.legal_moves,
        side_to_move=args.side_to_move,
        history=args.history,
        flat=args.flat,
    )
    try:
        files = [(path, read_games(path)) for path in args.files]
    except (RecordError, WthorError) as e:
        print(f"reversi dataset: error: {e}", file=sys.stderr)
        return 2
    total = sum(len(games) for _, games in files)
    parts = []
    offset = 0
    with tqdm(total=total, unit="game", disable=args.no_progress, file=sys.stderr, dynamic_ncols=True) as bar:
        for path, games in files:
            try:
                arrays = games_to_arrays(games, spec=spec, augment=args.augment, progress=bar.update)
            except DatasetError as e:
                print(f"reversi dataset: error: {path}: {e}", file=sys.stderr)
                return 2
            arrays["game"] += offset
            offset += len(games)
            parts.append(arrays)
    merged = {k: np.concatenate([p[k] for p in parts]) for k in ARRAYS}
    try:
        save_arrays(args.out, merged)
    except OSError as e:
        print(f"reversi dataset: error: --out {args.out!r}: {e.strerror or e}", file=sys.stderr)
        return 2
    shape = "x".join(map(str, merged["observation"].shape[1:]))
    print(
        f"{args.out}: {len(merged['action']):,} positions ({shape} {spec.dtype}) from {total:,} games "
        f"in {len(files)} file{'s' if len(files) != 1 else ''}"
    )
    return 0
