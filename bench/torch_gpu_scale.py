"""bench/torch-gpu.py's parts for issue 16 (scale-out), and the timing helpers both files use. See
bench/torch-gpu.md. The worker's own code throughout: Trainer/DistributedTrainer.export_weights,
Sampler.set_weights + Sampler.work, distributed.init.

  fsdp     torch-gpu.py's update case (same batch, same step count, same MFU formula) on fsdp.py's
           DistributedTrainer in a world of one process: FSDP2 wrapping on, beside the plain
           Trainer's row of the `update` part (off; run here if that part did not). On CUDA in bf16
           the two differ in more than the wrapping, as the worker does: the plain Trainer keeps
           bf16 weights, the distributed one fp32 master weights cast to bf16 for compute
           (`param_dtype` says which). Then one export_weights of the sharded trainer (the full
           state gathered to rank 0 on the CPU; fp32 on CUDA, so twice a bf16 file's bytes).
  publish  per model, full weights then the LoRA adapter (rank 32, all-linear): export_weights of
           the plain Trainer into a fresh directory under /dev/shm (weights-<version>, as the
           backend's publish), then the in-process sampler's set_weights of it, queued on its
           Engine and applied by Sampler.work, as the sampler worker runs it (the RPC aside).
           publish = export + load. Repeat 0 is cold (for LoRA the sampler wraps its model in
           peft); min and median are over repeats 1.. . Before each export the trainer's last
           trainable tensor is shifted, and after the load the sampler's copy must equal it.

The process group (distributed.init, the worker's own: gloo on CPU, cpu:gloo,cuda:nccl on CUDA)
comes from MASTER_ADDR/MASTER_PORT/RANK/WORLD_SIZE/LOCAL_RANK set here to a free local port and
rank 0 of 1; it also makes this process die with its parent (PR_SET_PDEATHSIG), as a worker does.
"""

from __future__ import annotations

import gc
import os
import shutil
import socket
import statistics
import time
from pathlib import Path

import torch
import torch.distributed as dist

from rllm_worker import distributed
from rllm_worker.fsdp import DistributedTrainer
from rllm_worker.rpc import DEFER
from rllm_worker.sampler import Sampler

COLLECTIVE_TIMEOUT_S = 120.0  # per collective; a step's are far shorter


def free() -> None:
    gc.collect()
    if torch.cuda.is_available():
        torch.cuda.empty_cache()


def sync(device: str) -> None:
    if device == "cuda":
        torch.cuda.synchronize()


def dir_bytes(directory: str) -> int:
    return sum(f.stat().st_size for f in Path(directory).iterdir() if f.is_file())


def gb_s(nbytes: int, seconds: float) -> float:
    return round(nbytes / seconds / 1e9, 3)


# ---- fsdp: FSDP2 on vs off at N = 1 ------------------------------------------------------------------


def init_world() -> dict:
    """Rank 0 of a one-process group, through the worker's own distributed.init."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), RANK="0", WORLD_SIZE="1", LOCAL_RANK="0")
    t0 = time.perf_counter()
    world = distributed.init(COLLECTIVE_TIMEOUT_S)
    return {"world_size": world.size, "backend": dist.get_backend(), "init_s": round(time.perf_counter() - t0, 3)}


def plain_row(bench, name: str, mode: str) -> dict | None:
    """The update part's ok row of the plain Trainer for (name, mode) at the default settings."""
    for r in bench.results["update"]:
        if (r["model"], r["mode"], r["gradient_checkpointing"], r["micro_batch_tokens"], r["status"]) == \
                (name, mode, False, bench.sizes["micro_batch_tokens"], "ok"):
            return r
    return None


def fsdp_case(bench, update_case, name: str, lora: bool, plain: dict) -> dict:
    trainer = bench.trainer(name, lora=lora, cls=DistributedTrainer)
    out = update_case(bench, name, trainer)
    directory = os.path.join(bench.tmp, "fsdp-export")
    sync(bench.args.device)
    t0 = time.perf_counter()
    kind = trainer.export_weights(directory)
    export_s = time.perf_counter() - t0
    nbytes = dir_bytes(directory)
    shutil.rmtree(directory)
    out.update(world_size=dist.get_world_size(), backend=dist.get_backend(), export_kind=kind,
               export_s=round(export_s, 4), export_bytes=nbytes, export_gb_s=gb_s(nbytes, export_s))
    if plain["status"] == "ok":
        out.update(plain_tok_s=plain["tok_s"], plain_mfu=plain["mfu"], plain_param_dtype=plain["param_dtype"],
                   plain_peak_memory_gib=plain["peak_memory_gib"], tok_s_vs_plain=round(out["tok_s"] / plain["tok_s"], 3))
    return out


def part_fsdp(bench, update_case, update_run) -> None:
    """Per model, full then LoRA: the plain Trainer's update row (the update part's, else run now),
    then the DistributedTrainer's at world size 1."""
    try:
        if bench.run("fsdp", {"model": "-", "mode": "process-group"}, init_world)["status"] != "ok":
            return
        for name in bench.models:
            for lora in (False, True):
                mode = "lora" if lora else "full"
                plain = plain_row(bench, name, mode) or update_run(bench, name, lora, False)
                bench.run("fsdp", {"model": name, "mode": mode},
                          lambda lora=lora, plain=plain: fsdp_case(bench, update_case, name, lora, plain))
    finally:
        if dist.is_initialized():
            dist.destroy_process_group()


# ---- publish: export_weights → /dev/shm → the sampler's set_weights -----------------------------------


class Replies:
    """The RPC server as the Sampler uses it: replies and failures recorded, events dropped."""

    def __init__(self):
        self.replies: dict[int, dict] = {}
        self.failures: dict[int, BaseException] = {}

    def reply(self, request_id: int, result: dict) -> None:
        self.replies[request_id] = result

    def fail(self, request_id: int, error: BaseException) -> None:
        self.failures[request_id] = error

    def event(self, name: str, **fields) -> None:
        pass


def shift(trainer) -> tuple[str, torch.Tensor]:
    """Moves the trainer's last trainable tensor (as an optimizer step would); returns its name and
    new value. (A LoRA B starts at zero: the + 1e-3.)"""
    name, p = [(n, p) for n, p in trainer.model.named_parameters() if p.requires_grad][-1]
    with torch.no_grad():
        p.add_(0.05 * p.abs().max() + 1e-3)
    return name, p.detach().cpu().clone()


def set_weights(sampler: Sampler, replies: Replies, directory: str, kind: str, version: int) -> None:
    """The sampler worker's set_weights: queued on the engine, applied by the serve loop's work()."""
    if sampler.set_weights({"dir": directory, "kind": kind, "weightVersion": version}, version) is not DEFER:
        raise RuntimeError("set_weights replied at once: the engine did not queue the update")
    while sampler.work():
        pass
    if version in replies.failures:
        raise replies.failures[version]
    if replies.replies.get(version) != {"weightVersion": version}:
        raise RuntimeError(f"set_weights of version {version}: no reply after the engine ran it")


def publish_case(bench, state: dict, name: str, lora: bool) -> dict:
    device, sampler, replies = bench.args.device, state["sampler"], state["replies"]
    trainer = bench.trainer(name, lora=lora)
    export_s, load_s, nbytes, files = [], [], 0, []
    for _ in range(bench.sizes["publish_repeats"]):
        state["version"] += 1
        version = state["version"]
        tensor_name, want = shift(trainer)
        directory = os.path.join(bench.tmp, f"weights-{version}")
        sync(device)
        t0 = time.perf_counter()
        kind = trainer.export_weights(directory)
        t1 = time.perf_counter()
        set_weights(sampler, replies, directory, kind, version)
        sync(device)
        t2 = time.perf_counter()
        export_s.append(t1 - t0)
        load_s.append(t2 - t1)
        got = dict(sampler.loaded.model.named_parameters())[tensor_name].detach().cpu()
        if not torch.equal(got, want.to(got.dtype)):  # the load casts to the sampler's dtype
            raise AssertionError(f"after set_weights the sampler's {tensor_name} differs from the trainer's "
                                 f"(max |Δ| {float((got.float() - want.float()).abs().max()):.3g})")
        nbytes, files = dir_bytes(directory), sorted(os.listdir(directory))
        shutil.rmtree(directory)  # the backend removes a superseded export too
    steady_e, steady_l = export_s[1:], load_s[1:]
    publish = [e + lo for e, lo in zip(steady_e, steady_l)]
    return {
        "export_kind": kind, "files": files, "bytes": nbytes, "repeats": len(export_s),
        "export_s_first": round(export_s[0], 4), "load_s_first": round(load_s[0], 4),
        "export_s_min": round(min(steady_e), 4), "export_s_median": round(statistics.median(steady_e), 4),
        "load_s_min": round(min(steady_l), 4), "load_s_median": round(statistics.median(steady_l), 4),
        "publish_s_min": round(min(publish), 4), "publish_s_median": round(statistics.median(publish), 4),
        "export_gb_s": gb_s(nbytes, min(steady_e)), "load_gb_s": gb_s(nbytes, min(steady_l)),
        "export_s_all": [round(t, 4) for t in export_s], "load_s_all": [round(t, 4) for t in load_s],
    }


def part_publish(bench) -> None:
    """Per model: a sampler (as the sampler worker's init makes it), then full and LoRA publishes
    into it (full first: a sampler wrapped for LoRA refuses full weights)."""
    for name in bench.models:
        state: dict = {"version": 0}

        def start(name=name, state=state):
            replies = Replies()
            sampler = Sampler(replies)
            t0 = time.perf_counter()
            sampler.init({"model": bench.model_dir(name), "device": bench.args.device, "dtype": bench.dtype,
                          "seed": 0, "adapter": None, "maxBatch": None}, 0)
            state.update(sampler=sampler, replies=replies)
            return {"sampler_init_s": round(time.perf_counter() - t0, 3), "dir": bench.tmp}

        if bench.run("publish", {"model": name, "kind": "sampler-init"}, start)["status"] == "ok":
            for lora in (False, True):
                bench.run("publish", {"model": name, "kind": "lora" if lora else "full"},
                          lambda lora=lora, name=name, state=state: publish_case(bench, state, name, lora))
        state.clear()
        free()


# ---- the printed table's lines for these parts ----------------------------------------------------------


def _fmt(v, spec: str = "") -> str:
    return "-" if v is None else format(v, spec)


def _setup_errors(rows: list[dict], key: str, setup: str) -> list[str]:
    return [f"  {r['model']:13s} {setup} {r['status']}: {r.get('error') or r.get('reason')}"
            for r in rows if r[key] == setup and r["status"] != "ok"]


def scale_table(results: dict) -> list[str]:
    lines = ["fsdp (N = 1: DistributedTrainer, FSDP2 on, vs the plain Trainer, off; same batch)",
             f"  {'model':13s} {'mode':5s} {'tok/s':>9s} {'off':>9s} {'on/off':>6s} {'MFU':>6s} {'off':>6s} "
             f"{'GiB':>6s} {'off':>6s} {'export s':>8s}  status"]
    lines += _setup_errors(results["fsdp"], "mode", "process-group")
    for r in results["fsdp"]:
        if r["mode"] != "process-group":
            lines.append(f"  {r['model']:13s} {r['mode']:5s} {_fmt(r.get('tok_s'), ',.0f'):>9s} "
                         f"{_fmt(r.get('plain_tok_s'), ',.0f'):>9s} {_fmt(r.get('tok_s_vs_plain'), '.3f'):>6s} "
                         f"{_fmt(r.get('mfu'), '.3f'):>6s} {_fmt(r.get('plain_mfu'), '.3f'):>6s} "
                         f"{_fmt(r.get('peak_memory_gib'), '.1f'):>6s} {_fmt(r.get('plain_peak_memory_gib'), '.1f'):>6s} "
                         f"{_fmt(r.get('export_s'), '.3f'):>8s}  {r['status']}")
    lines += ["publish (export_weights → /dev/shm, then the sampler's set_weights; median of repeats 1..)",
              f"  {'model':13s} {'kind':4s} {'MB':>8s} {'export s':>8s} {'load s':>7s} {'publish':>7s} "
              f"{'exp GB/s':>8s} {'load GB/s':>9s} {'cold s':>7s}  status"]
    lines += _setup_errors(results["publish"], "kind", "sampler-init")
    for r in results["publish"]:
        if r["kind"] != "sampler-init":
            cold = r["export_s_first"] + r["load_s_first"] if r["status"] == "ok" else None
            lines.append(f"  {r['model']:13s} {r['kind']:4s} {_fmt(r.get('bytes') and r['bytes'] / 1e6, ',.1f'):>8s} "
                         f"{_fmt(r.get('export_s_median'), '.3f'):>8s} {_fmt(r.get('load_s_median'), '.3f'):>7s} "
                         f"{_fmt(r.get('publish_s_median'), '.3f'):>7s} {_fmt(r.get('export_gb_s'), '.2f'):>8s} "
                         f"{_fmt(r.get('load_gb_s'), '.2f'):>9s} {_fmt(cold, '.3f'):>7s}  {r['status']}")
    return lines
