#!/usr/bin/env bash
# Run the whole test suite: `make test`. Set TEST_DATABASE_URL (a PostgreSQL server URL) to run
# the storage and API tests on PostgreSQL too; each run creates and drops its own databases.
#
# Without arguments: the lint gates (scripts/lint.sh), then everything but the browser flows in two processes (pytest-xdist; each worker
# has its own databases and its own server), then the browser flows in two (scripts/e2e.sh: each worker
# its own app, database and frontend build folder, .web-e2e-gwN: tests/e2e/conftest.py); with
# TEST_DATABASE_URL the journeys run on PostgreSQL instead of SQLite (once each: `make e2e` runs them on
# SQLite). With arguments: one pytest run with them (e.g.
# `bash scripts/test.sh tests/reliability -x`).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
bash scripts/bootstrap.sh --test
source scripts/env.sh
if [ "$#" -gt 0 ]; then
  exec .venv/bin/python -m pytest "$@"
fi
bash scripts/lint.sh
status=0
.venv/bin/python -m pytest -n "${TEST_WORKERS:-2}" --ignore=tests/e2e --durations=15 || status=$?
# The browser flows on both databases: where the suite has a PostgreSQL server, the journeys of
# docs/TESTING.md's catalogue run there and every other flow on SQLite (the whole set on each would
# take as long again; the storage and API tests cover both databases in full).
if [ -n "${TEST_DATABASE_URL:-}" ]; then
  postgresql_flows="${E2E_POSTGRESQL_SELECTION:-journey}"
  bash scripts/e2e.sh -m "not ($postgresql_flows)" || status=$?
  E2E_DATABASE=postgresql E2E_REPORT=e2e-postgresql bash scripts/e2e.sh -m "$postgresql_flows" || status=$?
else
  bash scripts/e2e.sh || status=$?
fi
exit "$status"
