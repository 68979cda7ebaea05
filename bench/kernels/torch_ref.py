#!/usr/bin/python3
"""PyTorch CPU reference for the local-backend kernel spike.

Run with the Debian interpreter (python3-torch + libopenblas0-pthread):

    /usr/bin/python3 bench/kernels/torch_ref.py                 # both thread counts, table
    /usr/bin/python3 bench/kernels/torch_ref.py --threads 1 --json

(a) sgemm GFLOP/s for every matmul of one training step (bench/kernels/shapes.json), in the layout
    the step uses (A.B, At.B, A.Bt via transposed views, so BLAS gets the transpose flags);
(b) one full training step of the B32xT32 d128 L2 H4 GPT (token embedding, learned positions,
    pre-LN, causal MHA, GELU MLP 4x, tied head, byte-level vocab + specials, AdamW): ms/step and
    tokens/s.

Thread settings are fixed per process before torch is imported: --threads N sets
OMP_NUM_THREADS, OPENBLAS_NUM_THREADS and torch.set_num_threads(N) (OpenBLAS has its own pthread
pool that torch.set_num_threads does not control). Without --threads the parent re-runs itself
for 1 and 2 threads, the untouched defaults, and the defaults with OPENBLAS_CORETYPE and
OPENBLAS_L2_SIZE removed (OpenBLAS autodetects its kernel; see openblas_autodetect_env).
"""

import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def parse():
    p = argparse.ArgumentParser()
    p.add_argument("--threads", type=int, default=None, help="0 = leave the defaults alone")
    p.add_argument("--json", action="store_true")
    p.add_argument("--steps", type=int, default=60)
    p.add_argument("--skip-matmul", action="store_true")
    return p.parse_args()


def child(threads, steps, skip_matmul):
    if threads:
        os.environ["OMP_NUM_THREADS"] = str(threads)
        os.environ["OPENBLAS_NUM_THREADS"] = str(threads)
    import ctypes

    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    if threads:
        torch.set_num_threads(threads)
    info = {
        "torch": torch.__version__,
        "threads_requested": threads or "default",
        "torch_num_threads": torch.get_num_threads(),
        "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS"),
        "OPENBLAS_NUM_THREADS": os.environ.get("OPENBLAS_NUM_THREADS"),
        "OPENBLAS_CORETYPE": os.environ.get("OPENBLAS_CORETYPE"),
        "OPENBLAS_L2_SIZE": os.environ.get("OPENBLAS_L2_SIZE"),
    }
    try:
        ob = ctypes.CDLL("libopenblas.so.0")
        ob.openblas_get_config.restype = ctypes.c_char_p
        ob.openblas_get_corename.restype = ctypes.c_char_p
        info["openblas_config"] = ob.openblas_get_config().decode()
        info["openblas_corename"] = ob.openblas_get_corename().decode()
        info["openblas_num_threads"] = ob.openblas_get_num_threads()
    except OSError as e:  # pragma: no cover
        info["openblas"] = f"not loadable: {e}"

    spec = json.load(open(os.path.join(HERE, "shapes.json")))
    cfg = spec["model"]
    torch.manual_seed(0)

    # ---- (a) matmuls ----
    matmul = []
    if not skip_matmul:
        for s in spec["shapes"]:
            M, N, K, lay, nb = s["M"], s["N"], s["K"], s["layout"], s["batch"]
            shp = lambda r, c: (nb, r, c) if nb > 1 else (r, c)  # noqa: E731
            tr = lambda x: x.transpose(-1, -2)  # noqa: E731
            if lay == "NN":
                a, b = torch.randn(shp(M, K)), torch.randn(shp(K, N))
                f = lambda: torch.matmul(a, b)  # noqa: E731
            elif lay == "TN":
                a, b = torch.randn(shp(K, M)), torch.randn(shp(K, N))
                f = lambda: torch.matmul(tr(a), b)  # noqa: E731
            else:
                a, b = torch.randn(shp(M, K)), torch.randn(shp(N, K))
                f = lambda: torch.matmul(a, tr(b))  # noqa: E731
            # correctness of the BLAS kernel in use (some OpenBLAS builds miscompute on some CPUs)
            ref = {
                "NN": lambda: torch.matmul(a.double(), b.double()),
                "TN": lambda: torch.matmul(tr(a.double()), b.double()),
                "NT": lambda: torch.matmul(a.double(), tr(b.double())),
            }[lay]()
            err = (f().double() - ref).abs().max().item()
            flop = 2.0 * M * N * K * nb
            reps = max(3, int(2e8 / flop))
            for _ in range(3):
                f()
            best = float("inf")
            for _ in range(7):
                t = time.perf_counter()
                for _ in range(reps):
                    f()
                best = min(best, (time.perf_counter() - t) / reps)
            matmul.append({**s, "ms": best * 1e3, "gflops": flop / best / 1e9, "max_abs_err": err})

    # ---- (b) training step ----
    d, H, T, B, L, V = (
        cfg["d_model"],
        cfg["n_head"],
        cfg["seq"],
        cfg["batch"],
        cfg["n_layer"],
        cfg["vocab"],
    )

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln1 = nn.LayerNorm(d)
            self.qkv = nn.Linear(d, 3 * d)
            self.proj = nn.Linear(d, d)
            self.ln2 = nn.LayerNorm(d)
            self.fc = nn.Linear(d, cfg["mlp_ratio"] * d)
            self.fc2 = nn.Linear(cfg["mlp_ratio"] * d, d)
            self.register_buffer("mask", torch.tril(torch.ones(T, T, dtype=torch.bool)))

        def forward(self, x):
            b, t, _ = x.shape
            q, k, v = self.qkv(self.ln1(x)).split(d, dim=2)
            q = q.view(b, t, H, d // H).transpose(1, 2)
            k = k.view(b, t, H, d // H).transpose(1, 2)
            v = v.view(b, t, H, d // H).transpose(1, 2)
            att = (q @ k.transpose(-2, -1)) * (1.0 / (d // H) ** 0.5)
            att = att.masked_fill(~self.mask[:t, :t], float("-inf")).softmax(-1)
            y = (att @ v).transpose(1, 2).reshape(b, t, d)
            x = x + self.proj(y)
            return x + self.fc2(F.gelu(self.fc(self.ln2(x))))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.wte = nn.Embedding(V, d)
            self.wpe = nn.Embedding(T, d)
            self.blocks = nn.ModuleList(Block() for _ in range(L))
            self.lnf = nn.LayerNorm(d)

        def forward(self, idx, targets):
            x = self.wte(idx) + self.wpe(torch.arange(idx.shape[1]))
            for blk in self.blocks:
                x = blk(x)
            logits = self.lnf(x) @ self.wte.weight.t()  # tied head
            return F.cross_entropy(logits.view(-1, V), targets.view(-1))

    model = GPT()
    n_params = sum(p.numel() for p in model.parameters())
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0.1)
    data = torch.randint(0, V, (B, T + 1))
    x, y = data[:, :-1].contiguous(), data[:, 1:].contiguous()

    def step():
        opt.zero_grad(set_to_none=True)
        loss = model(x, y)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        return loss

    for _ in range(10):
        step()
    times = []
    for _ in range(steps):
        t = time.perf_counter()
        step()
        times.append(time.perf_counter() - t)
    times.sort()
    med = times[len(times) // 2]
    # forward-only and forward+backward split, to size the optimizer / framework share
    with torch.no_grad():
        fwd = []
        for _ in range(20):
            t = time.perf_counter()
            model(x, y)
            fwd.append(time.perf_counter() - t)
    fwd.sort()
    train = {
        "params": n_params,
        "tokens_per_step": B * T,
        "ms_median": med * 1e3,
        "ms_min": times[0] * 1e3,
        "tokens_per_s": B * T / med,
        "forward_nograd_ms_median": fwd[len(fwd) // 2] * 1e3,
    }
    return {"info": info, "matmul": matmul, "train": train}


def main():
    a = parse()
    if a.threads is not None:
        out = child(a.threads, a.steps, a.skip_matmul)
        if a.json:
            print(json.dumps(out))
        else:
            report([out])
        return
    runs = []
    for th, env in ((1, None), (2, None), (0, None), (0, openblas_autodetect_env())):
        cmd = [sys.executable, __file__, "--threads", str(th), "--json", "--steps", str(a.steps)]
        if a.skip_matmul:
            cmd.append("--skip-matmul")
        runs.append(json.loads(subprocess.check_output(cmd, env=env)))
    if a.json:
        print(json.dumps(runs))
    else:
        report(runs)


def openblas_autodetect_env():
    """The environment without OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE: OpenBLAS picks its kernel
    by CPUID. (The machine image pins both because older OpenBLAS builds miscompute on some
    processors; check max_abs_err when comparing against this variant.)"""
    env = dict(os.environ)
    env.pop("OPENBLAS_CORETYPE", None)
    env.pop("OPENBLAS_L2_SIZE", None)
    return env


def report(runs):
    for r in runs:
        i, t = r["info"], r["train"]
        print(
            f"torch {i['torch']}  threads={i['threads_requested']} "
            f"(torch {i['torch_num_threads']}, openblas {i.get('openblas_num_threads')}, "
            f"core {i.get('openblas_corename')}, OPENBLAS_CORETYPE={i['OPENBLAS_CORETYPE']}, "
            f"OPENBLAS_L2_SIZE={i['OPENBLAS_L2_SIZE']})"
        )
        print(
            f"  train step: {t['ms_median']:.1f} ms median ({t['ms_min']:.1f} min), "
            f"{t['tokens_per_s']:.0f} tok/s, params {t['params']}, "
            f"fwd(no grad) {t['forward_nograd_ms_median']:.1f} ms"
        )
        for m in r["matmul"]:
            print(
                f"  {m['name']:<18} {m['layout']} {m['batch']:>3}x[{m['M']}x{m['K']}].[{m['K']}x{m['N']}]"
                f"  {m['gflops']:7.1f} GFLOP/s  (max abs err {m['max_abs_err']:.1e})"
            )


if __name__ == "__main__":
    main()
