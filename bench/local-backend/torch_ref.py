#!/usr/bin/python3
"""PyTorch CPU reference for bench/local-backend.ts: the local backend's GPT, step for step.

Run with the Debian interpreter (python3-torch + libopenblas0-pthread), not a pyenv python:

    /usr/bin/python3 bench/local-backend/torch_ref.py --threads 1 < spec.json > result.json

spec.json (written by bench/local-backend.ts): {"train": [{"name", "B", "T", "model": {...}}],
"sample": [{"name", "batch", "prompt", "tokens", "model": {...}}], "warmup", "reps"}; model is the
GptConfig (vocabSize, dModel, nLayers, nHeads, maxSeqLen, mlpRatio, positional).

The same architecture as src/backends/local/model.ts: pre-LayerNorm blocks (eps 1e-5), fused
qkv Linear with bias, RoPE (rotate-half, theta 10000) on q and k or learned positions, causal
softmax attention, tanh-GELU MLP, tied head (logits = LN_f(x) . wte^T). The training step is
the one bench/local-backend.ts times for ours: zero grads, forward, cross-entropy over positions
1..T-1 (token mean), backward, global grad-norm clip at 1, AdamW (lr 1e-3, betas 0.9/0.95, weight
decay 0.1 on the linear weights only). Sampling: prefill the prompt, then one token per forward
with a KV cache (like generate.ts), sampling from softmax at temperature 1 and computing the
token's logprob; "nocache" reruns the full sequence every step (the naive loop).

--threads N sets OMP_NUM_THREADS, OPENBLAS_NUM_THREADS and torch.set_num_threads(N) before
torch is imported; --threads 0 leaves the defaults alone.
"""

import argparse
import json
import math
import os
import sys
import time


def parse():
    p = argparse.ArgumentParser()
    p.add_argument("--threads", type=int, default=0)
    return p.parse_args()


def main():
    a = parse()
    if a.threads:
        os.environ["OMP_NUM_THREADS"] = str(a.threads)
        os.environ["OPENBLAS_NUM_THREADS"] = str(a.threads)
    spec = json.load(sys.stdin)
    try:
        import torch
        import torch.nn as nn
        import torch.nn.functional as F
    except ImportError as e:
        print(json.dumps({"error": f"cannot import torch: {e}"}))
        return
    if a.threads:
        torch.set_num_threads(a.threads)
    info = {
        "torch": torch.__version__,
        "threads_requested": a.threads or "default",
        "torch_num_threads": torch.get_num_threads(),
        "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS"),
        "OPENBLAS_NUM_THREADS": os.environ.get("OPENBLAS_NUM_THREADS"),
        "OPENBLAS_CORETYPE": os.environ.get("OPENBLAS_CORETYPE"),
        "OPENBLAS_L2_SIZE": os.environ.get("OPENBLAS_L2_SIZE"),
    }
    try:
        import ctypes

        ob = ctypes.CDLL("libopenblas.so.0")
        ob.openblas_get_corename.restype = ctypes.c_char_p
        info["openblas_corename"] = ob.openblas_get_corename().decode()
        info["openblas_num_threads"] = ob.openblas_get_num_threads()
    except OSError as e:  # pragma: no cover
        info["openblas"] = f"not loadable: {e}"
    torch.manual_seed(0)

    def rope_tables(hd, T):
        half = hd // 2
        inv = 10000.0 ** (-(2 * torch.arange(half, dtype=torch.float64)) / hd)
        ang = torch.arange(T, dtype=torch.float64)[:, None] * inv[None, :]
        return ang.cos().float(), ang.sin().float()

    def rope(x, cos, sin):
        # x [b, h, t, hd]; cos/sin [t, hd/2]
        half = x.shape[-1] // 2
        x1, x2 = x[..., :half], x[..., half:]
        return torch.cat((x1 * cos - x2 * sin, x2 * cos + x1 * sin), dim=-1)

    class Block(nn.Module):
        def __init__(self, c):
            super().__init__()
            d = c["dModel"]
            self.d, self.H = d, c["nHeads"]
            self.ln1 = nn.LayerNorm(d, eps=1e-5)
            self.qkv = nn.Linear(d, 3 * d)
            self.proj = nn.Linear(d, d)
            self.ln2 = nn.LayerNorm(d, eps=1e-5)
            self.fc = nn.Linear(d, c["mlpRatio"] * d)
            self.fc2 = nn.Linear(c["mlpRatio"] * d, d)

        def forward(self, x, cos, sin, cache=None):
            """x [b, t, d]; with cache (k, v) of earlier positions, returns the new (k, v)."""
            b, t, d = x.shape
            hd = d // self.H
            q, k, v = self.qkv(self.ln1(x)).split(d, dim=2)
            q = q.view(b, t, self.H, hd).transpose(1, 2)
            k = k.view(b, t, self.H, hd).transpose(1, 2)
            v = v.view(b, t, self.H, hd).transpose(1, 2)
            if cos is not None:
                q, k = rope(q, cos, sin), rope(k, cos, sin)
            if cache is not None:
                k = torch.cat((cache[0], k), dim=2)
                v = torch.cat((cache[1], v), dim=2)
            att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(hd))
            if t > 1:
                n = k.shape[2]
                mask = torch.ones(t, n, dtype=torch.bool).tril(n - t)
                att = att.masked_fill(~mask, float("-inf"))
            att = att.softmax(-1)
            y = (att @ v).transpose(1, 2).reshape(b, t, d)
            x = x + self.proj(y)
            x = x + self.fc2(F.gelu(self.fc(self.ln2(x)), approximate="tanh"))
            return x, (k, v)

    class GPT(nn.Module):
        def __init__(self, c):
            super().__init__()
            self.c = c
            d = c["dModel"]
            self.wte = nn.Embedding(c["vocabSize"], d)
            self.learned = c["positional"] == "learned"
            if self.learned:
                self.wpe = nn.Embedding(c["maxSeqLen"], d)
            self.blocks = nn.ModuleList(Block(c) for _ in range(c["nLayers"]))
            self.lnf = nn.LayerNorm(d, eps=1e-5)
            cos, sin = rope_tables(d // c["nHeads"], c["maxSeqLen"])
            self.register_buffer("cos", cos)
            self.register_buffer("sin", sin)
            for n_, p in self.named_parameters():
                if n_.endswith("weight") and p.dim() == 2:
                    nn.init.normal_(p, std=0.02)

        def forward(self, idx, start=0, caches=None):
            b, t = idx.shape
            x = self.wte(idx)
            if self.learned:
                x = x + self.wpe(torch.arange(start, start + t))
                cos = sin = None
            else:
                cos, sin = self.cos[start : start + t], self.sin[start : start + t]
            new = []
            for i, blk in enumerate(self.blocks):
                x, kv = blk(x, cos, sin, None if caches is None else caches[i])
                new.append(kv)
            return self.lnf(x) @ self.wte.weight.t(), new

    def median(xs):
        xs = sorted(xs)
        return xs[len(xs) // 2]

    warmup, reps = spec["warmup"], spec["reps"]
    out = {"info": info, "train": [], "sample": []}

    for job in spec["train"]:
        c, B, T = job["model"], job["B"], job["T"]
        model = GPT(c)
        decay = [p for n_, p in model.named_parameters() if p.dim() == 2 and "wte" not in n_ and "wpe" not in n_]
        other = [p for n_, p in model.named_parameters() if not (p.dim() == 2 and "wte" not in n_ and "wpe" not in n_)]
        opt = torch.optim.AdamW(
            [{"params": decay, "weight_decay": 0.1}, {"params": other, "weight_decay": 0.0}],
            lr=1e-3,
            betas=(0.9, 0.95),
            eps=1e-8,
        )
        g = torch.Generator().manual_seed(1)
        idx = torch.randint(0, c["vocabSize"], (B, T), generator=g)
        V = c["vocabSize"]

        def step():
            opt.zero_grad(set_to_none=True)
            logits, _ = model(idx)
            loss = F.cross_entropy(logits[:, :-1].reshape(-1, V), idx[:, 1:].reshape(-1))
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()

        for _ in range(warmup):
            step()
        ts, cs = [], []
        for _ in range(reps):
            c0 = time.process_time()
            t0 = time.perf_counter()
            step()
            ts.append(time.perf_counter() - t0)
            cs.append(time.process_time() - c0)
        ms = median(ts) * 1e3
        cpu = median(cs) * 1e3
        out["train"].append(
            {
                "name": job["name"],
                "ms": ms,
                "ms_min": min(ts) * 1e3,
                "tokens_per_s": B * T / ms * 1e3,
                "cpu_ms": cpu,
                "tokens_per_cpu_s": B * T / cpu * 1e3,
            }
        )

    torch.set_grad_enabled(False)
    for job in spec["sample"]:
        c, batch, P, N = job["model"], job["batch"], job["prompt"], job["tokens"]
        model = GPT(c).eval()
        g = torch.Generator().manual_seed(2)
        prompt = torch.randint(0, c["vocabSize"], (batch, P), generator=g)

        def sample_row(logits):
            # temperature-1 sampling and the token's logprob, as generate.ts reports
            lp = logits.float().log_softmax(-1)
            tok = torch.multinomial(lp.exp(), 1, generator=g)
            return tok, lp.gather(1, tok)

        def run_cache():
            logits, caches = model(prompt)
            tok, _ = sample_row(logits[:, -1])
            for i in range(N - 1):
                logits, caches = model(tok, P + i, caches)
                tok, _ = sample_row(logits[:, -1])

        def run_nocache():
            seq = prompt
            for _ in range(N):
                logits, _ = model(seq)
                tok, _ = sample_row(logits[:, -1])
                seq = torch.cat((seq, tok), dim=1)

        row = {"name": job["name"]}
        for key, fn in (("cache", run_cache), ("nocache", run_nocache)):
            if key == "nocache" and not job.get("nocache", True):
                continue
            for _ in range(max(1, warmup // 3)):
                fn()
            ts, cs = [], []
            for _ in range(max(3, reps // 3)):
                c0 = time.process_time()
                t0 = time.perf_counter()
                fn()
                ts.append(time.perf_counter() - t0)
                cs.append(time.process_time() - c0)
            ms = median(ts) * 1e3
            cpu = median(cs) * 1e3
            row[key] = {
                "ms": ms,
                "tokens_per_s": batch * N / ms * 1e3,
                "cpu_ms": cpu,
                "tokens_per_cpu_s": batch * N / cpu * 1e3,
            }
        out["sample"].append(row)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
