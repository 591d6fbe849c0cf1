#!/usr/bin/env bash
# Run the dashboard on the embedded default (SQLite under ./data): `make run`.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
bash scripts/bootstrap.sh
source scripts/env.sh
# Everything the app writes from here on is its owner's only: Reflex's .states/*.pkl hold live
# session tokens, the data dir holds the database and each bot's token.
umask 077

# On a data dir or database it cannot use, this prints one line saying which, why and what to do,
# and exits non-zero: the script stops here.
.venv/bin/topic-dashboard db upgrade >/dev/null
# Where the `topic-dashboard` commands find this dashboard when they run in another shell.
.venv/bin/topic-dashboard instance record >/dev/null
source scripts/banner.sh
# `reflex run --env prod`, without rebuilding the frontend when nothing it is built from changed
# (topic_dashboard/launcher.py). Its own process group, so that Ctrl-C stops the frontend server too.
exec .venv/bin/python -m topic_dashboard.launcher
