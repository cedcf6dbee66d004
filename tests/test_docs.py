"""The documentation's commands, examples and links hold as written.

README.md's own Python blocks are run by test_readme.py; here: the links and
file names of README.md and docs/*.md, every command of their ``bash`` blocks
and of the ``--help`` examples (each flag and value accepted by today's
parsers, which name their defaults), the runnable Python blocks of docs/*.md
and the NBoard session that docs/protocols.md shows.
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

from conftest import REPO_ROOT

from agents.ui.cli import build_parser

DOCS = [REPO_ROOT / "README.md", *sorted((REPO_ROOT / "docs").glob("*.md"))]
TEXTS = {path: path.read_text() for path in DOCS}
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO_ROOT), os.environ.get("PYTHONPATH", "")])}


def fenced(language: str, paths: list[Path] = DOCS) -> list[tuple[str, str]]:
    """(where, text) of every ```language block of ``paths``."""
    blocks = []
    for path in paths:
        for m in re.finditer(rf"^```{language}\n(.*?)^```", TEXTS[path], flags=re.MULTILINE | re.DOTALL):
            line = TEXTS[path].count("\n", 0, m.start()) + 2
            blocks.append((f"{path.relative_to(REPO_ROOT)}:{line}", m.group(1)))
    return blocks


def commands(text: str) -> list[str]:
    """The ``reversi ...`` and ``python benchmarks|examples/...`` commands of shell text:
    continuation lines joined, comments dropped, ``&&``, ``;`` and pipes split, what
    stands before them (``nice -n 5``, ``PYTHONPATH=.``, ``.venv/bin/``) left out;
    ``python -m agents`` is ``reversi``."""
    found = []
    for line in text.replace("\\\n", " ").splitlines():
        lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
        lexer.whitespace_split, lexer.commenters = True, "#"
        words: list[str] = []
        for word in [*lexer, ";"]:
            if word.strip("();<>|&"):
                words.append(word)
                continue
            for i, name in enumerate(w.rsplit("/", 1)[-1] for w in words):
                rest = words[i + 1 :]
                if name == "reversi":
                    found.append(shlex.join(["reversi", *rest]))
                elif name in ("python", "python3") and rest[:2] == ["-m", "agents"]:
                    found.append(shlex.join(["reversi", *rest[2:]]))
                elif name in ("python", "python3") and rest and re.match(r"(benchmarks|examples)/", rest[0]):
                    found.append(shlex.join(["python", *rest]))
                else:
                    continue
                break
            words = []
    return found


def documented_commands() -> list[tuple[str, str]]:
    """(where, command) of the commands people copy: the docs' bash blocks, the
    README's own command spans and the examples in every ``--help``."""
    found = [(where, c) for where, text in fenced("bash") for c in commands(text)]
    readme = REPO_ROOT / "README.md"
    prose = re.sub(r"^```.*?^```", "", TEXTS[readme], flags=re.MULTILINE | re.DOTALL)
    for span in re.findall(r"`([^`\n]+)`", prose):
        words = span.split()
        # `reversi gtp --player SPEC` names its arguments in capitals, and `reversi train-az` a
        # command: forms and names, not commands to run.
        if len(words) > 2 and not any(re.fullmatch(r"[A-Z]+", w) for w in words):
            found += [("README.md (text)", c) for c in commands(span)]
    for name, sub in subcommands().items():
        for line in (sub.epilog or "").splitlines():
            if line.startswith("  reversi "):
                found.append((f"reversi {name} --help", re.split(r"\s{3,}", line.strip())[0]))
    return [(where, c) for where, c in found if c != "reversi"]  # `python -m agents`: a name


def subcommands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def undocumented_defaults(parser: argparse.ArgumentParser) -> list[str]:
    """The options whose help does not say what they do by default."""
    missing = []
    for action in parser._actions:
        if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)) or not action.option_strings:
            continue
        flag, text = action.option_strings[-1], action.help or ""
        if not text:
            missing.append(f"{flag}: no help")
        elif (
            action.default not in (None, False, argparse.SUPPRESS)
            and not action.required
            and "default" not in text
            and str(action.default) not in text
        ):
            missing.append(f"{flag}: the default {action.default!r} is not named")
    return missing


def test_links_and_file_names_point_at_what_exists() -> None:
    def anchor(heading: str) -> str:
        return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")

    headings = {
        path: {anchor(h) for h in re.findall(r"^#+\s+(.*)$", re.sub(r"^```.*?^```", "", text, flags=re.M | re.S), re.M)}
        for path, text in TEXTS.items()
    }
    broken = []
    for path, text in TEXTS.items():
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if target.startswith(("http://", "https://")):
                continue
            file, _, fragment = target.partition("#")
            resolved = (path.parent / file).resolve() if file else path
            if not resolved.exists():
                broken.append(f"{path.name}: link {target}")
            elif fragment and resolved in headings and fragment not in headings[resolved]:
                broken.append(f"{path.name}: link {target}: no such heading")
        for name in re.findall(r"`((?:agents|benchmarks|docs|examples|reversi_env|tests)/[\w./-]*\w)`", text):
            if not (REPO_ROOT / name).exists() and not (path.parent / name).exists():
                broken.append(f"{path.name}: {name} does not exist")
    assert not broken, "\n".join(broken)


def test_docs_pages_named_in_the_code_exist() -> None:
    """A docstring, help text or comment that sends the reader to a page of docs/ names a page that exists."""
    sources = subprocess.run(
        ["git", "ls-files", "*.py"], cwd=REPO_ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    missing = [
        f"{source}: {page}"
        for source in sources
        for page in re.findall(r"docs/[\w/-]+\.md", (REPO_ROOT / source).read_text())
        if not (REPO_ROOT / page).exists()
    ]
    assert not missing, "\n".join(missing)


def test_every_documented_reversi_command_parses() -> None:
    found = [(where, c) for where, c in documented_commands() if c.startswith("reversi ")]
    assert len(found) > 40
    parser = build_parser()
    refused = []
    for where, command in found:
        try:
            parser.parse_args(shlex.split(command)[1:])
        except SystemExit as e:  # --help exits 0
            if e.code:
                refused.append(f"{where}: {command}")
    assert not refused, "refused by today's parser:\n" + "\n".join(refused)


def test_every_reversi_option_names_its_default() -> None:
    missing = [f"reversi {name} {m}" for name, sub in subcommands().items() for m in undocumented_defaults(sub)]
    assert not missing, "\n".join(missing)


# Runs each script up to its parse_args, then parses the documented command
# lines with that parser and reports the options whose help names no default.
SCRIPT_PARSERS = """
import argparse, json, runpy, sys

class Parsed(Exception):
    pass

def capture(parser, args=None, namespace=None):
    raise Parsed(parser)

parse_args = argparse.ArgumentParser.parse_args
argparse.ArgumentParser.parse_args = capture
report = {}
for script, lines in json.load(sys.stdin).items():
    sys.argv = [script]
    sys.path.insert(0, script.rsplit("/", 1)[0])
    try:
        runpy.run_path(script, run_name="__main__")
        report[script] = {"error": "it never called parse_args"}
        continue
    except Parsed as p:
        parser = p.args[0]
    except ImportError as e:  # an example whose library is not installed
        report[script] = {"skipped": str(e)}
        continue
    refused = []
    for line in lines:
        try:
            parse_args(parser, line[1:])
        except SystemExit as e:  # --help exits 0
            if e.code:
                refused.append(" ".join(line))
    report[script] = {"refused": refused, "defaults": undocumented_defaults(parser)}
print(json.dumps(report))
"""


def script_usage_lines(script: Path) -> list[str]:
    """The command lines a script's docstring gives, those without placeholders (``[--x N]``, ``FILE...``)."""
    lines = re.findall(r"^\s*(python3? (?:benchmarks|examples)/\S+\.py\b.*?)(?:\s+#.*)?$", script.read_text(), re.M)
    return [line for line in lines if not re.search(r"[\[\]|]|\.\.\.|\b[A-Z]{2,}\b", line)]


def test_every_documented_script_command_parses_and_every_option_names_its_default() -> None:
    scripts = sorted((REPO_ROOT / "benchmarks").glob("*.py")) + sorted((REPO_ROOT / "examples").glob("*.py"))
    lines: dict[str, list[list[str]]] = {str(s): [] for s in scripts if "parse_args(" in s.read_text()}
    wheres: dict[str, str] = {}
    documented = [(w, c) for w, c in documented_commands() if not c.startswith("reversi ")]
    documented += [(s.name, line) for s in scripts for line in script_usage_lines(s)]
    assert len(documented) > 20
    for where, command in documented:
        words = shlex.split(command)
        script = str(REPO_ROOT / words[1])
        assert script in lines, f"{where}: {command}: no such script"
        lines[script].append(words[1:])
        wheres[" ".join(words[1:])] = where
    done = subprocess.run(
        [sys.executable, "-c", "import argparse\n" + inspect.getsource(undocumented_defaults) + SCRIPT_PARSERS],
        input=json.dumps(lines),
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO_ROOT,
        env=ENV,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.splitlines()[-1])
    problems = []
    for script, result in report.items():
        name = Path(script).relative_to(REPO_ROOT)
        problems += [f"{name}: {result['error']}"] if "error" in result else []
        problems += [f"{wheres[line]}: refused: python {line}" for line in result.get("refused", [])]
        problems += [f"{name} {m}" for m in result.get("defaults", [])]
    assert not problems, "\n".join(problems)


# Python blocks of docs/*.md that are not programs on their own, or need what a test does not have.
NOT_RUN = {
    "class BatchEvaluator(Protocol)": "an interface's signature",
    "from board import Board": "a course file's first lines",
    "my_frozen_policy": "needs a trained policy",
    "MaskablePPO.load(": "needs a trained model (tests/rl train one)",
    "load_policy(": "needs a trained model (tests/rl train one)",
    "run_tournament(": "run by test_the_arena_example_runs_as_a_script",
}


def docs_python_blocks() -> list[tuple[str, str]]:
    blocks = fenced("python", [p for p in DOCS if p.name != "README.md"])
    return [(where, code) for where, code in blocks if not any(key in code for key in NOT_RUN)]


def test_the_docs_python_examples_run(tmp_path: Path) -> None:
    blocks = docs_python_blocks()
    assert len(blocks) >= 4
    if not Path("/usr/games/gtp-rhino").exists():
        blocks = [(w, c) for w, c in blocks if "/usr/games/gtp-rhino" not in c]
    scripts = []
    for i, (where, code) in enumerate(blocks):
        script = tmp_path / f"example_{i}.py"
        script.write_text(code)
        scripts.append((where, str(script)))
    # One interpreter for all, each block a fresh __main__: numba loads its cache once.
    runner = (
        "import runpy\n"
        "for where, path in {!r}:\n"
        "    print('@@', where, flush=True)\n"
        "    runpy.run_path(path, run_name='__main__')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", runner.format(scripts)],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,
        env=ENV,
    )
    last = re.findall(r"^@@ (.*)$", done.stdout, re.M)
    assert done.returncode == 0, f"{last[-1] if last else '?'} failed:\n{done.stderr}"


def test_the_arena_example_runs_as_a_script(tmp_path: Path) -> None:
    """docs/arena.md's tournament from Python, as a file (its workers import it again), on a small budget."""
    (code,) = [code for _, code in fenced("python") if "run_tournament(" in code]
    small = code.replace('"mcts:sims=2000"', '"mcts:sims=20"').replace("games=20", "games=2")
    assert small != code
    (tmp_path / "tournament.py").write_text(small)
    done = subprocess.run(
        [sys.executable, "tournament.py"], capture_output=True, text=True, timeout=300, cwd=tmp_path, env=ENV
    )
    assert done.returncode == 0, done.stderr
    assert "anchor" in done.stdout and len(json_lines(tmp_path / "results.jsonl")) == 1 + 3 * 2


def json_lines(path: Path) -> list[object]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_the_nboard_session_shown_is_what_the_engine_says() -> None:
    text = TEXTS[REPO_ROOT / "docs" / "protocols.md"]
    m = re.search(r"^\$ printf '([^\n]*?)' \\\n  \| reversi (nboard [^\n]*)\n(.*?)^```", text, flags=re.M | re.S)
    assert m, "docs/protocols.md: the NBoard session to try by hand"
    sent, command, shown = m.group(1).encode().decode("unicode_escape"), m.group(2), m.group(3)
    done = subprocess.run(
        [sys.executable, "-m", "agents", *shlex.split(command)],
        input=sent,
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO_ROOT,
        env=ENV,
    )
    assert done.returncode == 0, done.stderr

    def untimed(lines: str) -> list[str]:  # the seconds differ from run to run
        lines = re.sub(r"^(nodestats \d+) [\d.]+$", r"\1 T", lines, flags=re.M)
        return re.sub(r"^(=== \w+/[-\d.]+)/[\d.]+$", r"\1/T", lines, flags=re.M).splitlines()

    assert untimed(done.stdout) == untimed(shown), "update the session in docs/protocols.md:\n" + done.stdout
