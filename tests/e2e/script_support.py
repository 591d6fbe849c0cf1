"""Runs `scripts/e2e.sh` (what `make e2e` runs) as a QA engineer would, in a pytest of its own, for the
flows that check the script itself (test_evidence.py, test_headed.py)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run_e2e_script(
    flow: str, *, drop: tuple[str, ...] = (), timeout: float = 600, **extra: str
) -> subprocess.CompletedProcess[str]:
    """`bash scripts/e2e.sh <flow>` with this run's environment minus pytest's own, E2E_BASE_URL and the
    outer run's choices of recording and reruns (a QA engineer's `E2E_EVIDENCE_RERUN=0` must not switch
    off the second run the probe checks), and any variable starting with one of `drop`; plus `extra`."""
    hidden = ("PYTEST_", "E2E_BASE_URL", "E2E_EVIDENCE_RERUN", "E2E_RECORD_ALL", "E2E_FAILED_FILE", *drop)
    environment = {key: value for key, value in os.environ.items() if not key.startswith(hidden)}
    environment.update(extra)
    return subprocess.run(
        ["bash", "scripts/e2e.sh", flow], cwd=ROOT, env=environment, capture_output=True, text=True, timeout=timeout
    )
