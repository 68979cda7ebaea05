"""The trainer on N processes under torchrun (PROTOCOL.md, "Distributed trainer"):

    torchrun ... -m rllm_worker [--socket X/rpc.sock --exchange X] --role trainer --collective-timeout-s T

Global rank 0 connects the socket and speaks the protocol unchanged; every other rank follows. Each
trainer call:

    rank 0     checks the request (a bad one is an error reply, and the group serves on), reading
               the request's tensor file or the checkpoint to load
    rank 0     broadcasts {method, params, tensors} over the control group (gloo, timeout
               CONTROL_TIMEOUT: a follower waits there between calls, idle is normal)
    all ranks  execute it on their DistributedTrainer (fsdp.py): compute collectives on the default
               group, timeout T (nccl for CUDA tensors, gloo for CPU ones)
    rank 0     replies with the reduced result, and writes what the reply names

An exception on any rank while it executes a call is fatal for the group: it leaves the rank's
entry point (torchrun's `record` writes its traceback for torchrun's failure summary), the rank
exits non-zero, and torchrun ends every rank. `shutdown` (or the socket closing) ends every rank
with status 0. Workers die with their torchrun (PR_SET_PDEATHSIG), so a torchrun killed with
SIGKILL leaves no rank behind.
"""

from __future__ import annotations

import ctypes
import os
import signal
import socket
import sys
from dataclasses import dataclass
from datetime import timedelta

import torch
import torch.distributed as dist
from safetensors.torch import save_file

from rllm_worker import checkpoint
from rllm_worker.fsdp import DistributedTrainer, check_shardable
from rllm_worker.model import lora_config, resolve_dtype, resolve_model_dir
from rllm_worker.rpc import ProtocolError, Server
from rllm_worker.trainer import _string, _tensors, check_init, check_optim

CONTROL_TIMEOUT = timedelta(days=7)


@dataclass
class World:
    rank: int
    local_rank: int
    node: int
    size: int
    control: dist.ProcessGroup  # the command broadcast: gloo, CONTROL_TIMEOUT


class GroupFailure(BaseException):
    """A call failed on rank 0 while the group executed it: the group cannot go on. A BaseException,
    so the RPC server does not turn it into an error reply; its __cause__ is the failure."""


def _die_with_parent() -> None:
    """SIGKILL this process when its parent (torchrun's agent) dies."""
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def init(collective_timeout_s: float) -> World:
    """Joins the process group torchrun's environment describes."""
    _die_with_parent()
    rank, local_rank = int(os.environ["RANK"]), int(os.environ.get("LOCAL_RANK", 0))
    backend = "gloo"
    if torch.cuda.is_available():
        torch.cuda.set_device(local_rank)
        backend = "cpu:gloo,cuda:nccl"
    dist.init_process_group(backend, timeout=timedelta(seconds=collective_timeout_s))
    control = dist.new_group(backend="gloo", timeout=CONTROL_TIMEOUT)
    return World(rank=rank, local_rank=local_rank, node=int(os.environ.get("GROUP_RANK", 0)),
                 size=dist.get_world_size(), control=control)


def describe(world: World) -> dict | None:
    """hello's `world` field on rank 0 (None elsewhere); every rank calls it."""
    me = {"rank": world.rank, "localRank": world.local_rank, "node": world.node, "pid": os.getpid(),
          "host": socket.gethostname()}
    ranks = [None] * world.size if world.rank == 0 else None
    dist.gather_object(me, ranks, dst=0, group=world.control)
    if world.rank != 0:
        return None
    return {"size": world.size, "nodes": len({r["node"] for r in ranks}), "ranks": ranks}


def _broadcast(world: World, command: dict | None = None) -> dict:
    box = [command]
    dist.broadcast_object_list(box, src=0, group=world.control)
    return box[0]


def execute(state: dict, command: dict, saved: dict | None = None):
    """Runs one broadcast call on this rank; returns its result (rank 0's is the reply's)."""
    method, params, tensors = command["method"], command.get("params") or {}, command.get("tensors")
    if method == "init":
        state.pop("t", None)
        state["t"] = DistributedTrainer(params)
        return state["t"].info
    t: DistributedTrainer = state["t"]
    if method == "forward_backward":
        return t.forward_backward(tensors, params["loss"], params["denominators"], params["proximal"])
    if method == "optim_step":
        return t.optim_step(params)
    if method == "compute_logprobs":
        return t.compute_logprobs(tensors["tokens"], tensors["lengths"])
    if method == "gradients":
        return t.gradients()
    if method == "export_weights":
        return {"kind": t.export_weights(params["dir"])}
    if method == "save":
        return {"files": t.save(params["dir"])}
    if method == "load":
        return {"step": t.restore(saved)}
    raise ValueError(f"no distributed method {method!r}")


def _shutdown(world: World, command: dict | None = None) -> None:
    """Rank 0 broadcasts shutdown; every rank then waits until all have it (a rank that left at
    once could close its connections under a message still on its way to another node)."""
    _broadcast(world, command)
    dist.barrier(group=world.control)


def follow(world: World) -> None:
    """A rank other than 0: executes every broadcast call until shutdown."""
    state: dict = {}
    while (command := _broadcast(world))["method"] != "shutdown":
        execute(state, command)
    dist.barrier(group=world.control)


def serve(server: Server, world: World) -> None:
    """Rank 0: the trainer's methods on `server`, fanned out to every rank; serves until shutdown
    or until the socket closes (then it ends the followers too)."""
    state: dict = {}
    down = []

    def trainer() -> DistributedTrainer:
        if "t" not in state:
            raise RuntimeError("the trainer has no model yet: call init first")
        return state["t"]

    def run(method: str, params: dict | None = None, tensors: dict | None = None, saved: dict | None = None):
        command = {"method": method, "params": params, "tensors": tensors}
        try:  # a peer already dead fails the broadcast itself: as fatal as a failure inside the call
            _broadcast(world, command)
            return execute(state, command, saved)
        except Exception as e:  # noqa: BLE001 — the other ranks are mid-call: the group cannot serve on
            raise GroupFailure(f"{method} failed on rank 0") from e

    @server.method("init")
    def _init(params, _id):
        check_init(params)
        resolve_dtype(params["dtype"], params["device"])
        check_shardable(resolve_model_dir(params["model"]))
        if params["lora"] is not None:
            lora_config(params["lora"])
        info = run("init", params)
        server.event("log", message=f"trainer: {info['architecture']}, {info['numParams']:,} parameters "
                                    f"({info['trainableParams']:,} trainable), {info['dtype']} on {world.size} "
                                    f"× {info['device']} (FSDP2)")
        return info

    @server.method("forward_backward")
    def _forward_backward(params, _id):
        for key in ("loss", "denominators", "proximal"):
            if key not in params:
                raise ProtocolError(f"forward_backward needs params.{key}")
        batch = _tensors(params)
        trainer().check_batch(batch, params["loss"], params["denominators"], params["proximal"])
        return run("forward_backward", params, batch)

    @server.method("optim_step")
    def _optim_step(params, _id):
        trainer()
        check_optim(params)
        return run("optim_step", params)

    @server.method("compute_logprobs")
    def _compute_logprobs(params, _id):
        t = _tensors(params)
        if "tokens" not in t or "lengths" not in t:
            raise ValueError("compute_logprobs needs tensors tokens and lengths")
        trainer().check_tokens(t["tokens"], t["lengths"])
        path = server.exchange_path("logprobs")
        save_file({"logprobs": run("compute_logprobs", None, {"tokens": t["tokens"], "lengths": t["lengths"]})}, path)
        return {"tensors": path}

    @server.method("gradients")
    def _gradients(params, _id):
        trainer()
        path = server.exchange_path("gradients")
        save_file(run("gradients"), path)
        return {"tensors": path}

    for name in ("export_weights", "save"):
        @server.method(name)
        def _write(params, _id, name=name):
            trainer()
            return run(name, {"dir": _string(params, "dir")})

    @server.method("load")
    def _load(params, _id):
        saved = checkpoint.read(trainer(), _string(params, "dir"))
        return run("load", None, None, saved)

    @server.method("shutdown")
    def _shutdown_all(params, _id):
        _shutdown(world, {"method": "shutdown"})
        down.append(True)
        server.stop()
        return {}

    server.serve()
    if not down:  # the TypeScript side closed the socket: end the followers
        _shutdown(world, {"method": "shutdown"})
