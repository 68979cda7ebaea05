#!/usr/bin/env bash
# Installs the PyTorch worker's environment: python/.venv with the pinned torch (CPU build),
# transformers, peft, safetensors and pytest. `--backend torch` finds it there (or set RLLM_PYTHON
# to another interpreter that has them, e.g. a GPU machine's own).
#   bash python/install.sh            # uses python3.11 when present, else python3
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
py="${PYTHON:-$(command -v python3.11 || command -v python3)}"
"$py" -m venv "$here/.venv"
"$here/.venv/bin/pip" install --quiet --disable-pip-version-check -e "$here[test]"
"$here/.venv/bin/python" -c "import torch, transformers, peft, safetensors; print('rllm worker environment:', 'torch', torch.__version__, 'transformers', transformers.__version__, 'peft', peft.__version__)"
