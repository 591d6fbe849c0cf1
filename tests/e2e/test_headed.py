"""#18: `HEADED=1 make e2e` runs the flows in a headed browser, also where there is no display (over
ssh, in CI): scripts/e2e.sh then runs them in Debian's Xvfb, installing it when missing. Runs the
script on a probe flow (headed_probe.py) with no DISPLAY, and checks the probe saw a headed browser;
the same probe run headless fails, so the check can fail."""

from __future__ import annotations

import subprocess

import pytest

from tests.e2e.script_support import run_e2e_script

pytestmark = [pytest.mark.e2e, pytest.mark.private_instance]


def _run_probe(**extra: str) -> subprocess.CompletedProcess[str]:
    return run_e2e_script(
        "tests/e2e/headed_probe.py",
        drop=("DISPLAY", "WAYLAND_DISPLAY", "HEADED"),
        timeout=300,
        E2E_REPORT="e2e-headed-probe",
        E2E_EVIDENCE_RERUN="0",
        **extra,
    )


def test_headed_runs_in_a_virtual_display_when_there_is_none() -> None:
    headed = _run_probe(HEADED="1")
    assert headed.returncode == 0, headed.stdout[-3000:] + headed.stderr[-3000:]
    assert "1 passed" in headed.stdout

    headless = _run_probe(E2E_WORKERS="1")
    assert headless.returncode == 1 and "HeadlessChrome" in headless.stdout, headless.stdout[-3000:]
