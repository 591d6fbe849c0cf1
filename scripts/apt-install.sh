#!/usr/bin/env bash
# Debian packages, without their recommends: `bash scripts/apt-install.sh PKG...` (ffmpeg, the Chinese font and
# nginx in scripts/bootstrap.sh, xvfb in scripts/e2e.sh). The install is tried first (package lists that are
# current need no update), then the lists are updated and it is tried once more; its exit status is the last try's.
set -euo pipefail
SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
install() { $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null; }
install "$@" 2>/dev/null || { $SUDO apt-get update -qq && install "$@"; }
