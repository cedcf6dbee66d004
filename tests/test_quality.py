"""The code stays ruff clean and mypy clean: checked by the test suite itself,
so the README's one test command enforces it everywhere."""

from __future__ import annotations

import subprocess
import sys

from conftest import REPO_ROOT


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], cwd=REPO_ROOT, capture_output=True, text=True)


def test_ruff_lint() -> None:
    result = run("ruff", "check", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_format() -> None:
    result = run("ruff", "format", "--check", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_packages() -> None:
    result = run("mypy")
    assert result.returncode == 0, result.stdout + result.stderr
