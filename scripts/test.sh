#!/usr/bin/env bash
# Run the whole test suite: `make test`. Set TEST_DATABASE_URL (a PostgreSQL server URL) to run
# the storage and API tests on PostgreSQL too; each run creates and drops its own databases.
#
# Without arguments: the lint gates (scripts/lint.sh), then everything but the browser flows in two processes (pytest-xdist; each worker
# has its own databases and its own server), then the browser flows in two (each worker its own app,
# database and frontend build folder, .web-e2e-gwN: tests/e2e/conftest.py). With arguments: one pytest run with them (e.g.
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
.venv/bin/python -m pytest tests/e2e -n "${E2E_WORKERS:-2}" --durations=25 || status=$?
exit "$status"
