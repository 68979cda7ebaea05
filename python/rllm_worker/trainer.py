"""The trainer role (PROTOCOL.md, "Trainer methods"): one model, its optimizer and its gradients.

`Trainer` is plain Python over tensors (the tests drive it directly); `register(server)` puts its
methods on the RPC server, reading and writing the tensor files of the exchange directory. Under
torchrun, fsdp.py's `DistributedTrainer` (a subclass: sharded model, a share of the rows) runs the
same methods on every rank and distributed.py serves them.

forward_backward, per call: every row's position 0 is masked out (nothing predicts it); rows are
packed into micro-batches (packing.py); each micro-batch runs forward (logprobs.py), computes its
part of the loss under the *call's* denominators (loss.py) and runs backward, so gradients add up
to ∂L/∂θ of the whole call and accumulate across calls until optim_step. The proximal policy
log π_old is `sampling` (log μ), `current` (this forward's own logprobs, detached) or `given`.
The KL reference is the starting weights: for LoRA the base model with the adapter disabled, for
full fine-tuning a frozen copy of the base model, made when a KL loss first asks.

optim_step is AdamW (fused on CUDA) after clipping the global gradient norm. Weight decay applies
to the weight matrices of linear layers only — not to biases, norms or the token embeddings and
LM head — as the local backend's decayMask does (src/backends/local/optim.ts).
"""

from __future__ import annotations

import copy
import math
import random

import numpy as np
import torch
from safetensors.torch import load_file, save_file
from torch import Tensor
from torch.distributed.checkpoint.state_dict import get_optimizer_state_dict

from rllm_worker import checkpoint
from rllm_worker.logprobs import token_logprobs
from rllm_worker.loss import LossBatch, LossMetrics, LossSpec, batch_loss, parse_loss_spec
from rllm_worker.model import is_lora, load_model
from rllm_worker.packing import check_rows, micro_batches, row_starts
from rllm_worker.rpc import ProtocolError, Server

PROXIMAL = ("sampling", "current", "given")
INIT_KEYS = ("model", "device", "dtype", "seed", "lora", "adapter", "gradientCheckpointing", "microBatchTokens", "logprobChunkTokens")
OPTIM_KEYS = ("lr", "beta1", "beta2", "eps", "weightDecay", "maxGradNorm")


def seed_everything(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch.manual_seed(seed)


def decayed_names(model: torch.nn.Module) -> set[str]:
    """Names of the parameters weight decay applies to: matrices (2+ dims) that are not the token
    embeddings or the LM head (tied or not)."""
    exempt = {id(model.get_input_embeddings().weight)}
    head = model.get_output_embeddings()
    if head is not None:
        exempt.add(id(head.weight))
    return {name for name, p in model.named_parameters() if p.dim() >= 2 and id(p) not in exempt}


def check_init(params: dict) -> None:
    """Refuses init params the trainer cannot start from (before any model is loaded)."""
    missing = [k for k in INIT_KEYS if k not in params]
    if missing:
        raise ProtocolError(f"init needs {', '.join(missing)}")
    if isinstance(params["seed"], bool) or not isinstance(params["seed"], int):
        raise ValueError(f"init: seed must be an integer, got {params['seed']!r}")
    for key in ("microBatchTokens", "logprobChunkTokens"):
        if not isinstance(params[key], int) or params[key] < 1:
            raise ValueError(f"init: {key} must be an integer ≥ 1, got {params[key]!r}")


def check_optim(params: dict) -> None:
    for key in OPTIM_KEYS:
        v = params.get(key)
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0:
            raise ValueError(f"optim_step: {key} must be a finite number ≥ 0, got {v!r}")


class Trainer:
    def __init__(self, params: dict):
        check_init(params)
        self.params = dict(params)
        seed_everything(int(params["seed"]))
        loaded = self._load_model(params)
        self.model, self.info, self.source_dir = loaded.model, loaded.info, loaded.source_dir
        self.device = params["device"]
        self.lora = is_lora(self.model)
        decayed = decayed_names(self.model)
        self._prepare()
        named = [(n, p) for n, p in self.model.named_parameters() if p.requires_grad]
        self.trainable = [p for _, p in named]
        # the parameter names of each optimizer group, in order (checkpoint.py keys the optimizer state by them)
        self.group_names = [[n for n, _ in named if n in decayed], [n for n, _ in named if n not in decayed]]
        by_name = dict(named)
        self.optimizer = torch.optim.AdamW(
            [{"params": [by_name[n] for n in names], "decay": decay} for names, decay in zip(self.group_names, (True, False))],
            lr=0.0,
            fused=self.device == "cuda",
        )
        self.step = 0
        self._loaded = False  # weights came from a checkpoint (then the KL reference reloads the base)
        self._reference: torch.nn.Module | None = None

    def _load_model(self, params: dict):
        return load_model(
            params["model"], params["device"], params["dtype"], lora=params["lora"], adapter=params["adapter"],
            gradient_checkpointing=bool(params["gradientCheckpointing"]),
        )

    def _prepare(self) -> None:
        """After loading, before the optimizer is made (the distributed trainer shards here)."""

    # ── logprobs ─────────────────────────────────────────────────────────────────────────────
    def check_tokens(self, tokens: Tensor, lengths: Tensor) -> None:
        """Refuses a malformed flat batch (packing.check_rows) against this model."""
        check_rows(tokens, lengths, self.info["vocabSize"], self.info["maxSeqLen"])

    def _micro_batches(self, tokens: Tensor, lengths: Tensor):
        self.check_tokens(tokens, lengths)
        return micro_batches(tokens, lengths, self.params["microBatchTokens"], self.device)

    def _logprobs(self, model, mb, grad: bool) -> tuple[Tensor, Tensor]:
        return token_logprobs(model, mb.input_ids, mb.position_ids, self.params["logprobChunkTokens"], grad)

    @torch.no_grad()
    def compute_logprobs(self, tokens: Tensor, lengths: Tensor) -> Tensor:
        """log π_θ of every token (flat like `tokens`, 0 at each row's position 0), float32."""
        self.model.eval()
        out = torch.zeros(tokens.numel(), dtype=torch.float32)
        for mb in self._micro_batches(tokens, lengths):
            lp, _ = self._logprobs(self.model, mb, grad=False)
            out[mb.flat_index.cpu()] = lp.float().cpu()
        return out

    @torch.no_grad()
    def _reference_logprobs(self, mb) -> Tensor:
        if self.lora:
            with self.model.disable_adapter():
                return self._logprobs(self.model, mb, grad=False)[0]
        if self._reference is None:
            if self.step == 0 and not self._loaded:  # still the starting weights: copy them
                self._reference = copy.deepcopy(self.model).requires_grad_(False)
            else:
                p = self.params
                self._reference = load_model(p["model"], p["device"], p["dtype"], trainable=False).model
            self._reference.eval()
        return self._logprobs(self._reference, mb, grad=False)[0]

    # ── training ─────────────────────────────────────────────────────────────────────────────
    def check_batch(self, batch: dict[str, Tensor], loss: dict, denominators: dict, proximal: str) -> tuple[LossSpec, float, float]:
        """Refuses a malformed forward_backward call; returns its loss spec and denominators (tokens, rows)."""
        spec = parse_loss_spec(loss)
        if "tokens" not in batch or "lengths" not in batch:
            raise ValueError("forward_backward needs tensors tokens and lengths (int32, flat rows)")
        tokens, lengths = batch["tokens"], batch["lengths"]
        if proximal not in PROXIMAL:
            raise ValueError(f"proximal must be one of {', '.join(PROXIMAL)}, got {proximal!r}")
        fields = ["loss_mask", "advantages", "sampling_logprobs"] + (["proximal_logprobs"] if proximal == "given" else [])
        for key in fields:
            t = batch.get(key)
            if t is None or t.dtype != torch.float32 or t.shape != tokens.shape:
                raise ValueError(f"forward_backward needs tensor {key}: float32, one entry per token ({tokens.numel()})")
        n_tokens, n_rows = _denominators(denominators)
        self.check_tokens(tokens, lengths)
        return spec, n_tokens, n_rows

    def forward_backward(self, batch: dict[str, Tensor], loss: dict, denominators: dict, proximal: str) -> dict:
        spec, n_tokens, n_rows = self.check_batch(batch, loss, denominators, proximal)
        micro = micro_batches(batch["tokens"], batch["lengths"], self.params["microBatchTokens"], self.device)
        metrics = LossMetrics(spec)
        total = self._accumulate(batch, micro, spec, n_tokens, n_rows, proximal, metrics)
        return {"loss": total, "metrics": metrics.result(total, float(loss_mask(batch).sum()), int(batch["lengths"].numel()))}

    def _accumulate(self, batch: dict[str, Tensor], micro: list, spec: LossSpec, n_tokens: float, n_rows: float,
                    proximal: str, metrics: LossMetrics) -> float:
        """Forward and backward of each micro-batch of `batch` under the call's denominators; returns
        the sum of their losses (gradients accumulate in the parameters)."""
        mask = loss_mask(batch)
        on_device = lambda t: t.to(self.device)  # noqa: E731
        total = 0.0
        self.model.train()
        for mb in micro:
            idx = mb.flat_index.cpu()
            ref = self._reference_logprobs(mb) if spec.kl_coef > 0 else None
            lp, ent = self._logprobs(self.model, mb, grad=True)
            if proximal == "given":
                old = on_device(batch["proximal_logprobs"][idx])
            else:  # log μ (None: the loss falls back to sampling), or this forward's own logprobs
                old = lp.detach() if proximal == "current" else None
            b = LossBatch(
                logprobs=lp, entropy=ent, sampling=on_device(batch["sampling_logprobs"][idx]),
                advantages=on_device(batch["advantages"][idx]), mask=on_device(mask[idx]),
                row_ids=mb.row_ids, n_rows=len(mb.rows), proximal=old, ref=ref,
            )
            part = batch_loss(spec, b, n_tokens, n_rows, metrics)
            if part.requires_grad:
                part.backward()
            total += part.item()
        return total

    def optim_step(self, params: dict) -> dict:
        check_optim(params)
        for group in self.optimizer.param_groups:
            group.update(lr=params["lr"], betas=(params["beta1"], params["beta2"]), eps=params["eps"],
                         weight_decay=params["weightDecay"] if group["decay"] else 0.0)
        max_norm = params["maxGradNorm"] if params["maxGradNorm"] > 0 else math.inf
        grad_norm = self._clip_gradients(max_norm)
        self.optimizer.step()
        self.optimizer.zero_grad(set_to_none=True)
        self.step += 1
        return {"gradNorm": grad_norm, "step": self.step}

    def _clip_gradients(self, max_norm: float) -> float:
        """Clips the global gradient norm to `max_norm`; returns the norm before clipping."""
        return float(torch.nn.utils.clip_grad_norm_(self.trainable, max_norm))

    def gradients(self) -> dict[str, Tensor]:
        """The accumulated gradient of each trainable parameter (zeros before any), float32."""
        return {
            name: (p.grad if p.grad is not None else torch.zeros_like(p)).detach().float().cpu().contiguous()
            for name, p in self.model.named_parameters() if p.requires_grad
        }

    def export_weights(self, directory: str) -> str:
        """The trainable weights for the sampler (checkpoint.export); returns the kind."""
        checkpoint.export(self, directory)
        return "lora" if self.lora else "full"

    # ── checkpoints (checkpoint.py) ───────────────────────────────────────────────────────────
    is_main = True  # the process that writes files (rank 0 of a distributed trainer)

    def weights_state(self) -> dict[str, Tensor] | None:
        """The weights save_pretrained writes: None, the model's own state_dict."""
        return None

    def optimizer_state(self) -> dict:
        """The optimizer state keyed by parameter name."""
        return get_optimizer_state_dict(self.model, self.optimizer)

    def save(self, directory: str) -> list[str]:
        return checkpoint.save(self, directory)

    def load(self, directory: str) -> int:
        self._loaded = True
        self._reference = None
        return checkpoint.load(self, directory)

    def restore(self, saved: dict) -> int:
        return checkpoint.restore(self, saved)


def loss_mask(batch: dict[str, Tensor]) -> Tensor:
    """The batch's loss mask with every row's position 0 masked out (nothing predicts it)."""
    mask = batch["loss_mask"].clone()
    mask[row_starts(batch["lengths"].long())] = 0
    return mask


def _denominators(d: dict) -> tuple[float, float]:
    if not isinstance(d, dict) or any(
        isinstance(d.get(k), bool) or not isinstance(d.get(k), (int, float)) or d.get(k) < 0 for k in ("tokens", "rows")
    ):
        raise ValueError(f"denominators must be {{tokens: number ≥ 0, rows: number ≥ 0}}, got {d!r}")
    return float(d["tokens"]), float(d["rows"])


def _tensors(params: dict) -> dict[str, Tensor]:
    path = params.get("tensors")
    if not isinstance(path, str):
        raise ProtocolError("params.tensors must name a safetensors file in the exchange directory")
    return load_file(path)


def _string(params: dict, key: str) -> str:
    if not isinstance(params.get(key), str):
        raise ProtocolError(f"params.{key} must be a string")
    return params[key]


def register(server: Server) -> None:
    """The trainer's methods on `server`."""
    state: dict[str, Trainer] = {}

    def trainer() -> Trainer:
        if "t" not in state:
            raise RuntimeError("the trainer has no model yet: call init first")
        return state["t"]

    @server.method("init")
    def _init(params, _id):
        state.pop("t", None)
        state["t"] = Trainer(params)
        info = state["t"].info
        server.event("log", message=f"trainer: {info['architecture']}, {info['numParams']:,} parameters "
                                    f"({info['trainableParams']:,} trainable), {info['dtype']} on {info['device']}")
        return state["t"].info

    @server.method("forward_backward")
    def _forward_backward(params, _id):
        for key in ("loss", "denominators", "proximal"):
            if key not in params:
                raise ProtocolError(f"forward_backward needs params.{key}")
        return trainer().forward_backward(_tensors(params), params["loss"], params["denominators"], params["proximal"])

    @server.method("optim_step")
    def _optim_step(params, _id):
        return trainer().optim_step(params)

    @server.method("compute_logprobs")
    def _compute_logprobs(params, _id):
        t = _tensors(params)
        if "tokens" not in t or "lengths" not in t:
            raise ValueError("compute_logprobs needs tensors tokens and lengths")
        path = server.exchange_path("logprobs")
        save_file({"logprobs": trainer().compute_logprobs(t["tokens"], t["lengths"])}, path)
        return {"tensors": path}

    @server.method("gradients")
    def _gradients(params, _id):
        path = server.exchange_path("gradients")
        save_file(trainer().gradients(), path)
        return {"tensors": path}

    @server.method("export_weights")
    def _export(params, _id):
        return {"kind": trainer().export_weights(_string(params, "dir"))}

    @server.method("save")
    def _save(params, _id):
        return {"files": trainer().save(_string(params, "dir"))}

    @server.method("load")
    def _load(params, _id):
        return {"step": trainer().load(_string(params, "dir"))}
