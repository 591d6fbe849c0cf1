#!/usr/bin/env bash
# The whole stack on one machine for trying the scale-out: `make run-cluster` (docs/DEPLOY.md).
# TOPIC_DASHBOARD_CLUSTER_WORKERS backend workers (default 3, ports from TOPIC_DASHBOARD_CLUSTER_FIRST_PORT,
# default 8101) behind Debian's nginx on TOPIC_DASHBOARD_PORT (default 3000), on PostgreSQL and Redis:
#   TOPIC_DASHBOARD_DATABASE_URL   default postgresql://postgres@127.0.0.1:5432/topic_dashboard (created if missing)
#   TOPIC_DASHBOARD_REDIS_URL      default redis://127.0.0.1:6379/1
# Installs nginx when missing (it is not started as a system service: this script runs its own).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
bash scripts/bootstrap.sh
bash scripts/install-nginx.sh
source scripts/env.sh
umask 077
export TOPIC_DASHBOARD_DATABASE_URL="${TOPIC_DASHBOARD_DATABASE_URL:-postgresql://postgres@127.0.0.1:5432/topic_dashboard}"
export TOPIC_DASHBOARD_REDIS_URL="${TOPIC_DASHBOARD_REDIS_URL:-redis://127.0.0.1:6379/1}"
.venv/bin/python -m topic_dashboard.cluster ensure-database
.venv/bin/topic-dashboard db upgrade >/dev/null
.venv/bin/topic-dashboard instance record >/dev/null
source scripts/banner.sh
exec .venv/bin/python -m topic_dashboard.cluster
