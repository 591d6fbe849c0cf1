#!/usr/bin/env bash
# `make bench`: every benchmark, each printing its figures against a baseline measured in the same run
# (docs/PERFORMANCE.md records them). Long: the routing, storage, search and audit benches, MCP over
# HTTP, start-up, live updates with 1 and 3 workers (PostgreSQL + Redis), memory under use, and the
# panel's input latency at 10,000 items in a real browser.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
bash scripts/bootstrap.sh --test
source scripts/env.sh
for bench in routing_bench storage_bench search_bench audit_bench mcp_bench startup_bench live_bench memory_bench; do
  echo "== bench/$bench.py"
  .venv/bin/python "bench/$bench.py"
done
echo "== bench/scale_bench.py: 100,000 items (SQLite), 1,000,000 (PostgreSQL, a database of its own)"
.venv/bin/python bench/scale_bench.py --items 100000
if psql -h 127.0.0.1 -U postgres -qc "DROP DATABASE IF EXISTS td_scale_bench" -c "CREATE DATABASE td_scale_bench"; then
  .venv/bin/python bench/scale_bench.py --items 1000000 \
    --database-url postgresql+psycopg://postgres@127.0.0.1:5432/td_scale_bench
  psql -h 127.0.0.1 -U postgres -qc "DROP DATABASE td_scale_bench"
fi
echo "== tests/e2e/test_topic_panel_scale.py at 10,000 items"
TD_BENCH_ROWS=10000 .venv/bin/python -m pytest tests/e2e/test_topic_panel_scale.py -s -p no:cacheprovider
