"""#18: a failed flow leaves what QA needs to see why. Runs `scripts/e2e.sh` (what `make e2e` runs) on
a flow that fails on purpose (evidence_probe.py), in a pytest of its own with its own app, and checks
what it left: from the run itself the screenshot, the browser log with the console and HTTP errors,
the app's log of that flow, and the JUnit and HTML reports naming the failure; from the second run of
the failed flow (recording on) the Playwright trace and the video, and its report linking the trace."""

from __future__ import annotations

import zipfile
from pathlib import Path
from xml.etree import ElementTree

import pytest

from tests.e2e.evidence_probe import PROBE_CONSOLE
from tests.e2e.script_support import run_e2e_script

pytestmark = [pytest.mark.e2e, pytest.mark.private_instance]

ROOT = Path(__file__).resolve().parents[2]
REPORT = "e2e-probe"


def test_a_broken_flow_leaves_a_trace_a_video_its_logs_and_reports() -> None:
    results = ROOT / "test-results"
    for stem in (REPORT, f"{REPORT}-rerun"):
        for stale in (results / f"{stem}-junit.xml", results / f"{stem}-report.html"):
            stale.unlink(missing_ok=True)
    run = run_e2e_script("tests/e2e/evidence_probe.py", E2E_REPORT=REPORT, E2E_WORKERS="1", E2E_WEB_PURPOSE="probe")
    assert run.returncode == 1, run.stdout[-3000:] + run.stderr[-3000:]

    def folder_of(artifacts: Path) -> Path:
        folders = [path for path in artifacts.iterdir() if "deliberately-broken" in path.name]
        assert len(folders) == 1, list(artifacts.iterdir())
        return folders[0]

    first, second = folder_of(results / "artifacts-probe"), folder_of(results / "artifacts-probe" / "rerun")
    for folder in (first, second):
        assert list(folder.glob("test-failed-*.png"))
        browser_log = (folder / "browser-log.txt").read_text(encoding="utf-8")
        assert f"console.error: {PROBE_CONSOLE}" in browser_log
        assert "HTTP 401: GET" in browser_log and "probe-no-such-bot" in browser_log
        assert "what the app logged during this flow" in (folder / "server-log.txt").read_text(encoding="utf-8")
    # The run itself records nothing (that is what keeps the suite fast); the second run does.
    assert not (first / "trace.zip").exists() and not list(first.glob("*.webm"))
    with zipfile.ZipFile(second / "trace.zip") as trace:
        assert any(name.endswith(".trace") for name in trace.namelist())
    videos = list(second.glob("*.webm"))
    assert videos and videos[0].stat().st_size > 1000

    for stem in (REPORT, f"{REPORT}-rerun"):
        junit = ElementTree.parse(results / f"{stem}-junit.xml").getroot()
        failures = [case for case in junit.iter("testcase") if case.find("failure") is not None]
        assert [case.get("name") for case in failures] == ["test_a_deliberately_broken_flow[chromium]"]
        html = (results / f"{stem}-report.html").read_text(encoding="utf-8")
        assert "test_a_deliberately_broken_flow" in html and "probe-no-such-control" in html and PROBE_CONSOLE in html
    assert "trace.zip" in (results / f"{REPORT}-rerun-report.html").read_text(encoding="utf-8")  # the trace linked
