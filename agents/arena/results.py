"""The results file: JSON Lines, a tournament line first, then one line a finished game,
appended (flushed and fsynced) as each game ends; read back strictly, its cut last line
repaired on resume, checked against the tournament a run resumes or extends.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agents.arena.ratings import Outcome, Ratings, compute_ratings
from agents.arena.schedule import Tournament, player_key
from agents.datafiles import load_json, open_data, read_data
from agents.limits import MAX_RESULTS_FILE

FORMAT_VERSION = 1
"""The results file's format version, written in its first line."""


@dataclass
class ResultsData:
    """A results file read back: the tournament (if the file has one), the game
    records (each game once) and what was cut or skipped."""

    tournament: Tournament | None
    games: list[dict[str, Any]]
    truncated: bool = False
    duplicates: int = 0

    def outcomes(self) -> list[Outcome]:
        """The games as rating inputs."""
        return [Outcome(g["black"], g["white"], float(g["black_score"]), int(g["disc_difference"])) for g in self.games]

    def done_ids(self) -> set[str]:
        """The ids of the finished games."""
        return {g["game_id"] for g in self.games}


def read_results(path: str | Path, repair: bool = False) -> ResultsData:
    """Read a results file. A half-written last line (a crash mid-write) is
    ignored, and with ``repair`` cut off the file so appending can go on; a bad
    line anywhere else is a ValueError naming it. A game recorded twice counts once."""
    path = Path(path)
    raw = read_data(path, MAX_RESULTS_FILE, "a results file")
    lines = raw.split(b"\n")
    # Everything after the last newline is an unfinished write, unless it is a
    # whole record (an editor that drops the final newline): then it is kept.
    tail = lines.pop()
    whole = _is_record(tail)
    if whole:
        lines.append(tail)
    truncated = bool(tail.strip()) and not whole
    good_end = len(raw) - len(tail)
    tournament: Tournament | None = None
    games: list[dict[str, Any]] = []
    seen: set[str] = set()
    duplicates = 0
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = load_json(line)
            kind = record.get("type")
            if kind == "tournament":
                if record.get("version") != FORMAT_VERSION:
                    raise ValueError(f"unsupported results format version {record.get('version')!r}")
                tournament = Tournament.from_dict(record["tournament"])
                continue
            if kind != "game":
                raise ValueError(f"unknown record type {kind!r}")
            for key in ("game_id", "black", "white"):
                if not isinstance(record.get(key), str):
                    raise ValueError(f"a game record needs a string {key!r}")
            record["black_score"] = float(record["black_score"])
            record["disc_difference"] = int(record["disc_difference"])
            if record["black_score"] not in (0.0, 0.5, 1.0):
                raise ValueError(f"black_score must be 0, 0.5 or 1, got {record['black_score']!r}")
            if not -64 <= record["disc_difference"] <= 64:
                raise ValueError(f"disc_difference must be -64 to 64, got {record['disc_difference']!r}")
        except (AttributeError, KeyError, TypeError, ValueError) as e:
            if isinstance(e, json.JSONDecodeError) and number == len(lines) and not truncated:
                # Unparseable JSON ending the file is an unfinished write too
                # (whatever a crash left before the newline); a parseable but
                # wrong record is not, and is reported like any other.
                truncated, good_end = True, len(raw) - len(tail) - len(line) - 1
                break
            raise ValueError(f"{path}:{number}: bad results line: {e}") from e
        if record["game_id"] in seen:
            duplicates += 1
            continue
        seen.add(record["game_id"])
        games.append(record)
    if truncated and repair:
        with open(path, "r+b") as f:
            f.truncate(good_end)
            f.flush()
            os.fsync(f.fileno())
    elif whole and repair:  # the next record starts on a line of its own
        with open(path, "ab") as f:
            f.write(b"\n")
            f.flush()
            os.fsync(f.fileno())
    return ResultsData(tournament, games, truncated, duplicates)


def _is_record(text: bytes) -> bool:
    """Whether ``text`` is a whole JSON object (a torn write never is: records end with their only
    closing brace at top level)."""
    try:
        return isinstance(load_json(text), dict)
    except ValueError:
        return False


class ResultsWriter:
    """Appends records to a results file, one JSON line each, flushed and
    fsynced before ``append`` returns, so a finished game survives a crash."""

    def __init__(self, path: str | Path) -> None:
        """Open ``path`` for appending (created if missing)."""
        self.path = Path(path)
        self._file = open(self.path, "a", encoding="utf-8")  # noqa: SIM115 - kept open across appends

    def append(self, record: dict[str, Any]) -> None:
        """Write one record as a line and make it durable."""
        self._file.write(json.dumps(record, separators=(",", ":"), allow_nan=False) + "\n")
        self._file.flush()
        os.fsync(self._file.fileno())

    def close(self) -> None:
        """Close the file."""
        self._file.close()

    def __enter__(self) -> ResultsWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def ratings_from_records(data: ResultsData | Iterable[ResultsData], anchor: str | None = None) -> Ratings:
    """The table for one or more results files, agents listed in tournament
    order. A game found in several files (same id, seed and moves) counts once;
    the same pairing played again (a time-limited agent plays other moves) counts again.
    Specs of one player (``player_key``) are one row, under the spelling met first; ``anchor``
    may be any of them. A game between two of them (an older version let both in) rates nothing."""
    parts = [data] if isinstance(data, ResultsData) else list(data)
    shown: dict[str, str] = {}

    def row(spec: str) -> str:
        return shown.setdefault(player_key(spec), spec)

    order = [row(a) for p in parts if p.tournament for a in p.tournament.agents]
    seen: set[tuple[str, object, object]] = set()
    games = []
    for p in parts:
        for g in p.games:
            key = (g["game_id"], g.get("seed"), g.get("transcript"))
            if key not in seen:
                seen.add(key)
                games.append(g)
    outcomes = [
        Outcome(row(o.black), row(o.white), o.black_score, o.disc_difference)
        for o in ResultsData(None, games).outcomes()
        if row(o.black) != row(o.white)
    ]
    if anchor is not None:
        anchor = shown.get(player_key(anchor), anchor)
    return compute_ratings(outcomes, anchor=anchor, order=order)


def _begins_with_a_tournament(path: Path) -> bool:
    """Whether ``path``'s first line is an arena tournament line (a results file)."""
    with open_data(path, MAX_RESULTS_FILE, "a results file") as f:
        first = f.readline(1 << 20)
    try:
        return bool(load_json(first).get("type") == "tournament")
    except (ValueError, AttributeError):
        return False


def prepare_results(tournament: Tournament, path: Path, resume: bool) -> ResultsData:
    """Check ``path`` against the tournament (repairing a cut last line on
    resume) and return what it holds; ValueError if it would mix tournaments
    or overwrite games."""
    if path.is_dir():
        raise ValueError(f"{path} is a directory: --out names a results file")
    if not path.exists() or not path.stat().st_size:
        return ResultsData(tournament, [])
    if not resume and not _begins_with_a_tournament(path):
        raise ValueError(f"{path} holds something other than arena results: choose another --out")
    if not resume:
        raise ValueError(f"{path} already holds results: pass --resume to continue it, or choose another --out")
    data = read_results(path, repair=True)
    if data.tournament is None and not data.games and not path.stat().st_size:
        return ResultsData(tournament, [])  # killed while writing the first line
    if data.tournament is None:
        raise ValueError(f"{path} has no tournament line: it was not written by the arena")
    if data.tournament.to_dict() != tournament.to_dict() and not extends(tournament, data):
        raise ValueError(
            f"{path} holds a different tournament: {json.dumps(data.tournament.to_dict())}; "
            "resume with the same agents and options (or none: `reversi arena --resume --out FILE`), "
            "or extend it: more agents or games, with the same seed and rules"
        )
    return data


def extends(tournament: Tournament, data: ResultsData) -> bool:
    """Whether ``tournament`` keeps every game in ``data`` as it was played
    (same seed and rules; more agents or more games per pairing), so resuming
    with it adds only the new games: a new checkpoint joins the pool this way."""
    old = data.tournament
    if old is None or (old.seed, old.time_control, old.max_illegal) != (
        tournament.seed,
        tournament.time_control,
        tournament.max_illegal,
    ):
        return False
    seeds = {g.game_id: g.seed for g in tournament.schedule()}
    return all(seeds.get(g["game_id"]) == g.get("seed") for g in data.games) and all(
        g.game_id in seeds for g in old.schedule()
    )
