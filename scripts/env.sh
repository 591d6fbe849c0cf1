# Environment for Reflex on this toolchain (sourced by the Makefile's recipes and by tests).
# bun comes from the npm registry (Reflex cannot download it here); caches stay inside the project.
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export REFLEX_BUN_PATH="$ROOT/.tools/node_modules/bun/bin/bun.exe"
export REFLEX_TELEMETRY_ENABLED=false
export REFLEX_CHECK_LATEST_VERSION=false
export REFLEX_DIR="$ROOT/.tools/reflex"
export BUN_INSTALL_CACHE_DIR="$ROOT/.tools/bun-cache"
export BUN_RUNTIME_TRANSPILER_CACHE_PATH="$ROOT/.tools/bun-transpiler"
# Playwright's helpers (its ffmpeg, for videos of failed flows) as scripts/bootstrap.sh links them;
# the browser itself is Debian's Chromium (tests/e2e/conftest.py).
export PLAYWRIGHT_BROWSERS_PATH="$ROOT/.tools/ms-playwright"
if [ -z "${NPM_CONFIG_REGISTRY:-}" ]; then
  NPM_CONFIG_REGISTRY="$(npm config get registry 2>/dev/null || echo https://registry.npmjs.org/)"
  export NPM_CONFIG_REGISTRY
fi
