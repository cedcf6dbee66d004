"""The README's Python examples run as written, and its Quickstart names real files."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from conftest import REPO_ROOT

README = (REPO_ROOT / "README.md").read_text()
PYTHON_BLOCKS = re.findall(r"```python\n(.*?)```", README, flags=re.DOTALL)


def test_readme_has_examples() -> None:
    assert len(PYTHON_BLOCKS) >= 4


@pytest.mark.parametrize("index", range(len(PYTHON_BLOCKS)))
def test_readme_python_block_runs(index: int, tmp_path: object) -> None:
    result = subprocess.run(
        [sys.executable, "-c", PYTHON_BLOCKS[index]], cwd=tmp_path, capture_output=True, text=True, timeout=600
    )
    assert result.returncode == 0, f"README block {index} failed:\n{PYTHON_BLOCKS[index]}\n{result.stderr}"


def test_quickstart_commands() -> None:
    main = re.search(r"<!-- quickstart:main -->\s*```bash\n(.*?)\n```", README, flags=re.DOTALL)
    test = re.search(r"<!-- quickstart:test -->\s*```bash\n(.*?)\n```", README, flags=re.DOTALL)
    assert main and test, "the Quickstart needs its two marked commands"
    script = re.search(r"examples/\S+\.py", main.group(1))
    assert script and (REPO_ROOT / script.group(0)).exists()
    assert "pytest" in test.group(1) and "'.[test]'" in test.group(1)
