"""The README's two commands are real, and CI runs the test command exactly as the README shows it."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text()
    return [line.strip() for line in text.splitlines() if line.startswith("    make ")]


def test_readme_shows_one_run_and_one_test_command() -> None:
    assert _readme_commands()[:2] == ["make run", "make test"]


def test_ci_runs_the_readme_test_command_as_written() -> None:
    ci = (ROOT / ".ci/run").read_text().splitlines()
    commands = [
        line.strip()
        for line in ci
        if line.strip() and not re.match(r"^\s*(#|set |cd |export |if |fi|then|  export)", line)
    ]
    assert "make test" in commands


def test_make_targets_call_the_scripts_that_install_what_they_need() -> None:
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(r"^run:.*\n\tbash scripts/run.sh$", makefile, re.MULTILINE)
    assert re.search(r"^test:.*\n\tbash scripts/test.sh$", makefile, re.MULTILINE)
    for script in ("run.sh", "test.sh"):
        assert "scripts/bootstrap.sh" in (ROOT / "scripts" / script).read_text()
