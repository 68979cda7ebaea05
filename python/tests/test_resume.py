"""Resume: save → load into a fresh Trainer → the next step equals the uninterrupted run bit for bit
(CPU fp32), for full fine-tuning and for LoRA (with dropout, so the restored RNG state matters)."""

import shutil

import pytest
import torch

from rllm_worker.trainer import Trainer
from test_lora import step
from test_train import init_params, make_batch

SPEC = {"kind": "ppo", "clipLow": 0.2, "clipHigh": 0.28, "entropyCoef": 0.01, "aggregation": "token-mean"}


@pytest.mark.parametrize("lora", [None, {"rank": 4, "alpha": 8, "dropout": 0.1, "targetModules": ["q_proj", "v_proj"]}],
                         ids=["full", "lora"])
def test_resumed_step_equals_the_uninterrupted_run(tiny_qwen3_dir, tmp_path, lora):
    params = init_params(tiny_qwen3_dir, lora=lora, seed=3)
    first, second = make_batch(seed=1), make_batch(seed=2)

    run = Trainer(params)
    step(run, first, SPEC)
    run.save(str(tmp_path / "ckpt"))
    step(run, second, SPEC)
    rng_after_run = torch.get_rng_state()

    resumed = Trainer(params)
    assert resumed.load(str(tmp_path / "ckpt")) == 1
    out = step(resumed, second, SPEC)
    assert out["step"] == run.step == 2
    weights = dict(run.model.named_parameters())
    for name, p in resumed.model.named_parameters():
        assert torch.equal(p, weights[name]), name
    a, b = run.optimizer.state_dict()["state"], resumed.optimizer.state_dict()["state"]
    assert all(torch.equal(a[i]["exp_avg_sq"], b[i]["exp_avg_sq"]) for i in a)
    assert torch.equal(torch.get_rng_state(), rng_after_run)  # the RNG stream continues as it would have


def test_load_refuses_a_checkpoint_of_the_other_kind(tiny_qwen3_dir, tmp_path):
    lora = Trainer(init_params(tiny_qwen3_dir, lora={"rank": 2, "alpha": 4, "dropout": 0.0, "targetModules": "all-linear"}))
    lora.save(str(tmp_path / "lora"))
    full = Trainer(init_params(tiny_qwen3_dir))
    with pytest.raises(ValueError, match="is lora fine-tuning but this trainer does full"):
        full.load(str(tmp_path / "lora"))
    with pytest.raises(FileNotFoundError, match="has no worker.json"):
        full.load(str(tmp_path))


def test_load_reads_the_optimizer_of_a_checkpoint_written_before_the_dcp_optimizer(tiny_qwen3_dir, tmp_path):
    """Older checkpoints kept the optimizer in trainer_state.pt (torch.optim's state_dict, by index)."""
    params = init_params(tiny_qwen3_dir, seed=3)
    run = Trainer(params)
    step(run, make_batch(seed=1), SPEC)
    run.save(str(tmp_path / "old"))
    shutil.rmtree(tmp_path / "old" / "optimizer")
    state = torch.load(tmp_path / "old" / "trainer_state.pt", weights_only=False)
    torch.save({**state, "optimizer": run.optimizer.state_dict()}, tmp_path / "old" / "trainer_state.pt")

    resumed = Trainer(params)
    assert resumed.load(str(tmp_path / "old")) == 1
    a, b = run.optimizer.state_dict(), resumed.optimizer.state_dict()
    assert a["param_groups"] == b["param_groups"]
    assert all(torch.equal(a["state"][i][k], b["state"][i][k]) for i in a["state"] for k in ("exp_avg", "exp_avg_sq"))
