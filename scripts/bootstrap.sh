#!/usr/bin/env bash
# Install what the project needs, once; quick when nothing changed.
#   scripts/bootstrap.sh          venv with pinned dependencies + bun (to build Reflex's frontend)
#   scripts/bootstrap.sh --test   also Debian's Chromium (browser tests), ffmpeg, nginx and nanobot's own venv
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PYTHON="${PYTHON:-python3}"
BUN_VERSION="1.4.4"          # the version Reflex 0.10.1 pins
NANOBOT_VERSION="0.3.5"
AXE_VERSION="4.14.1"
NANOBOT_AIOHTTP_VERSION="3.14.5"  # what nanobot-ai 0.3.5's `api` extra (aiohttp>=3.9,<4) resolves to; `nanobot serve` needs it

log() { printf '\033[1;34m[bootstrap]\033[0m %s\n' "$*" >&2; }

# nanobot in its own venv (--test): it needs mcp<2 and cannot share ours. With its `api` extra (aiohttp),
# which `nanobot serve` needs; a venv made before that gets only what is missing. It installs in the
# background while our own venv does (a minute saved on a fresh machine); step 4 waits for it.
install_nanobot() {
  if [ ! -x .tools/nanobot-venv/bin/python ] || ! .tools/nanobot-venv/bin/python -c "import nanobot, aiohttp" 2>/dev/null; then
    log "installing nanobot-ai $NANOBOT_VERSION (aiohttp $NANOBOT_AIOHTTP_VERSION) into .tools/nanobot-venv (compatibility tests)"
    mkdir -p .tools
    [ -x .tools/nanobot-venv/bin/python ] || "$PYTHON" -m venv .tools/nanobot-venv
    .tools/nanobot-venv/bin/python -m pip install --quiet --disable-pip-version-check \
      "nanobot-ai[api]==$NANOBOT_VERSION" "aiohttp==$NANOBOT_AIOHTTP_VERSION"
  fi
}
nanobot_pid=""
if [ "${1:-}" = "--test" ]; then
  install_nanobot &
  nanobot_pid=$!
fi

# 1. Python venv with the pinned tree (requirements.txt) and the project itself.
stamp_src="$(cat requirements.txt pyproject.toml | sha256sum | cut -c1-16)"
if [ ! -x .venv/bin/python ] || [ "$(cat .venv/.stamp 2>/dev/null)" != "$stamp_src" ]; then
  log "creating the Python environment (.venv) from requirements.txt"
  [ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
  .venv/bin/python -m pip install --quiet --disable-pip-version-check --upgrade "pip==26.3"
  .venv/bin/python -m pip install --quiet --disable-pip-version-check -r requirements.txt
  .venv/bin/python -m pip install --quiet --disable-pip-version-check --no-deps -e .
  echo "$stamp_src" > .venv/.stamp
fi

# 2. bun from the npm registry (Reflex's own download of bun cannot work here).
if [ ! -x ".tools/node_modules/bun/bin/bun.exe" ]; then
  command -v npm >/dev/null || { log "npm is needed to install bun: apt-get install -y npm"; exit 1; }
  log "installing bun $BUN_VERSION from the npm registry into .tools/"
  mkdir -p .tools
  npm install --silent --no-audit --no-fund --prefix .tools "bun@$BUN_VERSION" >/dev/null
fi

if [ "${1:-}" = "--test" ]; then
  # 3. Debian's Chromium for Playwright (Playwright's own browser download cannot work here).
  if [ ! -x /usr/bin/chromium ]; then
    log "installing Debian's chromium for browser tests"
    SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
  fi
  # Debian's ffmpeg records the videos of failed flows (Playwright's own ffmpeg download cannot work
  # here either); Playwright finds it where it would have put its own (PLAYWRIGHT_BROWSERS_PATH, env.sh).
  if [ ! -x /usr/bin/ffmpeg ]; then
    log "installing Debian's ffmpeg (videos of failed browser flows)"
    bash scripts/apt-install.sh ffmpeg
  fi
  # A Chinese font (WenQuanYi Micro Hei, 1.6 MB): without one, Chinese text in the flows' screenshots is
  # drawn as empty boxes and a person reviewing them cannot read it (people's own browsers have their fonts).
  # Only the screenshots need it: a machine where it cannot be installed goes on without it.
  if ! { command -v fc-list >/dev/null && fc-list :lang=zh 2>/dev/null | grep -q .; }; then
    log "installing Debian's fonts-wqy-microhei (Chinese text in screenshots)"
    bash scripts/apt-install.sh fonts-wqy-microhei \
      || log "no Chinese font could be installed: Chinese text in screenshots will show as boxes"
  fi
  ffmpeg_rev="$(.venv/bin/python -c 'import json, playwright, pathlib; p = pathlib.Path(playwright.__file__).parent / "driver/package/browsers.json"; print(next(b["revision"] for b in json.loads(p.read_text())["browsers"] if b["name"] == "ffmpeg"))')"
  mkdir -p ".tools/ms-playwright/ffmpeg-$ffmpeg_rev"
  ln -sf /usr/bin/ffmpeg ".tools/ms-playwright/ffmpeg-$ffmpeg_rev/ffmpeg-linux"
  # Debian's nginx: the cluster flow (tests/e2e/test_cluster.py) runs `make run-cluster`'s proxy.
  bash scripts/install-nginx.sh
  # 4. nanobot's own venv: started in the background at the top, waited for here.
  wait "$nanobot_pid" || { log "installing nanobot-ai failed"; exit 1; }
  # 5. axe-core from the npm registry: the accessibility checks inject it into the pages.
  if [ ! -f ".tools/axe/node_modules/axe-core/axe.min.js" ]; then
    log "installing axe-core $AXE_VERSION into .tools/axe (accessibility checks)"
    mkdir -p .tools/axe
    npm install --silent --no-audit --no-fund --prefix .tools/axe "axe-core@$AXE_VERSION" >/dev/null
  fi
fi
