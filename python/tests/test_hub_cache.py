"""A Hub id resolves through the normal Hugging Face cache, as `hf download` leaves it:
HF_HUB_CACHE/models--ORG--NAME/{refs/main, snapshots/REV/}. huggingface_hub reads HF_HUB_CACHE and
HF_HUB_OFFLINE when it is imported, so each check runs in a fresh interpreter with them set (offline:
no network here)."""

import json
import os
import subprocess
import sys
from pathlib import Path

from tiny_models import make_tiny_model

PYTHON_DIR = Path(__file__).resolve().parents[1]

RESOLVE_AND_LOAD = """
import json, sys, torch
from rllm_worker.model import load_model, resolve_model_dir
try:
    d = resolve_model_dir(sys.argv[1])
except FileNotFoundError as e:
    print(json.dumps({"error": str(e)})); sys.exit(0)
m = load_model(sys.argv[1], "cpu", "float32", trainable=False).model
logits = m(torch.tensor([[1, 5, 9, 4]])).logits
print(json.dumps({"dir": d, "logits": logits.flatten().tolist()}))
"""


def _run(model: str, cache: Path) -> dict:
    env = {**os.environ, "HF_HUB_CACHE": str(cache), "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(PYTHON_DIR)}
    out = subprocess.run([sys.executable, "-c", RESOLVE_AND_LOAD, model], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_a_hub_id_loads_from_the_cache(tmp_path):
    revision = "0123456789abcdef0123456789abcdef01234567"
    entry = tmp_path / "models--rllm-test--tiny-llama"
    (entry / "refs").mkdir(parents=True)
    (entry / "refs" / "main").write_text(revision)
    snapshot = make_tiny_model(entry / "snapshots" / revision, "llama")
    by_id = _run("rllm-test/tiny-llama", tmp_path)
    assert os.path.samefile(by_id["dir"], snapshot)
    by_dir = _run(str(snapshot), tmp_path)
    assert by_id["logits"] == by_dir["logits"]


def test_a_hub_id_missing_from_the_cache_is_a_clear_error(tmp_path):
    r = _run("rllm-test/absent", tmp_path)
    assert "rllm-test/absent" in r["error"] and "neither a local directory nor a Hub id" in r["error"]
