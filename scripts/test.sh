#!/usr/bin/env bash
# Run the whole test suite: `make test`. Set TEST_DATABASE_URL (a PostgreSQL server URL) to run
# the storage and API tests on PostgreSQL too; each run creates and drops its own database.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
bash scripts/bootstrap.sh --test
source scripts/env.sh
exec .venv/bin/python -m pytest "$@"
