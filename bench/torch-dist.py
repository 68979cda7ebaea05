"""bench/torch-dist — the torch trainer's step time on 1 process against 2 (torchrun, FSDP2) on the
same batch, and how far apart their results are.

Each run is a real worker driven over its socket as the TypeScript side drives it: the plain worker
(`python -m rllm_worker`), then torchrun with `--nprocs` ranks. A step is forward_backward (PPO,
token-mean) + optim_step on the same batch; one warm-up step, then `--steps` timed ones. The model is
a small random Qwen3 (fp32, CPU, gloo), one thread a process (OMP_NUM_THREADS=1, as torchrun sets for
its ranks). On a 2-core machine the point is the equality (max abs diff
of the losses and of the weights after the steps), not the speed-up.

    python/.venv/bin/python bench/torch-dist.py [--nprocs 2] [--steps 3] [--rows 32] [--hidden 256] [--layers 4]

Prints one JSON object: seconds per step for each, their ratio (N processes / 1), and the diffs.
"""

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "python"), str(ROOT / "python" / "tests")]
from safetensors.torch import load_file, save_file  # noqa: E402
from torchrun_worker import TorchrunWorker  # noqa: E402
from transformers import Qwen3Config, Qwen3ForCausalLM  # noqa: E402

LOSS = {"kind": "ppo", "clipLow": 0.2, "clipHigh": 0.28, "entropyCoef": 0, "aggregation": "token-mean"}
OPTIM = {"lr": 1e-4, "beta1": 0.9, "beta2": 0.999, "eps": 1e-8, "weightDecay": 0.0, "maxGradNorm": 1.0}


def make_model(directory: Path, hidden: int, layers: int, vocab: int) -> Path:
    torch.manual_seed(0)
    config = Qwen3Config(vocab_size=vocab, hidden_size=hidden, intermediate_size=2 * hidden, num_hidden_layers=layers,
                         num_attention_heads=4, num_key_value_heads=2, head_dim=hidden // 4, max_position_embeddings=512,
                         tie_word_embeddings=False)
    Qwen3ForCausalLM(config).save_pretrained(directory)
    return directory


def make_batch(path: Path, rows: int, vocab: int) -> dict:
    g = torch.Generator().manual_seed(0)
    lengths = torch.randint(40, 80, (rows,), generator=g).int()
    n = int(lengths.sum())
    save_file({"tokens": torch.randint(0, vocab, (n,), generator=g).int(), "lengths": lengths,
               "loss_mask": torch.ones(n), "advantages": torch.randn(n, generator=g),
               "sampling_logprobs": -torch.rand(n, generator=g) * 3}, str(path))
    return {"tokens": n - rows, "rows": rows}  # position 0 of each row takes no part


def run(tmp: Path, model: Path, batch: Path, den: dict, steps: int, nproc: int) -> dict:
    # one thread a process: torchrun sets OMP_NUM_THREADS=1 for its ranks, the plain worker gets the same
    w = TorchrunWorker(tmp, nproc=nproc, plain=nproc == 1, timeout_s=600, env={"OMP_NUM_THREADS": "1"})
    try:
        w.call("init", {"model": str(model), "device": "cpu", "dtype": None, "seed": 0, "lora": None, "adapter": None,
                        "gradientCheckpointing": False, "microBatchTokens": 2048, "logprobChunkTokens": 1024})
        losses, times = [], []
        for i in range(steps + 1):
            t0 = time.perf_counter()
            losses.append(w.call("forward_backward", {"tensors": str(batch), "loss": LOSS, "denominators": den,
                                                      "proximal": "sampling"})["loss"])
            w.call("optim_step", OPTIM)
            if i > 0:  # the first step warms up
                times.append(time.perf_counter() - t0)
        w.call("export_weights", {"dir": str(tmp / "weights")})
        w.call("shutdown", {})
        w.wait(60)
        return {"losses": losses, "stepS": sum(times) / len(times), "weights": load_file(str(tmp / "weights" / "model.safetensors"))}
    finally:
        w.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nprocs", type=int, default=2)
    ap.add_argument("--steps", type=int, default=3)
    ap.add_argument("--rows", type=int, default=32)
    ap.add_argument("--hidden", type=int, default=256)
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--vocab", type=int, default=4096)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        d = Path(d)
        model = make_model(d / "model", a.hidden, a.layers, a.vocab)
        den = make_batch(d / "batch.safetensors", a.rows, a.vocab)
        (d / "one").mkdir()
        (d / "many").mkdir()
        one = run(d / "one", model, d / "batch.safetensors", den, a.steps, 1)
        many = run(d / "many", model, d / "batch.safetensors", den, a.steps, a.nprocs)
    weight_diff = max((one["weights"][k] - many["weights"][k]).abs().max().item() for k in one["weights"])
    print(json.dumps({
        "model": {"hidden": a.hidden, "layers": a.layers, "vocab": a.vocab,
                  "params": sum(t.numel() for t in one["weights"].values())},
        "batch": {"rows": a.rows, "tokens": den["tokens"] + a.rows}, "steps": a.steps,
        "stepS": {"1": round(one["stepS"], 4), str(a.nprocs): round(many["stepS"], 4)},
        "ratio": round(many["stepS"] / one["stepS"], 3),
        "maxAbsDiff": {"loss": max(abs(x - y) for x, y in zip(one["losses"], many["losses"])), "weights": weight_diff},
    }, indent=2))


if __name__ == "__main__":
    main()
