"""LoRA and the checkpoints' formats: a fresh adapter changes nothing, a step moves only the adapter,
and what `save` writes loads in plain peft (LoRA) or plain transformers (full fine-tuning) with the
same logprobs; `export_weights` writes what the sampler loads."""

from pathlib import Path

import pytest
import torch
from peft import PeftModel
from safetensors.torch import load_file
from transformers import AutoModelForCausalLM

from rllm_worker.trainer import Trainer
from test_train import denominators, init_params, make_batch
from tiny_models import make_tiny_model

LORA = {"rank": 4, "alpha": 8, "dropout": 0.0, "targetModules": "all-linear"}
PG = {"kind": "importance_sampling", "entropyCoef": 0, "aggregation": "token-mean"}
OPTIM = {"lr": 0.05, "beta1": 0.9, "beta2": 0.999, "eps": 1e-8, "weightDecay": 0.01, "maxGradNorm": 1.0}


def plain_logprobs(model, batch) -> torch.Tensor:
    """log π(token_t | row prefix) with a plain forward per row (0 at each row's start)."""
    out = []
    with torch.no_grad():
        for row in torch.split(batch["tokens"].long(), batch["lengths"].tolist()):
            logp = torch.log_softmax(model(input_ids=row[None], use_cache=False).logits[0, :-1].float(), -1)
            out.append(torch.cat([torch.zeros(1), logp.gather(-1, row[1:, None])[:, 0]]))
    return torch.cat(out)


def step(trainer, batch, spec=PG):
    trainer.forward_backward(batch, spec, denominators(batch), "sampling")
    return trainer.optim_step(OPTIM)


@pytest.fixture(scope="module")
def lora_trainer(tiny_model_dir):
    return Trainer(init_params(tiny_model_dir, lora=LORA))


def test_fresh_adapter_leaves_the_base_logprobs(lora_trainer, tiny_model_dir):
    batch = make_batch()
    base = AutoModelForCausalLM.from_pretrained(tiny_model_dir, dtype=torch.float32).eval()
    assert lora_trainer.info["trainableParams"] < lora_trainer.info["numParams"] / 5
    assert torch.allclose(lora_trainer.compute_logprobs(batch["tokens"], batch["lengths"]), plain_logprobs(base, batch), atol=1e-5)


def test_a_step_changes_only_the_adapter_and_saves_a_plain_peft_adapter(lora_trainer, tiny_model_dir, tmp_path):
    batch = make_batch()
    before = {n: p.detach().clone() for n, p in lora_trainer.model.named_parameters()}
    step(lora_trainer, batch)
    changed = {n for n, p in lora_trainer.model.named_parameters() if not torch.equal(p, before[n])}
    assert changed and all("lora_" in n for n in changed)
    assert any("lora_B" in n for n in changed)

    files = lora_trainer.save(str(tmp_path / "ckpt"))
    assert {"adapter_config.json", "adapter_model.safetensors", "trainer_state.pt", "worker.json"} <= set(files)
    base = AutoModelForCausalLM.from_pretrained(tiny_model_dir, dtype=torch.float32)
    reloaded = PeftModel.from_pretrained(base, str(tmp_path / "ckpt")).eval()
    ours = lora_trainer.compute_logprobs(batch["tokens"], batch["lengths"])
    assert torch.allclose(ours, plain_logprobs(reloaded, batch), atol=1e-5)
    assert not torch.allclose(ours, plain_logprobs(AutoModelForCausalLM.from_pretrained(tiny_model_dir), batch), atol=1e-3)

    resumed = Trainer(init_params(tiny_model_dir, adapter=str(tmp_path / "ckpt")))  # LoRA training from a saved adapter
    assert resumed.info["trainableParams"] == lora_trainer.info["trainableParams"]
    assert torch.allclose(resumed.compute_logprobs(batch["tokens"], batch["lengths"]), ours, atol=1e-6)


def test_lora_kl_reference_is_the_base_with_the_adapter_disabled(lora_trainer, tiny_model_dir):
    batch = make_batch(seed=1)
    base = AutoModelForCausalLM.from_pretrained(tiny_model_dir, dtype=torch.float32).eval()
    now = lora_trainer.compute_logprobs(batch["tokens"], batch["lengths"])
    ref = plain_logprobs(base, batch)
    fb = lora_trainer.forward_backward(batch, {**PG, "kl": {"coef": 1.0, "estimator": "k1"}}, denominators(batch), "sampling")
    lora_trainer.optimizer.zero_grad(set_to_none=True)
    mask = batch["loss_mask"].clone()
    mask[(torch.cumsum(batch["lengths"], 0) - batch["lengths"]).long()] = 0
    expected = float(((now - ref) * mask).sum() / mask.sum())  # k1 = log π_θ − log π_ref
    assert abs(expected) > 1e-4
    assert fb["metrics"]["loss/kl_mean"] == pytest.approx(expected, abs=1e-5)


def test_export_weights(lora_trainer, tiny_qwen3_dir, tmp_path):
    assert lora_trainer.export_weights(str(tmp_path / "lora")) == "lora"
    assert (tmp_path / "lora" / "adapter_model.safetensors").is_file()
    full = Trainer(init_params(make_tiny_model(tmp_path / "llama", "llama")))  # tied embeddings
    assert full.export_weights(str(tmp_path / "full")) == "full"
    tensors = load_file(str(tmp_path / "full" / "model.safetensors"))
    state = full.model.state_dict()
    assert tensors.keys() == state.keys() and "lm_head.weight" in tensors
    assert all(torch.equal(tensors[k], state[k]) for k in state)


def test_a_full_fine_tuning_save_loads_in_plain_transformers(tmp_path):
    model_dir = make_tiny_model(tmp_path / "base", "qwen3")
    (model_dir / "chat_template.jinja").write_text("{{ messages }}")
    (model_dir / "tokenizer_config.json").write_text('{"model_max_length": 256}')
    trainer = Trainer(init_params(model_dir))
    batch = make_batch()
    step(trainer, batch)
    files = trainer.save(str(tmp_path / "ckpt"))
    assert {"config.json", "model.safetensors", "generation_config.json", "chat_template.jinja", "tokenizer_config.json",
            "trainer_state.pt", "worker.json"} <= set(files)
    assert Path(tmp_path / "ckpt" / "chat_template.jinja").read_text() == "{{ messages }}"
    reloaded = AutoModelForCausalLM.from_pretrained(tmp_path / "ckpt", dtype=torch.float32).eval()
    ours = trainer.compute_logprobs(batch["tokens"], batch["lengths"])
    assert torch.allclose(ours, plain_logprobs(reloaded, batch), atol=1e-5)
    assert not torch.allclose(ours, plain_logprobs(AutoModelForCausalLM.from_pretrained(model_dir), batch), atol=1e-3)
