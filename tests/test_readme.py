"""The README's Python examples run as written and print what the README says they
print, and its Quickstart names real files.

The blocks of one section are one program read from the top: each block runs in a
fresh interpreter after the blocks above it in its section (their output discarded),
so a later block may use a name an earlier one defined. A block checks its output in
one of two ways: every ``print(`` line ends with ``# prints: <the line printed>``, or
a ```text block right after it holds the whole output.
"""

from __future__ import annotations

import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import REPO_ROOT

README = (REPO_ROOT / "README.md").read_text()
PRINTS = re.compile(r"#\s*prints:\s*(.*?)\s*$")


@dataclass(frozen=True)
class Block:
    """A ```python block of the README: its code, the code above it in its section, and
    the output it promises (None: not checked)."""

    line: int
    code: str
    earlier: str
    expected: list[str] | None


def readme_blocks(text: str) -> list[Block]:
    """Every ```python block of ``text``, with what it must print."""
    blocks: list[Block] = []
    section_start = 0
    earlier: list[str] = []
    fence = re.compile(r"^```python\n(.*?)^```\n(?:\s*^```text\n(.*?)^```)?", re.MULTILINE | re.DOTALL)
    for m in fence.finditer(text):
        section = text.rfind("\n## ", 0, m.start())
        if section != section_start:
            section_start, earlier = section, []
        code, shown = m.group(1), m.group(2)
        marked = [PRINTS.search(line) for line in code.splitlines() if "print(" in line]
        expected: list[str] | None = None
        if shown is not None:
            expected = shown.splitlines()
        elif any(marked):
            assert all(marked), f"README line {text.count(chr(10), 0, m.start()) + 2}: mark every print( or none"
            expected = [p.group(1) for p in marked if p]
        blocks.append(Block(text.count("\n", 0, m.start()) + 2, code, "\n".join(earlier), expected))
        earlier.append(code)
    return blocks


BLOCKS = readme_blocks(README)
RUNNER = """
import contextlib, io, sys
with contextlib.redirect_stdout(io.StringIO()):
    exec(compile(sys.argv[1], "README (the blocks above)", "exec"))
exec(compile(sys.argv[2], "README", "exec"))
"""


def run_block(block: Block, cwd: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-c", RUNNER, block.earlier, block.code]
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=600)


def test_readme_has_examples_and_checks_most_of_them() -> None:
    assert len(BLOCKS) >= 5
    assert sum(b.expected is not None for b in BLOCKS) >= 4


@pytest.mark.parametrize("block", BLOCKS, ids=[f"line{b.line}" for b in BLOCKS])
def test_readme_python_block_runs_and_prints_what_it_says(block: Block, tmp_path: Path) -> None:
    result = run_block(block, tmp_path)
    assert result.returncode == 0, f"README block at line {block.line} failed:\n{block.code}\n{result.stderr}"
    if block.expected is not None:
        printed = [line.rstrip() for line in result.stdout.splitlines()]
        assert printed == [line.rstrip() for line in block.expected], (
            f"README block at line {block.line} printed\n{result.stdout}\nwhere the README says\n"
            + "\n".join(block.expected)
        )


def test_a_wrong_promise_fails_and_a_block_sees_the_names_above_it(tmp_path: Path) -> None:
    text = "## A\n\n```python\nx = 2\nprint(x + 1)  # prints: 4\n```\n\n```python\nprint(x)\n```\n\n```text\n2\n```\n"
    first, second = readme_blocks(text)
    assert first.expected == ["4"] and second.expected == ["2"]
    with pytest.raises(AssertionError, match="where the README says"):
        test_readme_python_block_runs_and_prints_what_it_says(first, tmp_path)
    test_readme_python_block_runs_and_prints_what_it_says(second, tmp_path)  # the first block's "3" is not output


def test_quickstart_commands() -> None:
    main = re.search(r"<!-- quickstart:main -->\s*```bash\n(.*?)\n```", README, flags=re.DOTALL)
    test = re.search(r"<!-- quickstart:test -->\s*```bash\n(.*?)\n```", README, flags=re.DOTALL)
    assert main and test, "the Quickstart needs its two marked commands"
    script = re.search(r"examples/\S+\.py", main.group(1))
    assert script and (REPO_ROOT / script.group(0)).exists()
    assert "pytest" in test.group(1) and "'.[test]'" in test.group(1)


def test_readme_is_a_short_product_page() -> None:
    assert README.count("\n") <= 200
    assert not re.search(r"\b20\d\d-\d\d-\d\d\b", README), "dates belong in docs/benchmarks.md"


NUMBER = re.compile(r"(?<![\w.,])\d[\d,]*(?:\.\d+)?")
"""A figure as the tables write it (``6,712,204``, ``9.95``), not a digit inside a name (``v3``)."""


def test_the_readme_figures_are_the_latest_in_docs_benchmarks() -> None:
    """Each figure of ours and of the anchor in the README's table is in docs/benchmarks.md,
    where a new run replaces the old row: a README left on an old run fails here."""
    section = README.split("## Figures", 1)[1].split("\n## ", 1)[0]
    rows = [line.split("|")[1:-1] for line in section.splitlines() if line.startswith("| ")][1:]
    record = (REPO_ROOT / "docs" / "benchmarks.md").read_text()
    assert len(rows) >= 5
    stale = [
        (row[0].strip(), figure)
        for row in rows
        for cell in row[1:3]
        for figure in NUMBER.findall(cell)
        if not re.search(rf"(?<![\w.,]){re.escape(figure)}(?![\d,]|\.\d)", record)
    ]
    assert not stale, f"README figures not in docs/benchmarks.md: {stale}"
