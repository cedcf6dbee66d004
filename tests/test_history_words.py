"""The repository speaks in the present tense: no tracked text file names a session by
its number, an issue or pull-request number, or the project's process. That
history lives in the commit messages; a docstring says what a thing is and why, and a
figure names the benchmark that measures it.

The words of a protocol's or a process's session (a GTP session, ``start_new_session``)
are not history: only a session with a number, or one opening a bracket, is. This file
scans itself too, so its examples are written in two pieces.
"""

from __future__ import annotations

import re
import subprocess

import pytest
from conftest import REPO_ROOT

HISTORY = re.compile(
    r"""
      \bsessions?[\s-]*\#?\d+            # a session and its number, after a space, a dash or nothing
    | [(]session\b                       # a session in brackets, a number or not
    | \bissues?[\s-]*\#?\d+              # an issue and its number, with or without its hash
    | \b(?:PR|pull\ request)\s*\#\d+     # a pull request's number
    | \bthe\ issue'?s\b
    | \bworking\ (?:session|period)s?\b
    | \bthat\ day'?s\b | \bthe\ day\ before\b | \byester[d]ay\b
    | \b(?:the|our)\ team\b | \bteam[m]ates?\b
    """,
    re.IGNORECASE | re.VERBOSE,
)
MAX_BYTES = 2_000_000
"""Larger tracked files are data, not prose."""


def history_lines(text: str) -> list[tuple[int, str]]:
    """(line number, line) of every line of ``text`` that names the project's history."""
    return [(n, line.strip()) for n, line in enumerate(text.splitlines(), 1) if HISTORY.search(line)]


def tracked_text_files() -> list[str]:
    names = subprocess.run(["git", "ls-files", "-z"], cwd=REPO_ROOT, capture_output=True, text=True, check=True)
    return [name for name in names.stdout.split("\0") if name]


def test_no_tracked_text_file_names_the_projects_history() -> None:
    found = []
    for name in tracked_text_files():
        path = REPO_ROOT / name
        if not path.is_file() or path.stat().st_size > MAX_BYTES:
            continue
        data = path.read_bytes()
        if b"\0" in data:  # a binary file
            continue
        for n, line in history_lines(data.decode("utf-8", errors="replace")):
            found.append(f"{name}:{n}: {line[:160]}")
    message = f"{len(found)} line(s) name a numbered session, an issue or the project's process"
    assert not found, f"{message}; say what it is and why, and leave the history to git log:\n" + "\n".join(found)


@pytest.mark.parametrize(
    "line",
    [
        "measured in session" + " 12",
        "the session" + "-12 weights",
        "### Session" + " 41: two threads",
        "sessions" + " 32-33's machine",
        "(" + "session" + " 25's games, docs/engine.md)",
        "the targets of issue" + " 14",
        "see issue" + " #5",
        "fixed in PR" + " #7",
        "the issue" + "'s bar",
        "that day" + "'s default",
        "as the" + " team measured",
        "47-48 s the day" + " before",
        "team" + "mates were compiling",
    ],
)
def test_history_is_found(line: str) -> None:
    assert history_lines(line) == [(1, line)]


@pytest.mark.parametrize(
    "line",
    [
        "A misbehaving player cannot break the session.",
        "def test_quit_keeps_its_id_and_ends_the_session() -> None:",
        'subprocess.Popen(["sleep", "600"], start_new_session=True)',
        "process (and session) of its own",
        "FFO endgame test positions #20-#39",
        "except KeyboardInterrupt:  # would end the whole test session",
        "an issue with the input",
    ],
)
def test_the_words_of_protocols_and_processes_are_not_history(line: str) -> None:
    assert history_lines(line) == []
