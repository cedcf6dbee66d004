"""Regenerate oracle_games.jsonl: uniformly random games played by OpenSpiel's
independent othello implementation (``pip install '.[bench]'`` for pyspiel).

Each line holds one game: ``moves`` (our notation, "PASS" for a pass), ``legal``
(OpenSpiel's legal moves before every ply) and the final disc counts ``black`` and
``white``. The shipped file came from the same procedure with an unrecorded seed;
``--seed`` makes a new file reproducible.

    python tests/data/make_oracle_games.py --games 300 --seed 0 --out tests/data/oracle_games.jsonl
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path


def _name(action: int) -> str:
    """OpenSpiel's othello numbers squares row by row from A1, with 64 for a pass, as we do."""
    return "PASS" if action == 64 else "ABCDEFGH"[action % 8] + str(action // 8 + 1)


def oracle_game(rng: random.Random) -> dict[str, object]:
    """One random game, recorded as the oracle test reads it."""
    import pyspiel

    state = pyspiel.load_game("othello").new_initial_state()
    moves: list[str] = []
    legal: list[list[str]] = []
    while not state.is_terminal():
        actions = state.legal_actions()
        legal.append([_name(a) for a in actions])
        action = rng.choice(actions)
        moves.append(_name(action))
        state.apply_action(action)
    text = str(state)
    return {"moves": moves, "legal": legal, "black": text.count("x"), "white": text.count("o")}


def main() -> None:
    """Write ``--games`` oracle games to ``--out``."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path(__file__).with_name("oracle_games.jsonl"))
    args = parser.parse_args()
    rng = random.Random(args.seed)
    with args.out.open("w") as f:
        for _ in range(args.games):
            f.write(json.dumps(oracle_game(rng)) + "\n")


if __name__ == "__main__":
    main()
