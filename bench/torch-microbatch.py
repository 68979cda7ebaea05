"""bench/torch-microbatch — the torch worker's forward_backward throughput against microBatchTokens.

Attention inside a packed micro-batch is dense under a block-diagonal mask (sdpa; no flash-attn
varlen), so its cost grows with the micro-batch's length squared while the rest grows linearly:
this sweep shows where that crosses over for a model on this machine. One call = 256 rows of 50–90
tokens (a countdown RL step's shape), PPO; one warm-up call, then the mean of `--reps` calls.

    python/.venv/bin/python bench/torch-microbatch.py [--model DIR] [--budgets 8192,4096,2048,1024,512]
        [--device cpu] [--reps 2]

--model defaults to the countdown recipe's base exported as a Hugging Face directory
($RLLM_HOME/models/countdown-local-*-hf, made by `rllm train countdown --backend torch`).
"""

import argparse
import glob
import os
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))
from rllm_worker.trainer import Trainer  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model")
    ap.add_argument("--budgets", default="8192,4096,2048,1024,512")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--reps", type=int, default=2)
    a = ap.parse_args()
    model = a.model
    if model is None:
        home = os.environ.get("RLLM_HOME", os.path.expanduser("~/.rllm"))
        found = sorted(glob.glob(os.path.join(home, "models", "countdown-local-*-hf")))
        if not found:
            sys.exit(f"no --model and no exported countdown base in {home}/models: run `rllm train countdown --backend torch` once, or pass --model")
        model = found[-1]
    g = torch.Generator().manual_seed(0)
    lengths = torch.randint(50, 90, (256,), generator=g).int()
    n = int(lengths.sum())
    batch = {
        "tokens": torch.randint(0, 256, (n,), generator=g).int(), "lengths": lengths, "loss_mask": torch.ones(n),
        "advantages": torch.randn(n, generator=g), "sampling_logprobs": -torch.rand(n, generator=g),
    }
    loss = {"kind": "ppo", "clipLow": 0.2, "clipHigh": 0.2, "entropyCoef": 0, "aggregation": "token-mean"}
    print(f"model {model}; {n} tokens a call in 256 rows; device {a.device}; torch threads {torch.get_num_threads()}")
    for budget in (int(b) for b in a.budgets.split(",")):
        t = Trainer({"model": model, "device": a.device, "dtype": "float32" if a.device == "cpu" else "bfloat16",
                     "seed": 0, "lora": None, "adapter": None, "gradientCheckpointing": False,
                     "microBatchTokens": budget, "logprobChunkTokens": 1024})
        t.forward_backward(batch, loss, {"tokens": n, "rows": 256}, "sampling")  # warm-up
        t0 = time.perf_counter()
        for _ in range(a.reps):
            t.forward_backward(batch, loss, {"tokens": n, "rows": 256}, "sampling")
        dt = (time.perf_counter() - t0) / a.reps
        print(f"microBatchTokens {budget:>6}: {dt:.3f} s a call, {n / dt:,.0f} tokens/s", flush=True)


if __name__ == "__main__":
    main()
