#!/usr/bin/env bash
# The gates every change passes (`make lint`; `make test` runs them first): ruff's lint rules and its
# formatting, and mypy --strict over the domain and services, as configured in pyproject.toml.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
bash scripts/bootstrap.sh
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/mypy
