#!/usr/bin/env bash
# The browser flows alone: `make e2e` (docs/TESTING.md). Installs what it needs first, like `make test`.
#
#   make e2e                                   every flow, headless, against an app this run starts (SQLite)
#   make e2e ARGS='-k search'                  pytest's selection (-k, -m, a file or a test) passed through
#   make e2e ARGS='-m journey'                 the journeys of docs/TESTING.md's catalogue only
#   HEADED=1 make e2e ARGS='-k viewer'         in a visible browser window (one worker); without a display
#                                              (no DISPLAY, e.g. over ssh or in CI) in Debian's Xvfb, installed
#                                              here when missing: headed behaviour, nothing on screen
#   E2E_DATABASE=postgresql make e2e           the app on a fresh PostgreSQL database (TEST_DATABASE_URL's server)
#   E2E_BASE_URL=https://staging.example E2E_ADMIN_USER=... E2E_ADMIN_PASSWORD=... E2E_API_TOKEN=... make e2e
#                                              against a running dashboard: only the flows safe on a shared one
#
# Evidence: a failed flow keeps its screenshot, browser log and the app's log of the flow under
# test-results/artifacts/<test>/ (artifacts-postgresql/ for that run); every run writes
# test-results/e2e-junit.xml and test-results/e2e-report.html (E2E_REPORT names another stem, e.g.
# e2e-postgresql). The flows that failed then run once more, alone, recording a Playwright trace and a
# video (recording every flow cost the suite about a third of its time): test-results/artifacts/rerun/
# <test>/ and test-results/e2e-rerun-report.html. The first run's outcome is the result (a flow that
# passes the second time was flaky, not fixed). E2E_EVIDENCE_RERUN=0 skips the second run;
# E2E_RECORD_ALL=1 records trace and video on the first run already.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
bash scripts/bootstrap.sh --test
source scripts/env.sh
report="${E2E_REPORT:-e2e}"
artifacts="test-results/artifacts${report#e2e}"  # pytest-playwright empties it first: one per report
workers="${E2E_WORKERS:-2}"
# The flows to run: tests/e2e, unless the arguments name files or tests of their own.
paths=(tests/e2e)
for arg in "$@"; do
  if [ -e "${arg%%::*}" ]; then paths=(); break; fi
done
if [ "${E2E_RECORD_ALL:-0}" != "0" ]; then
  recording=(--tracing retain-on-failure --video retain-on-failure)
else
  recording=(--tracing off --video off)
fi
common=(--screenshot only-on-failure --durations=25)
# The flows that fail are listed here (tests/e2e/conftest.py) for the second run below.
failed_list="test-results/$report-failed.txt"
rm -f "$failed_list"
args=(
  "${paths[@]}"
  "${common[@]}"
  "${recording[@]}"
  --output "$artifacts"
  --junitxml "test-results/$report-junit.xml"
  --html "test-results/$report-report.html" --self-contained-html
)
runner=()
if [ -n "${HEADED:-}" ] && [ "${HEADED}" != "0" ]; then
  args+=(--headed)
  workers="${E2E_WORKERS:-1}"
  if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ]; then
    if ! command -v xvfb-run >/dev/null; then
      echo "[e2e] no display: installing Debian's xvfb to run the headed browser in a virtual one"
      bash scripts/apt-install.sh xvfb xauth
    fi
    runner=(xvfb-run --auto-servernum --server-args "-screen 0 1440x900x24")
  fi
fi
if [ "$workers" != "1" ] && [ "$workers" != "0" ]; then
  args+=(-n "$workers" --dist loadgroup)  # flows marked xdist_group share a worker (tests/e2e/test_xss_matrix.py)
fi
status=0
E2E_FAILED_FILE="$failed_list" "${runner[@]}" .venv/bin/python -m pytest "${args[@]}" "$@" || status=$?
# Exit code 1: some flows failed (2-5 are pytest's own errors: nothing to record again).
if [ "$status" = 1 ] && [ "${E2E_EVIDENCE_RERUN:-1}" != "0" ] && [ -s "$failed_list" ]; then
  echo "[e2e] the failed flows once more, recording trace and video: test-results/$report-rerun-report.html"
  mapfile -t failed < "$failed_list"
  rerun=(
    "${failed[@]}"
    "${common[@]}"
    --tracing retain-on-failure --video retain-on-failure
    --output "$artifacts/rerun"
    --junitxml "test-results/$report-rerun-junit.xml"
    --html "test-results/$report-rerun-report.html" --self-contained-html
  )
  if [ -n "${HEADED:-}" ] && [ "${HEADED}" != "0" ]; then rerun+=(--headed); fi
  "${runner[@]}" .venv/bin/python -m pytest "${rerun[@]}" || true
fi
exit "$status"
