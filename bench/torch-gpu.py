#!/usr/bin/env python3
"""GPU benchmark of the torch worker (issues 15 and 16, "Benchmarks", the GPU bullets): the worker's
own code (`rllm_worker` from python/, imported, not reimplemented) on random-initialised Qwen2.5-0.5B
and -1.5B architectures, bf16 on CUDA, one run of ≤ 9 minutes that writes JSON. See bench/torch-gpu.md.

Models: built from the configs below with transformers' Qwen2ForCausalLM, random init (std 0.02),
then `save_pretrained` into a temporary directory, so `load_model`'s real path runs. The final RMSNorm
weight is set to g = logit_std / (0.02·√hidden) so that the logits have std ≈ `--logit-std` (default
5) and next-token distributions are peaked as a trained model's are, instead of near-uniform over
151,936 ids (which would make the bf16 logprob mismatch look smaller than it is). Throughput does
not depend on it.

Parts, each case in try/except (its error goes in the JSON, the run goes on), in the order of
PARTS (the most wanted numbers first; `extras` last):
  update    Trainer.forward_backward (PPO, proximal = sampling) + Trainer.optim_step on one packed
            batch of `step_tokens` tokens (rows of ~1k tokens, the first 128 of each masked out as
            the prompt; advantages ~ N(0, 1) per row; sampling logprobs = the trainer's own
            compute_logprobs + N(0, 0.05²) noise, so ratios sit near 1 as on-policy RL's do).
            `warmup` steps untimed, then `timed` steps:  tokens/s = step_tokens / mean step time.
            MFU = tokens/s · F / peak, model FLOPs per token (PaLM's convention; recomputation
            under gradient checkpointing is not counted; LoRA counted like full fine-tuning):
                F      = 6·N_nonembedding + 12·layers·hidden·s      (s = mean row length)
                F_head = F + 6·vocab·hidden                         (the tied LM head's matmul too)
            Full fine-tuning and LoRA (rank 32, alpha 64, all-linear), gradient checkpointing off;
            then (last, if the budget allows) checkpointing on, and a micro-batch size sweep.
  fsdp      the update case on fsdp.py's DistributedTrainer in a world of one process (FSDP2 on)
            beside the plain Trainer's (off); then the sharded trainer's export_weights.
  publish   the trainer's export_weights into a fresh directory under /dev/shm, then the in-process
            sampler's set_weights of it: full weights, then the LoRA adapter; min/median of repeats.
            (fsdp and publish: torch_gpu_scale.py.)
  sampling  Engine (generate.py) on `batch` distinct random prompts of 128 tokens, 256 new tokens,
            temperature 1, no stop token: tokens/s = generated tokens / wall (prefill included);
            ttft = time from `add` to the end of the engine step that sampled a sequence's first
            token (that step also runs one decode); decode tokens/s = tokens after the first step /
            the time after it. One small untimed generation first warms up each model.
  mismatch  The batch-64 sampling run's tokens: the Engine's logprob of each sampled token (bf16
            decode with a KV cache) against Trainer.compute_logprobs on the same prompt+completion
            (bf16, packed, no cache), same weights: δ = trainer − sampler; mean and max |δ|,
            mean k3 = exp(δ) − δ − 1 (≈ KL(sampler‖trainer) per token).

`--budget-s` (default 450) bounds the whole run: a case that would start after it is skipped and
listed as such. The JSON is rewritten after every case, so a killed run still leaves its results.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import shutil
import sys
import tempfile
import time
import traceback
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))
sys.dont_write_bytecode = True  # no bench/__pycache__ from importing torch_gpu_scale (bench/ is not a package)

from rllm_worker.generate import Engine, SamplingParams  # noqa: E402
from rllm_worker.model import load_model  # noqa: E402
from rllm_worker.trainer import Trainer  # noqa: E402
from torch_gpu_scale import free, part_fsdp, part_publish, scale_table, sync  # noqa: E402  (bench/ is sys.path[0])

H200_BF16_DENSE_TFLOPS = 989.0
ANCHORS = {
    "update_mfu_plain_pytorch_eager_1.5b": 0.51,
    "update_mfu_target": 0.55,
    "sampling_tok_s_hf_generate_b64": 3300,
    "sampling_tok_s_static_cache_compile_b64": 12000,
    "sampling_tok_s_static_cache_compile_b256": 23700,
    "sampling_tok_s_target_b256": 50000,
}

# The real models' config.json values (Qwen/Qwen2.5-0.5B, Qwen/Qwen2.5-1.5B); Qwen2 has q/k/v biases.
QWEN25 = dict(
    vocab_size=151936, max_position_embeddings=32768, rope_parameters={"rope_type": "default", "rope_theta": 1000000.0},
    rms_norm_eps=1e-6, tie_word_embeddings=True, use_sliding_window=False, hidden_act="silu",
    initializer_range=0.02, bos_token_id=151643, eos_token_id=151643,
)
ARCHS = {
    "qwen2.5-0.5b": dict(QWEN25, hidden_size=896, intermediate_size=4864, num_hidden_layers=24,
                         num_attention_heads=14, num_key_value_heads=2, max_window_layers=24),
    "qwen2.5-1.5b": dict(QWEN25, hidden_size=1536, intermediate_size=8960, num_hidden_layers=28,
                         num_attention_heads=12, num_key_value_heads=2, max_window_layers=28),
    # tiny: init std 0.2, else its 2 thin layers barely move the residual stream and the tied head
    # predicts the input token with certainty (a degenerate regime for the mismatch part)
    "tiny": dict(QWEN25, vocab_size=512, max_position_embeddings=1024, hidden_size=64, intermediate_size=128,
                 num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, max_window_layers=2,
                 initializer_range=0.2, bos_token_id=1, eos_token_id=2),
}

# Sizes of the real run, and of the tiny smoke run (--tiny / --quick).
SIZES = {
    "full": dict(step_tokens=32768, row_len=1024, prompt_len=128, micro_batch_tokens=8192, logprob_chunk=2048,
                 warmup=2, timed=3, lora_rank=32, sample_batches=[64, 256], sample_prompt=128, sample_new=256,
                 sweep_micro=[2048, 4096, 16384], publish_repeats=4, min_case_s=15.0),
    "tiny": dict(step_tokens=1024, row_len=128, prompt_len=16, micro_batch_tokens=512, logprob_chunk=64,
                 warmup=1, timed=2, lora_rank=4, sample_batches=[4, 8], sample_prompt=16, sample_new=8,
                 sweep_micro=[256], publish_repeats=3, min_case_s=0.0),
}
PPO = {"kind": "ppo", "clipLow": 0.2, "clipHigh": 0.28, "tisCap": None, "kl": None, "entropyCoef": 0.0,
       "aggregation": "token-mean"}
ADAMW = {"lr": 1e-6, "beta1": 0.9, "beta2": 0.999, "eps": 1e-8, "weightDecay": 0.0, "maxGradNorm": 1.0}
MISMATCH_BATCH = 64  # the sampling run whose tokens the mismatch part scores (else the smallest batch)


# ---- context: arguments, results, budget, model directories ----------------------------------------


class Bench:
    def __init__(self, args):
        self.args = args
        self.sizes = SIZES["tiny" if args.tiny else "full"]
        self.models = ["tiny"] if args.tiny else args.models
        self.dtype = args.dtype or ("bfloat16" if args.device == "cuda" else "float32")
        self.started = time.monotonic()
        self.deadline = self.started + args.budget_s
        self.tmp = tempfile.mkdtemp(prefix="rllm-torch-gpu-", dir="/dev/shm" if os.access("/dev/shm", os.W_OK) else None)
        self.dirs: dict[str, str] = {}
        self.facts: dict[str, dict] = {}
        self.samples: dict[str, dict] = {}  # model → the batch-64 sampling run's tokens and logprobs
        self.results = {"meta": meta(args, self), "anchors": ANCHORS, "update": [], "fsdp": [], "publish": [],
                        "sampling": [], "mismatch": [], "skipped": [], "errors": []}  # extras' rows go in update

    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def run(self, part: str, case: dict, fn) -> dict:
        """Runs one case: skipped past the budget, its error recorded on failure; JSON rewritten."""
        row = {**case}
        left = self.deadline - time.monotonic()
        if left < self.sizes["min_case_s"] or left <= 0:
            row.update(status="skipped", reason=f"budget: {self.args.budget_s:.0f} s spent ({left:.0f} s left)")
            self.results["skipped"].append({"part": part, **case})
        else:
            t0 = time.monotonic()
            try:
                row.update(fn())
                row["status"] = "ok"
            except Exception as e:  # noqa: BLE001 — a benchmark records every failure and goes on
                row.update(status="error", error=f"{type(e).__name__}: {e}")
                self.results["errors"].append({"part": part, **case, "error": row["error"],
                                               "traceback": traceback.format_exc()[-4000:]})
            finally:
                free()
            row["case_s"] = round(time.monotonic() - t0, 2)
        print(f"[{self.elapsed():6.1f}s] {part:8s} {json.dumps(case)} → {row['status']}"
              + (f" ({row.get('error') or row.get('reason')})" if row["status"] != "ok" else ""), flush=True)
        self.results[part].append(row)
        self.write()
        return row

    def write(self) -> None:
        self.results["wall_s"] = round(self.elapsed(), 2)
        out = Path(self.args.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = out.with_suffix(out.suffix + ".tmp")
        tmp.write_text(json.dumps(finite(self.results), indent=2, allow_nan=False, default=str))
        tmp.replace(out)

    def model_dir(self, name: str) -> str:
        if name not in self.dirs:
            self.dirs[name], self.facts[name] = build_model(name, os.path.join(self.tmp, name), self.args.device,
                                                            self.dtype, self.args.logit_std)
            self.results["meta"]["models"][name] = self.facts[name]
        return self.dirs[name]

    def trainer(self, name: str, lora: bool = False, checkpointing: bool = False, micro: int | None = None,
                cls: type[Trainer] = Trainer) -> Trainer:
        s = self.sizes
        return cls({
            "model": self.model_dir(name), "device": self.args.device, "dtype": self.dtype, "seed": 0,
            "lora": {"rank": s["lora_rank"], "alpha": 2 * s["lora_rank"], "dropout": 0.0, "targetModules": "all-linear"}
            if lora else None,
            "adapter": None, "gradientCheckpointing": checkpointing,
            "microBatchTokens": micro or s["micro_batch_tokens"], "logprobChunkTokens": s["logprob_chunk"],
        })

    def close(self) -> None:
        shutil.rmtree(self.tmp, ignore_errors=True)


def meta(args, bench: Bench) -> dict:
    import peft
    import transformers

    cuda = args.device == "cuda" and torch.cuda.is_available()
    return {
        "args": vars(args), "dtype": bench.dtype, "sizes": bench.sizes, "python": platform.python_version(),
        "torch": torch.__version__, "transformers": transformers.__version__, "peft": peft.__version__,
        "device_name": torch.cuda.get_device_name() if cuda else platform.processor() or "cpu",
        "cuda": torch.version.cuda if cuda else None,
        "tmp_dir": bench.tmp, "tmp_free_gib": round(shutil.disk_usage(bench.tmp).free / 2**30, 1),
        "peak_tflops": args.peak_tflops if cuda else None,
        "flops_formula": {
            "mfu": "tokens/s * (6*N_nonembedding + 12*layers*hidden*s) / peak; s = mean row length (PaLM model "
                   "FLOPs: no causal halving, recomputation not counted, LoRA counted as full fine-tuning)",
            "mfu_with_head": "tokens/s * (6*N_nonembedding + 6*vocab*hidden + 12*layers*hidden*s) / peak "
                             "(the tied LM head's matmul counted too)",
        },
        "loss": PPO, "optim": ADAMW, "models": {},
    }


def finite(x):
    """`x` with every non-finite float as None (JSON has no NaN or Infinity)."""
    if isinstance(x, float):
        return x if math.isfinite(x) else None
    if isinstance(x, dict):
        return {k: finite(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [finite(v) for v in x]
    return x


def peak_memory_gib(device: str) -> float | None:
    return round(torch.cuda.max_memory_allocated() / 2**30, 2) if device == "cuda" else None


def reset_peak(device: str) -> None:
    if device == "cuda":
        torch.cuda.reset_peak_memory_stats()


# ---- models --------------------------------------------------------------------------------------


def build_model(name: str, directory: str, device: str, dtype: str, logit_std: float) -> tuple[str, dict]:
    """A random-initialised Qwen2 of architecture `name`, saved with save_pretrained; returns the
    directory and its facts (config, parameter counts, the final-norm gain)."""
    from transformers import Qwen2Config, Qwen2ForCausalLM

    t0 = time.monotonic()
    config = Qwen2Config(**ARCHS[name])
    torch.manual_seed(0)
    previous = torch.get_default_dtype()
    torch.set_default_dtype(getattr(torch, dtype))
    try:
        with torch.device(device):  # initialise on the GPU: a 1.5B model's init on the CPU takes long
            model = Qwen2ForCausalLM(config)
    finally:
        torch.set_default_dtype(previous)
    with torch.no_grad():
        probe = torch.randint(0, config.vocab_size, (1, 256), generator=torch.Generator().manual_seed(0)).to(device)
        gain = logit_std / float(model(probe).logits.float().std(-1).mean())  # final-norm weight 1 at init
        model.model.norm.weight.fill_(gain)
        z = model(probe).logits[0].float()
    regime = {"final_norm_gain": round(gain, 3), "logit_std": round(float(z.std(-1).mean()), 3),
              "mean_max_prob": round(float(z.softmax(-1).max(-1).values.mean()), 4),
              "mean_entropy": round(float(-(z.softmax(-1) * z.log_softmax(-1)).sum(-1).mean()), 3)}
    model.save_pretrained(directory)
    unique = {id(p): p for p in model.parameters()}.values()
    total = sum(p.numel() for p in unique)
    embedding = config.vocab_size * config.hidden_size
    facts = {
        "config": {k: v for k, v in ARCHS[name].items()},
        "params_total": total, "params_embedding": embedding, "params_nonembedding": total - embedding,
        "init_std_check": round(float(model.model.layers[0].mlp.up_proj.weight.detach().float().std()), 5), **regime,
        "build_s": round(time.monotonic() - t0, 2),
    }
    del model
    free()
    return directory, facts


def flops_per_token(facts: dict, mean_row_len: float) -> tuple[float, float]:
    """(F, F_head) of the header: model FLOPs per trained token."""
    c = facts["config"]
    attention = 12 * c["num_hidden_layers"] * c["hidden_size"] * mean_row_len
    f = 6 * facts["params_nonembedding"] + attention
    return f, f + 6 * c["vocab_size"] * c["hidden_size"]


# ---- part 1: update throughput ---------------------------------------------------------------------


def make_batch(sizes: dict, vocab: int, seed: int = 0) -> dict[str, torch.Tensor]:
    """A flat batch of `step_tokens` tokens: rows of row_len ± 25% (the last one takes the rest), each
    row's first `prompt_len` tokens masked out, advantages ~ N(0, 1) per row."""
    g = torch.Generator().manual_seed(seed)
    total, n, lo = sizes["step_tokens"], sizes["row_len"], sizes["row_len"] * 3 // 4
    lengths = []
    while total - sum(lengths) > 0:
        lengths.append(min(int(torch.randint(lo, n + n // 4 + 1, (), generator=g)), total - sum(lengths)))
    if len(lengths) > 1 and lengths[-1] <= sizes["prompt_len"]:
        lengths[-2] += lengths.pop()  # no row without completion tokens
    lengths_t = torch.tensor(lengths, dtype=torch.int32)
    tokens = torch.randint(0, vocab, (total,), generator=g, dtype=torch.int32)
    mask = torch.cat([(torch.arange(k) >= sizes["prompt_len"]).float() for k in lengths])
    advantages = torch.cat([torch.full((k,), float(torch.randn((), generator=g))) for k in lengths])
    return {"tokens": tokens, "lengths": lengths_t, "loss_mask": mask, "advantages": advantages}


def update_case(bench: Bench, name: str, trainer: Trainer) -> dict:
    """The update measurement of the header on `trainer` (a Trainer or a DistributedTrainer)."""
    s, device = bench.sizes, bench.args.device
    batch = make_batch(s, trainer.info["vocabSize"])
    lp = trainer.compute_logprobs(batch["tokens"], batch["lengths"])
    batch["sampling_logprobs"] = lp + 0.05 * torch.randn(lp.shape, generator=torch.Generator().manual_seed(1))
    denominators = {"tokens": float(batch["loss_mask"].sum()), "rows": int(batch["lengths"].numel())}
    reset_peak(device)
    fb_s, step_s = [], []
    for _ in range(s["warmup"] + s["timed"]):
        sync(device)
        t0 = time.perf_counter()
        fb = trainer.forward_backward(batch, PPO, denominators, "sampling")
        t1 = time.perf_counter()  # forward_backward ends on .item(): the GPU is done
        opt = trainer.optim_step(ADAMW)
        sync(device)
        fb_s.append(t1 - t0)
        step_s.append(time.perf_counter() - t0)
    timed, timed_fb = step_s[s["warmup"]:], fb_s[s["warmup"]:]
    mean_step = sum(timed) / len(timed)
    tok_s = s["step_tokens"] / mean_step
    f, f_head = flops_per_token(bench.facts[name], float(batch["lengths"].float().mean()))
    peak = bench.args.peak_tflops * 1e12 if device == "cuda" else None
    out = {
        "tokens_per_step": s["step_tokens"], "rows_per_step": denominators["rows"],
        "mean_row_len": round(float(batch["lengths"].float().mean()), 1), "trainable_params": trainer.info["trainableParams"],
        "param_dtype": str(next(trainer.model.parameters()).dtype).removeprefix("torch."),
        "tok_s": round(tok_s, 1), "step_s": round(mean_step, 4), "forward_backward_s": round(sum(timed_fb) / len(timed_fb), 4),
        "optim_step_s": round(mean_step - sum(timed_fb) / len(timed_fb), 4),
        "step_s_all": [round(t, 4) for t in step_s], "warmup_steps": s["warmup"],
        "flops_per_token": f, "mfu": round(tok_s * f / peak, 4) if peak else None,
        "mfu_with_head": round(tok_s * f_head / peak, 4) if peak else None,
        "peak_memory_gib": peak_memory_gib(device),
        "loss": fb["loss"], "clip_fraction": fb["metrics"]["loss/clip_fraction"], "grad_norm": opt["gradNorm"],
    }
    if not all(math.isfinite(v) for v in (fb["loss"], opt["gradNorm"])):
        raise FloatingPointError(f"non-finite loss {fb['loss']} or gradient norm {opt['gradNorm']}")
    return out


def update_run(bench: Bench, name: str, lora: bool, checkpointing: bool, micro: int | None = None) -> dict:
    spec = {"model": name, "mode": "lora" if lora else "full", "gradient_checkpointing": checkpointing,
            "micro_batch_tokens": micro or bench.sizes["micro_batch_tokens"]}
    return bench.run("update", spec, lambda: update_case(bench, name, bench.trainer(name, lora, checkpointing, micro)))


def part_update(bench: Bench) -> None:
    """Full fine-tuning and LoRA of every model, gradient checkpointing off."""
    for name in bench.models:
        for lora in (False, True):
            update_run(bench, name, lora, False)


def part_update_extras(bench: Bench) -> None:
    """Gradient checkpointing on, then a micro-batch sweep of the largest model's full fine-tuning."""
    for name in bench.models:
        for lora in (False, True):
            update_run(bench, name, lora, True)
    for micro in bench.sizes["sweep_micro"]:
        update_run(bench, bench.models[-1], False, False, micro)


# ---- part 2: sampling throughput ----------------------------------------------------------------


def generate(engine: Engine, request_id: int, prompts: list[list[int]], new_tokens: int, device: str) -> dict:
    """One request of len(prompts) sequences through the engine until it ends; timings and outputs."""
    params = SamplingParams(max_tokens=new_tokens, temperature=1.0, max_seq_len=len(prompts[0]) + new_tokens)
    seeds = list(range(request_id * 100_000, request_id * 100_000 + len(prompts)))
    sync(device)
    t0 = time.perf_counter()
    request = engine.add(request_id, prompts, seeds, params)
    first: dict[int, float] = {}
    steps, first_step_end = 0, None
    while engine.has_work():
        result = engine.step()  # ends on .tolist() of the sampled tokens: the GPU is done
        now = time.perf_counter() - t0
        steps += 1
        first_step_end = first_step_end or now
        for phase in result.sampled:
            for rec in phase:
                if rec.pos == 0:
                    first[rec.seq] = now
    sync(device)
    wall = time.perf_counter() - t0
    generated = sum(len(q.tokens) for q in request.seqs)
    after_first = generated - sum(min(len(q.tokens), 2) for q in request.seqs)  # the first step samples two each
    return {
        "wall_s": wall, "steps": steps, "generated": generated, "first": first, "first_step_s": first_step_end,
        "decode_tok_s": after_first / (wall - first_step_end) if wall > first_step_end else None,
        "seqs": request.seqs,
    }


def random_prompts(n: int, length: int, vocab: int, seed: int) -> list[list[int]]:
    g = torch.Generator().manual_seed(seed)
    return torch.randint(3, vocab, (n, length), generator=g).tolist()


def sampling_case(bench: Bench, engine: Engine, name: str, batch: int, request_id: int) -> dict:
    s, device = bench.sizes, bench.args.device
    vocab = bench.facts[name]["config"]["vocab_size"]
    reset_peak(device)
    run = generate(engine, request_id, random_prompts(batch, s["sample_prompt"], vocab, request_id), s["sample_new"], device)
    ttft = sorted(run["first"].values())
    if batch == MISMATCH_BATCH or batch == min(s["sample_batches"]):
        bench.samples[name] = {"prompts": [q.prompt for q in run["seqs"]], "tokens": [q.tokens for q in run["seqs"]],
                               "logprobs": [q.logprobs for q in run["seqs"]], "batch": batch}
    return {
        "generated_tokens": run["generated"], "wall_s": round(run["wall_s"], 3), "tok_s": round(run["generated"] / run["wall_s"], 1),
        "decode_tok_s": round(run["decode_tok_s"], 1) if run["decode_tok_s"] else None,
        "ttft_mean_s": round(sum(ttft) / len(ttft), 4), "ttft_max_s": round(ttft[-1], 4),
        "engine_steps": run["steps"], "step_ms_mean": round(1000 * run["wall_s"] / run["steps"], 2),
        "peak_memory_gib": peak_memory_gib(device),
    }


def part_sampling(bench: Bench) -> None:
    s = bench.sizes
    for name in bench.models:
        state: dict = {}

        def warm(name=name, state=state):
            model = load_model(bench.model_dir(name), bench.args.device, bench.dtype, trainable=False).model
            state["engine"] = Engine(model, max_batch=max(s["sample_batches"]))
            t0 = time.perf_counter()
            generate(state["engine"], 1, random_prompts(8, s["sample_prompt"], bench.facts[name]["config"]["vocab_size"], 1), 8,
                     bench.args.device)
            return {"warmup_s": round(time.perf_counter() - t0, 3)}

        if bench.run("sampling", {"model": name, "batch": "warm-up"}, warm)["status"] != "ok":
            continue
        for i, batch in enumerate(s["sample_batches"]):
            bench.run("sampling", {"model": name, "batch": batch, "prompt": s["sample_prompt"], "new_tokens": s["sample_new"]},
                      lambda batch=batch, i=i: sampling_case(bench, state["engine"], name, batch, 2 + i))
        state.clear()
        free()


# ---- part 3: sampler-vs-trainer logprob mismatch -------------------------------------------------------


def mismatch_case(bench: Bench, name: str) -> dict:
    samples = bench.samples.get(name)
    if samples is None:  # the sampling part did not run for this model: sample here
        model = load_model(bench.model_dir(name), bench.args.device, bench.dtype, trainable=False).model
        s = bench.sizes
        run = generate(Engine(model), 7, random_prompts(MISMATCH_BATCH, s["sample_prompt"],
                                                        bench.facts[name]["config"]["vocab_size"], 7),
                       s["sample_new"], bench.args.device)
        samples = {"prompts": [q.prompt for q in run["seqs"]], "tokens": [q.tokens for q in run["seqs"]],
                   "logprobs": [q.logprobs for q in run["seqs"]], "batch": MISMATCH_BATCH}
        del model, run
        free()
    trainer = bench.trainer(name)
    rows = [p + t for p, t in zip(samples["prompts"], samples["tokens"])]
    lengths = torch.tensor([len(r) for r in rows], dtype=torch.int32)
    flat = trainer.compute_logprobs(torch.tensor([t for r in rows for t in r], dtype=torch.int32), lengths)
    trainer_lp, start = [], 0
    for p, t in zip(samples["prompts"], samples["tokens"]):
        trainer_lp.append(flat[start + len(p) : start + len(p) + len(t)])
        start += len(p) + len(t)
    ours = torch.cat(trainer_lp).double()
    theirs = torch.tensor([x for lps in samples["logprobs"] for x in lps], dtype=torch.float64)
    delta = ours - theirs
    k3 = torch.exp(delta) - delta - 1
    del trainer
    return {
        "from_sampling_batch": samples["batch"], "tokens": int(delta.numel()),
        "mean_abs": float(delta.abs().mean()), "max_abs": float(delta.abs().max()),
        "p99_abs": float(delta.abs().quantile(0.99)), "mean_signed": float(delta.mean()), "mean_k3": float(k3.mean()),
        "mean_sampled_logprob": float(theirs.mean()),
    }


def part_mismatch(bench: Bench) -> None:
    for name in bench.models:
        bench.run("mismatch", {"model": name}, lambda name=name: mismatch_case(bench, name))


# ---- table and main ------------------------------------------------------------------------------


def fmt(v, spec: str = "") -> str:
    return "-" if v is None else format(v, spec)


def table(results: dict) -> str:
    lines = ["update (forward_backward + optim_step)",
             f"  {'model':13s} {'mode':5s} {'gc':3s} {'micro':>6s} {'tok/s':>9s} {'MFU':>6s} {'MFU+hd':>6s} {'step s':>7s} {'GiB':>6s}  status"]
    for r in results["update"]:
        lines.append(f"  {r['model']:13s} {r['mode']:5s} {'on' if r['gradient_checkpointing'] else 'off':3s} "
                     f"{r['micro_batch_tokens']:6d} {fmt(r.get('tok_s'), ',.0f'):>9s} {fmt(r.get('mfu'), '.3f'):>6s} "
                     f"{fmt(r.get('mfu_with_head'), '.3f'):>6s} {fmt(r.get('step_s'), '.3f'):>7s} "
                     f"{fmt(r.get('peak_memory_gib'), '.1f'):>6s}  {r['status']}")
    lines.append(f"  anchors: plain PyTorch eager MFU {ANCHORS['update_mfu_plain_pytorch_eager_1.5b']} at 1.5B; "
                 f"target ≥ {ANCHORS['update_mfu_target']}")
    lines += ["sampling (Engine, temperature 1, no stop)",
              f"  {'model':13s} {'batch':>7s} {'tok/s':>9s} {'decode':>9s} {'ttft s':>7s} {'ms/step':>8s}  status"]
    for r in results["sampling"]:
        if r["batch"] == "warm-up":
            if r["status"] != "ok":
                lines.append(f"  {r['model']:13s} warm-up {r['status']}: {r.get('error') or r.get('reason')}")
            continue
        lines.append(f"  {r['model']:13s} {r['batch']:7d} {fmt(r.get('tok_s'), ',.0f'):>9s} "
                     f"{fmt(r.get('decode_tok_s'), ',.0f'):>9s} {fmt(r.get('ttft_max_s'), '.3f'):>7s} "
                     f"{fmt(r.get('step_ms_mean'), '.1f'):>8s}  {r['status']}")
    lines.append("  anchors: HF generate 3.3k tok/s at b64; static cache + torch.compile 12.0k at b64, 23.7k at b256; "
                 "target ≥ 50k at b256")
    lines += ["mismatch (trainer − sampler logprob, sampled tokens)",
              f"  {'model':13s} {'tokens':>7s} {'mean|δ|':>9s} {'max|δ|':>9s} {'k3':>10s} {'mean lp':>8s}  status"]
    for r in results["mismatch"]:
        lines.append(f"  {r['model']:13s} {fmt(r.get('tokens'), 'd'):>7s} {fmt(r.get('mean_abs'), '.2e'):>9s} "
                     f"{fmt(r.get('max_abs'), '.2e'):>9s} {fmt(r.get('mean_k3'), '.2e'):>10s} "
                     f"{fmt(r.get('mean_sampled_logprob'), '.2f'):>8s}  {r['status']}")
    lines += scale_table(results)
    for e in results["errors"]:
        lines.append(f"error: {e['part']} {e.get('model')}: {e['error'][:300]}")
    if results["skipped"]:
        lines.append(f"skipped (budget): {len(results['skipped'])} case(s): "
                     + "; ".join(json.dumps(s) for s in results["skipped"]))
    lines.append(f"wall {results['wall_s']} s")
    return "\n".join(lines)


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", default="bench/results/torch-gpu.json", help="the JSON file to write")
    p.add_argument("--budget-s", type=float, default=450.0, help="cases that would start past this many seconds are skipped")
    p.add_argument("--device", choices=["cuda", "cpu"], default=None, help="default cuda (cpu with --quick)")
    p.add_argument("--dtype", choices=["bfloat16", "float32"], default=None, help="default bf16 on cuda, fp32 on cpu")
    p.add_argument("--tiny", action="store_true", help="a tiny Qwen2 and tiny sizes: checks the script end to end")
    p.add_argument("--quick", action="store_true", help="shorthand for --device cpu --tiny")
    p.add_argument("--models", nargs="+", default=["qwen2.5-0.5b", "qwen2.5-1.5b"], choices=[k for k in ARCHS if k != "tiny"])
    p.add_argument("--parts", nargs="+", default=list(PARTS), choices=list(PARTS),
                   help="run in this order whatever the order given; extras: checkpointing on, micro-batch sweep")
    p.add_argument("--peak-tflops", type=float, default=H200_BF16_DENSE_TFLOPS, help="the GPU's dense bf16 peak (H200: 989)")
    p.add_argument("--logit-std", type=float, default=5.0, help="std of the random model's logits (final-norm gain)")
    args = p.parse_args(argv)
    if args.quick:
        args.tiny = True
        args.device = args.device or "cpu"
    args.device = args.device or "cuda"
    if args.device == "cuda" and not torch.cuda.is_available():
        p.error("--device cuda but torch sees no CUDA GPU (use --quick for the CPU smoke run)")
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()  # keep the output short: the device tool returns its last 12k characters
    hf_logging.set_verbosity_error()
    if args.device == "cpu":
        torch.set_num_threads(min(2, os.cpu_count() or 1))
    bench = Bench(args)
    print(f"torch-gpu bench: {bench.results['meta']['device_name']}, torch {torch.__version__}, {bench.dtype}, "
          f"models {bench.models}, budget {args.budget_s:.0f} s → {args.out}", flush=True)
    try:
        for part, run in PARTS.items():
            if part in args.parts:
                run(bench)
    finally:
        bench.write()
        bench.results["table"] = table(bench.results)
        bench.write()
        bench.close()
    print(bench.results["table"], flush=True)
    return 0


# The order of a run: the plain update (also fsdp's "off" rows), then issue 16's numbers, then the rest.
PARTS = {
    "update": part_update,
    "fsdp": lambda bench: part_fsdp(bench, update_case, update_run),
    "publish": part_publish,
    "sampling": part_sampling,
    "mismatch": part_mismatch,
    "extras": part_update_extras,
}

if __name__ == "__main__":
    sys.exit(main())
