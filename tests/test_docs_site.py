"""The documentation site builds strictly, and docs/players.md documents exactly the spec language.

The strict build fails on a broken link, a page left out of the nav and an API
reference to a name that does not exist; its run is proved to fail on a broken
link here too, so a passing build means something.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from conftest import REPO_ROOT

import agents
import reversi_env
from agents.play import specs

PLAYERS = REPO_ROOT / "docs" / "players.md"
TARGET_KINDS = ("classic", "python", "gtp")
"""The kinds that name a file, a module or a command instead of taking options."""


def documented_kinds() -> dict[str, set[str]]:
    """Each ``### `kind``` section of docs/players.md and the options its table lists."""
    kinds: dict[str, set[str]] = {}
    for m in re.finditer(r"^### `(\w+)`\n(.*?)(?=^#|\Z)", PLAYERS.read_text(), flags=re.M | re.S):
        kinds[m.group(1)] = set(re.findall(r"^\| `(\w+)` \|", m.group(2), flags=re.M))
    return kinds


def test_players_page_lists_every_kind_and_option_of_the_spec_language() -> None:
    code = {kind: set(options) for kind, (options, _) in specs._OPTIONS.items()}
    code |= {kind: set() for kind in TARGET_KINDS}
    assert documented_kinds() == code


def mkdocs_build(config: Path, site: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", str(config), "--site-dir", str(site)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=config.parent,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )


def test_the_site_builds_strictly_with_every_public_name_in_the_api_reference(tmp_path: Path) -> None:
    done = mkdocs_build(REPO_ROOT / "mkdocs.yml", tmp_path / "site")
    assert done.returncode == 0, done.stderr
    for package in (agents, reversi_env):
        page = (tmp_path / "site" / "api" / package.__name__ / "index.html").read_text()
        documented = {anchor.rsplit(".", 1)[-1] for anchor in re.findall(r'id="([\w.]+)"', page)}
        missing = set(package.__all__) - documented
        assert not missing, f"docs/api/{package.__name__}.md lacks {sorted(missing)}"


def test_a_broken_link_or_a_missing_name_fails_the_build(tmp_path: Path) -> None:
    shutil.copytree(REPO_ROOT / "docs", tmp_path / "docs")
    config = (REPO_ROOT / "mkdocs.yml").read_text().replace("paths: [.]", f"paths: [{REPO_ROOT}]")
    (tmp_path / "mkdocs.yml").write_text(config)
    index = tmp_path / "docs" / "index.md"
    text = index.read_text()
    index.write_text(text + "\n[a page](no-such-page.md)\n")
    done = mkdocs_build(tmp_path / "mkdocs.yml", tmp_path / "site")
    assert done.returncode != 0 and "no-such-page.md" in done.stderr
    index.write_text(text + "\n::: agents.search.mcts.NoSuchAgent\n")
    done = mkdocs_build(tmp_path / "mkdocs.yml", tmp_path / "site")
    assert done.returncode != 0 and "agents.search.mcts.NoSuchAgent" in done.stderr
