import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # rllm_worker without installing
sys.path.insert(0, str(Path(__file__).resolve().parent))  # tiny_models

from tiny_models import make_tiny_model  # noqa: E402


@pytest.fixture(scope="session", params=["qwen3", "llama"])
def tiny_model_dir(request, tmp_path_factory):
    """A tiny random model directory of each architecture (written once per session)."""
    return make_tiny_model(tmp_path_factory.mktemp(f"tiny-{request.param}"), request.param)


@pytest.fixture(scope="session")
def tiny_qwen3_dir(tmp_path_factory):
    return make_tiny_model(tmp_path_factory.mktemp("tiny-qwen3"), "qwen3")
