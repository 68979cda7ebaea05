"""The trainer's maths on tiny models: packing isolates rows, chunked logprobs equal a plain
log-softmax, the gradient equals finite differences (fp64), a batch split over calls equals one
call, packed equals one row at a time, and AdamW with clipping moves the weights as it should."""

import copy
import math

import pytest
import torch
from transformers import AutoModelForCausalLM, GPTNeoXConfig, GPTNeoXForCausalLM

from rllm_worker.logprobs import token_logprobs
from rllm_worker.packing import micro_batches, plan
from rllm_worker.trainer import Trainer
from tiny_models import make_tiny_model

LENGTHS = [5, 1, 7, 3]
PPO_KL_ENTROPY = {"kind": "ppo", "clipLow": 0.2, "clipHigh": 0.28, "entropyCoef": 0.05, "aggregation": "seq-mean-token-mean",
                  "kl": {"coef": 0.1, "estimator": "k3"}, "tisCap": 2.0}


def init_params(model_dir, **overrides) -> dict:
    return {"model": str(model_dir), "device": "cpu", "dtype": None, "seed": 0, "lora": None, "adapter": None,
            "gradientCheckpointing": False, "microBatchTokens": 64, "logprobChunkTokens": 4, **overrides}


def make_batch(lengths=LENGTHS, seed=0, logprobs=None) -> dict:
    g = torch.Generator().manual_seed(seed)
    n = sum(lengths)
    sampling = logprobs - 0.1 * torch.rand(n, generator=g) if logprobs is not None else -torch.rand(n, generator=g) * 5
    return {
        "tokens": torch.randint(3, 500, (n,), generator=g, dtype=torch.int32),
        "lengths": torch.tensor(lengths, dtype=torch.int32),
        "loss_mask": (torch.rand(n, generator=g) > 0.2).float(),
        "advantages": torch.randn(n, generator=g),
        "sampling_logprobs": sampling.float(),
        "proximal_logprobs": sampling.float() + 0.05,
    }


def denominators(batch) -> dict:
    mask = batch["loss_mask"].clone()
    starts = torch.cumsum(batch["lengths"], 0) - batch["lengths"]
    mask[starts.long()] = 0
    per_row = torch.stack([m.sum() for m in torch.split(mask, batch["lengths"].tolist())])
    return {"tokens": float(mask.sum()), "rows": int((per_row > 0).sum())}


def grads(trainer) -> dict:
    return {k: v.clone() for k, v in trainer.gradients().items()}


@pytest.fixture(scope="module")
def arch_dirs(tmp_path_factory):
    """Tiny Qwen3, Llama and GPT-NeoX model directories."""
    dirs = {arch: make_tiny_model(tmp_path_factory.mktemp(f"arch-{arch}"), arch) for arch in ("qwen3", "llama")}
    torch.manual_seed(0)
    config = GPTNeoXConfig(vocab_size=512, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                           num_attention_heads=4, max_position_embeddings=256)
    dirs["neox"] = tmp_path_factory.mktemp("arch-neox")
    GPTNeoXForCausalLM(config).save_pretrained(dirs["neox"])
    return dirs


@pytest.mark.parametrize("attn", ["sdpa", "eager"])
@pytest.mark.parametrize("arch", ["qwen3", "llama", "neox"])
def test_packed_rows_never_attend_across_rows(arch, attn, arch_dirs):
    model = AutoModelForCausalLM.from_pretrained(arch_dirs[arch], dtype=torch.float32)
    model.set_attn_implementation(attn)
    batch = make_batch()
    (mb,) = micro_batches(batch["tokens"], batch["lengths"], 10_000, "cpu")
    with torch.no_grad():
        packed, packed_h = token_logprobs(model, mb.input_ids, mb.position_ids, 4, grad=False)
        alone = [token_logprobs(model, row[None].long(), torch.arange(len(row))[None], 4, grad=False)
                 for row in torch.split(batch["tokens"], LENGTHS)]
    assert torch.allclose(packed, torch.cat([a[0] for a in alone]), atol=1e-5)
    assert torch.allclose(packed_h, torch.cat([a[1] for a in alone]), atol=1e-5)


def test_chunked_logprobs_equal_a_full_vocab_log_softmax(tiny_model_dir):
    model = AutoModelForCausalLM.from_pretrained(tiny_model_dir, dtype=torch.float32)
    ids = torch.randint(3, 500, (1, 11))
    with torch.no_grad():
        logits = model(input_ids=ids, use_cache=False).logits[0, :-1].float()
        logp = torch.log_softmax(logits, -1)
        want = logp.gather(-1, ids[0, 1:, None])[:, 0]
        want_h = -(logp.exp() * logp).sum(-1)
        for chunk in (1, 3, 100):
            lp, h = token_logprobs(model, ids, torch.arange(11)[None], chunk, grad=False)
            assert lp[0] == 0 and h[0] == 0
            assert torch.allclose(lp[1:], want, atol=1e-5) and torch.allclose(h[1:], want_h, atol=1e-5)


def test_micro_batch_plan_fills_the_budget_in_order():
    assert plan([5, 1, 7, 3], 8) == [[0, 1], [2], [3]]
    assert plan([5, 1, 7, 3], 6) == [[0, 1], [2], [3]]  # 7 > budget: a micro-batch of its own
    assert plan([5, 1, 7, 3], 100) == [[0, 1, 2, 3]]
    with pytest.raises(ValueError, match="microBatchTokens"):
        plan([1], 0)


def exact_rms_norm(norm, x):
    """RMSNorm without the fp32 round trip transformers' norms make (it would bury a 1e-6 finite
    difference in rounding noise); analytic and numeric gradients both run through it."""
    return norm.weight * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + norm.variance_epsilon))


def test_gradient_equals_central_finite_differences_fp64(tiny_qwen3_dir):
    trainer = Trainer(init_params(tiny_qwen3_dir, dtype="float64"))
    norms = [m for m in trainer.model.modules() if type(m).__name__ == "Qwen3RMSNorm"]
    assert len(norms) == 2 * 4 + 1  # per layer: input, post-attention, q and k norms; the final norm
    for norm in norms:
        norm.forward = exact_rms_norm.__get__(norm)
    batch = make_batch(lengths=[4, 6])
    batch["sampling_logprobs"] = trainer.compute_logprobs(batch["tokens"], batch["lengths"]) - 0.02
    batch["proximal_logprobs"] = batch["sampling_logprobs"] + 0.01
    fb = lambda: trainer.forward_backward(batch, PPO_KL_ENTROPY, denominators(batch), "given")["loss"]  # noqa: E731
    fb()
    analytic = grads(trainer)
    params = dict(trainer.model.named_parameters())
    checks = [("model.layers.0.self_attn.q_proj.weight", (3, 5)), ("model.layers.1.mlp.down_proj.weight", (7, 2)),
              ("model.embed_tokens.weight", (int(batch["tokens"][2]), 1)), ("lm_head.weight", (int(batch["tokens"][5]), 9)),
              ("model.norm.weight", (4,))]
    eps = 1e-6
    for name, idx in checks:
        p = params[name]
        with torch.no_grad():
            p[idx] += eps
        up = fb()
        with torch.no_grad():
            p[idx] -= 2 * eps
        down = fb()
        with torch.no_grad():
            p[idx] += eps
        numeric = (up - down) / (2 * eps)
        assert analytic[name][idx].item() != 0
        assert analytic[name][idx].item() == pytest.approx(numeric, rel=1e-4, abs=1e-7), name


@pytest.fixture(scope="module")
def trainer(tiny_qwen3_dir):
    return Trainer(init_params(tiny_qwen3_dir))


@pytest.mark.parametrize("proximal", ["sampling", "current", "given"])
def test_one_call_equals_the_batch_split_over_two_calls(trainer, proximal):
    batch = make_batch()
    denom = denominators(batch)
    whole = trainer.forward_backward(batch, PPO_KL_ENTROPY, denom, proximal)
    g_whole = grads(trainer)
    trainer.optimizer.zero_grad(set_to_none=True)
    split = 2  # rows 0–1 and rows 2–3
    cut = sum(LENGTHS[:split])
    halves = [{k: v[:cut] for k, v in batch.items() if k != "lengths"}, {k: v[cut:] for k, v in batch.items() if k != "lengths"}]
    halves[0]["lengths"], halves[1]["lengths"] = batch["lengths"][:split], batch["lengths"][split:]
    parts = [trainer.forward_backward(h, PPO_KL_ENTROPY, denom, proximal) for h in halves]
    g_split = grads(trainer)
    trainer.optimizer.zero_grad(set_to_none=True)
    assert whole["loss"] == pytest.approx(parts[0]["loss"] + parts[1]["loss"], abs=1e-6)
    assert whole["metrics"]["loss/rows"] == 4 and whole["metrics"]["loss/tokens"] == denom["tokens"]
    for name, g in g_whole.items():
        assert torch.allclose(g, g_split[name], atol=1e-6), name
    assert any(g.abs().sum() > 0 for g in g_whole.values())


def test_packed_equals_one_row_at_a_time(trainer):
    batch = make_batch()
    denom = denominators(batch)
    results = {}
    for budget in (10_000, 1):  # everything in one packed row; every row alone
        trainer.params["microBatchTokens"] = budget
        fb = trainer.forward_backward(batch, PPO_KL_ENTROPY, denom, "sampling")
        results[budget] = (fb, grads(trainer), trainer.compute_logprobs(batch["tokens"], batch["lengths"]))
        trainer.optimizer.zero_grad(set_to_none=True)
    trainer.params["microBatchTokens"] = 64
    (fb_p, g_p, lp_p), (fb_1, g_1, lp_1) = results[10_000], results[1]
    assert torch.allclose(lp_p, lp_1, atol=1e-5)
    assert fb_p["loss"] == pytest.approx(fb_1["loss"], abs=1e-5)
    for name, g in g_p.items():
        assert torch.allclose(g, g_1[name], atol=1e-5), name


def test_adamw_clips_then_steps_with_decoupled_weight_decay(tiny_qwen3_dir):
    trainer = Trainer(init_params(tiny_qwen3_dir))
    batch = make_batch()
    trainer.forward_backward(batch, {"kind": "cross_entropy", "entropyCoef": 0, "aggregation": "token-mean"},
                             denominators(batch), "sampling")
    before = {n: p.detach().clone() for n, p in trainer.model.named_parameters()}
    g = grads(trainer)
    norm = math.sqrt(sum(float((x.double() ** 2).sum()) for x in g.values()))
    lr, wd, eps, max_norm = 0.01, 0.1, 1.0, norm / 4  # eps = 1 makes the first step's size depend on |g|
    out = trainer.optim_step({"lr": lr, "beta1": 0.9, "beta2": 0.999, "eps": eps, "weightDecay": wd, "maxGradNorm": max_norm})
    assert out["step"] == 1
    assert out["gradNorm"] == pytest.approx(norm, rel=1e-5)  # before clipping
    exempt = {"model.embed_tokens.weight", "lm_head.weight"}
    decayed = {n for n, p in trainer.model.named_parameters() if p.dim() >= 2 and n not in exempt}
    assert decayed and any(p.dim() == 1 for p in trainer.model.parameters())  # both kinds present
    for name, p in trainer.model.named_parameters():
        gc = g[name] * (max_norm / norm)  # clipped
        # first AdamW step: m̂ = g, v̂ = g², p ← p·(1 − lr·wd) − lr·g/(|g| + eps); wd only on the
        # linear layers' matrices (not norms, biases, embeddings or the head)
        decay = wd if name in decayed else 0.0
        want = before[name] * (1 - lr * decay) - lr * gc / (gc.abs() + eps)
        assert torch.allclose(p.detach(), want, atol=1e-6), name
    assert all(x.abs().sum() == 0 for x in trainer.gradients().values())  # zeroed after the step
    with pytest.raises(ValueError, match="optim_step: lr must be a finite number"):
        trainer.optim_step({"lr": float("nan"), "beta1": 0.9, "beta2": 0.999, "eps": 1e-8, "weightDecay": 0, "maxGradNorm": 1})


def test_forward_backward_refuses_malformed_batches(trainer):
    batch = make_batch()
    spec = {"kind": "cross_entropy", "entropyCoef": 0, "aggregation": "token-mean"}
    with pytest.raises(ValueError, match="lengths sum to"):
        trainer.forward_backward({**batch, "lengths": torch.tensor([5, 1], dtype=torch.int32)}, spec, denominators(batch), "sampling")
    with pytest.raises(ValueError, match="outside the model's vocabulary"):
        trainer.forward_backward({**batch, "tokens": batch["tokens"] + 600}, spec, denominators(batch), "sampling")
    with pytest.raises(ValueError, match="needs tensor proximal_logprobs"):
        trainer.forward_backward({k: v for k, v in batch.items() if k != "proximal_logprobs"}, spec, denominators(batch), "given")
    with pytest.raises(ValueError, match="proximal must be one of"):
        trainer.forward_backward(batch, spec, denominators(batch), "old")
    with pytest.raises(ValueError, match="denominators must be"):
        trainer.forward_backward(batch, spec, {"tokens": 3}, "sampling")
    trainer.optimizer.zero_grad(set_to_none=True)


def test_full_fine_tuning_kl_reference_is_the_starting_weights(tiny_qwen3_dir):
    trainer = Trainer(init_params(tiny_qwen3_dir))
    batch = make_batch()
    start = trainer.compute_logprobs(batch["tokens"], batch["lengths"])
    kl_only = {"kind": "cross_entropy", "entropyCoef": 0, "aggregation": "token-mean", "kl": {"coef": 1.0, "estimator": "k1"}}
    trainer.forward_backward(batch, {"kind": "cross_entropy", "entropyCoef": 0, "aggregation": "token-mean"},
                             denominators(batch), "sampling")
    trainer.optim_step({"lr": 0.01, "beta1": 0.9, "beta2": 0.999, "eps": 1e-8, "weightDecay": 0, "maxGradNorm": 0})
    now = trainer.compute_logprobs(batch["tokens"], batch["lengths"])
    fb = trainer.forward_backward(batch, kl_only, denominators(batch), "sampling")
    mask = batch["loss_mask"].clone()
    mask[(torch.cumsum(batch["lengths"], 0) - batch["lengths"]).long()] = 0
    # k1 = log π_θ − log π_ref, averaged over masked-in tokens
    expected = float(((now - start) * mask).sum() / mask.sum())
    assert fb["metrics"]["loss/kl_mean"] == pytest.approx(expected, abs=1e-5)
    assert abs(expected) > 1e-3


@pytest.mark.parametrize("lora", [None, {"rank": 4, "alpha": 8, "dropout": 0.0, "targetModules": "all-linear"}],
                         ids=["full", "lora"])
def test_gradient_checkpointing_gives_the_same_gradients(tiny_qwen3_dir, lora):
    plain, checkpointed = (Trainer(init_params(tiny_qwen3_dir, lora=lora, gradientCheckpointing=c)) for c in (False, True))
    assert checkpointed.model.is_gradient_checkpointing and not plain.model.is_gradient_checkpointing
    batch = make_batch()
    for t in (plain, checkpointed):
        t.forward_backward(batch, PPO_KL_ENTROPY, denominators(batch), "current")
    g, g_ckpt = grads(plain), grads(checkpointed)
    assert any(x.abs().sum() > 0 for x in g.values())
    for name in g:
        assert torch.allclose(g[name], g_ckpt[name], atol=1e-6), name
