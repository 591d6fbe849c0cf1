#!/usr/bin/env bash
# Debian's nginx, for `make run-cluster` and the cluster test (scripts/bootstrap.sh --test). Only the
# binary is used: the project runs its own nginx with its own configuration (topic_dashboard/cluster.py).
set -euo pipefail
if command -v nginx >/dev/null || [ -x /usr/sbin/nginx ]; then exit 0; fi
printf '\033[1;34m[bootstrap]\033[0m %s\n' "installing Debian's nginx (the cluster's reverse proxy)" >&2
bash "$(dirname "${BASH_SOURCE[0]}")/apt-install.sh" nginx
SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
# Where the package's own service started anyway (a machine with an init system), leave port 80 alone.
if command -v systemctl >/dev/null && systemctl is-active --quiet nginx 2>/dev/null; then
  $SUDO systemctl disable --now nginx >/dev/null 2>&1 || true
fi
