"""The README's two commands are real, and CI runs the test command exactly as the README shows it."""

import re
import subprocess
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


def test_the_readme_commands_resolve_to_real_steps() -> None:
    """`make -n` expands each command without running it: the targets exist and name real scripts."""
    for command, script in (("run", "scripts/run.sh"), ("test", "scripts/test.sh")):
        out = subprocess.run(["make", "-n", command], cwd=ROOT, capture_output=True, text=True, check=False)
        assert out.returncode == 0, out.stderr
        assert f"bash {script}" in out.stdout
        syntax = subprocess.run(["bash", "-n", str(ROOT / script)], capture_output=True, text=True, check=False)
        assert syntax.returncode == 0, syntax.stderr


def test_installing_again_is_a_quick_no_op() -> None:
    """Both commands start with the bootstrap; on a machine where it already ran (as here, since
    make test ran it) it must finish without reinstalling and without error."""
    out = subprocess.run(
        ["bash", "scripts/bootstrap.sh"], cwd=ROOT, capture_output=True, text=True, check=False, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert "creating the Python environment" not in out.stderr  # nothing was reinstalled


def test_make_e2e_passes_the_selection_through_to_the_script_that_installs_what_it_needs() -> None:
    """#18: `make e2e ARGS='-k search'` runs scripts/e2e.sh with the selection, and the script installs
    what the browser flows need (bootstrap --test), as the README says."""
    out = subprocess.run(
        ["make", "-n", "e2e", "ARGS=-k search -m journey"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert out.returncode == 0, out.stderr
    assert "bash scripts/e2e.sh -k search -m journey" in out.stdout
    script = (ROOT / "scripts" / "e2e.sh").read_text()
    assert "scripts/bootstrap.sh --test" in script
    assert "bash scripts/e2e.sh" in (ROOT / "scripts" / "test.sh").read_text()  # make test runs the same flows
    syntax = subprocess.run(["bash", "-n", str(ROOT / "scripts" / "e2e.sh")], capture_output=True, text=True)
    assert syntax.returncode == 0, syntax.stderr
    assert "make e2e" in (ROOT / "README.md").read_text()
