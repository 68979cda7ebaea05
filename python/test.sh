#!/usr/bin/env bash
# Runs the worker's pytest suite in python/.venv (made by python/install.sh).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
if [ ! -x "$here/.venv/bin/python" ]; then
  echo "python/.venv is missing: install the worker's environment with: bash python/install.sh" >&2
  exit 1
fi
cd "$here" && exec .venv/bin/python -m pytest -q "$@"
