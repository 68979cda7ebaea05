"""The trainer on N processes (distributed.py runs it under torchrun): the same methods as trainer.py's
`Trainer`, computing what one process computes.

Sharding (FSDP2): `fully_shard` on every decoder layer (the classes the model lists in
`_no_split_modules`), then on a root module whose forward is `token_logprobs`, so the root's hooks
gather the embeddings, the final norm and the LM head around exactly the computation that uses them.
On CUDA with bf16 the parameters stay fp32 (the optimizer's master weights) and FSDP casts them to
bf16 for compute, reducing gradients in fp32; on CPU everything is fp32. Every rank loads the same
weights and seeds the same RNG before the LoRA init, so every rank starts from the same model.

A forward_backward call, on every rank (each has the whole batch; distributed.py broadcasts it):

    rows     split across ranks by `share` (balanced by tokens, each rank's rows in order)
    loss     each rank's micro-batches under the CALL's denominators, so Σ_ranks ∂Lᵣ/∂θ = ∂L/∂θ
    grads    summed across ranks (FSDP's reduce-scatter with divide factor 1, not its default mean)
    steps    every rank runs the same number of micro-batches, each running the LM head: a rank
             short of micro-batches runs 2-token rows with loss mask 0 (zero gradient), and a
             1-token micro-batch gets a 1-token pad row, so FSDP's collectives line up and every
             rank reduces gradients for the same parameters
    result   loss and LossMetrics' sums added over ranks, its max taken over ranks, then
             LossMetrics.result as one process computes it

optim_step clips by the global norm (the DTensor norm's full_tensor), then each rank steps its
shard. compute_logprobs and gradients return the full result on rank 0 (None / {} elsewhere), in the
single-process layout. The KL reference: LoRA disables the adapter (as one process does); full
fine-tuning loads the base model again, sharded and frozen.
"""

from __future__ import annotations

import torch
import torch.distributed as dist
from torch import Tensor
from torch.distributed.checkpoint.state_dict import (
    StateDictOptions,
    get_model_state_dict,
    get_optimizer_state_dict,
    set_model_state_dict,
    set_optimizer_state_dict,
)
from torch.distributed.fsdp import FSDPModule, MixedPrecisionPolicy, fully_shard
from torch.distributed.tensor import DTensor

from rllm_worker import checkpoint
from rllm_worker.logprobs import token_logprobs
from rllm_worker.loss import LossMetrics
from rllm_worker.model import DTYPES, hf_model, load_model, resolve_dtype
from rllm_worker.packing import micro_batches, plan, row_starts
from rllm_worker.trainer import Trainer, loss_mask

FULL = StateDictOptions(full_state_dict=True, cpu_offload=True)  # gathered on rank 0, in CPU memory
FROM_RANK0 = StateDictOptions(full_state_dict=True, broadcast_from_rank0=True, strict=False)


def share(lengths: list[int], world: int) -> list[list[int]]:
    """Row indices per rank, balanced by tokens: longest row first to the rank with the fewest
    tokens so far (lowest rank on ties); each rank's rows in their original order."""
    load = [0] * world
    rows: list[list[int]] = [[] for _ in range(world)]
    for i in sorted(range(len(lengths)), key=lambda i: -lengths[i]):
        r = min(range(world), key=lambda r: load[r])
        rows[r].append(i)
        load[r] += lengths[i]
    return [sorted(r) for r in rows]


class _Logprobs(torch.nn.Module):
    """The FSDP root: `token_logprobs` of the model it holds."""

    def __init__(self, model: torch.nn.Module, chunk: int):
        super().__init__()
        self.model = model
        self.chunk = chunk

    def forward(self, input_ids: Tensor, position_ids: Tensor, grad: bool) -> tuple[Tensor, Tensor]:
        return token_logprobs(self.model, input_ids, position_ids, self.chunk, grad)


def shard(model: torch.nn.Module, chunk: int, mp_policy: MixedPrecisionPolicy) -> _Logprobs:
    """FSDP2 over `model` (in place): each decoder layer, then the `_Logprobs` root, which it returns.
    Gradients are summed across ranks: divide factor 1, as a plain SUM (gloo has no pre-multiplied
    sum, and NCCL's gains nothing at factor 1)."""
    layer_classes = set(getattr(hf_model(model), "_no_split_modules", None) or [])
    layers = [m for m in model.modules() if type(m).__name__ in layer_classes]
    if not layers:
        raise ValueError(f"cannot shard {type(hf_model(model)).__name__}: it names no decoder layer class "
                         f"(_no_split_modules is {sorted(layer_classes)})")
    for layer in layers:
        fully_shard(layer, mp_policy=mp_policy)
    root = fully_shard(_Logprobs(model, chunk), mp_policy=mp_policy)
    for m in root.modules():
        if isinstance(m, FSDPModule):
            m.set_gradient_divide_factor(1.0)
            m.set_force_sum_reduction_for_comms(True)
    return root


def check_shardable(source_dir: str) -> None:
    """Refuses, before any rank loads it, a model `shard` cannot wrap: one transformers does not
    know as a causal LM, or whose class names no decoder layer (`_no_split_modules`)."""
    from transformers import AutoConfig, AutoModelForCausalLM

    config = AutoConfig.from_pretrained(source_dir)
    try:
        cls = AutoModelForCausalLM._model_mapping[type(config)]
    except KeyError:
        raise ValueError(f"{source_dir}: transformers has no causal LM for {type(config).__name__}") from None
    if not getattr(cls, "_no_split_modules", None):
        raise ValueError(f"cannot shard {cls.__name__} over ranks: it names no decoder layer class "
                         f"(_no_split_modules); train it on one process (backend.nproc 1)")


class DistributedTrainer(Trainer):
    def __init__(self, params: dict):
        self.rank, self.world = dist.get_rank(), dist.get_world_size()
        super().__init__(params)

    # ── model ────────────────────────────────────────────────────────────────────────────────
    def _compute_dtype(self, params: dict) -> torch.dtype:
        return resolve_dtype(params["dtype"], params["device"])

    def _master_dtype(self, params: dict) -> str | None:
        """bf16 compute on CUDA keeps fp32 master weights (FSDP casts for compute)."""
        return "float32" if self._compute_dtype(params) == torch.bfloat16 else params["dtype"]

    def _load_model(self, params: dict, trainable: bool = True):
        loaded = load_model(
            params["model"], params["device"], self._master_dtype(params), lora=params["lora"] if trainable else None,
            adapter=params["adapter"] if trainable else None,
            gradient_checkpointing=bool(params["gradientCheckpointing"]), trainable=trainable,
        )
        loaded.info["dtype"] = str(self._compute_dtype(params)).removeprefix("torch.")
        return loaded

    def _shard(self, model: torch.nn.Module) -> _Logprobs:
        compute = self._compute_dtype(self.params)
        mp = MixedPrecisionPolicy(param_dtype=compute, reduce_dtype=torch.float32) if compute == torch.bfloat16 \
            else MixedPrecisionPolicy()
        return shard(model, self.params["logprobChunkTokens"], mp)

    def _prepare(self) -> None:
        self.is_main = self.rank == 0
        self.root = self._shard(self.model)
        self._reference_root: _Logprobs | None = None

    def _logprobs(self, model, mb, grad: bool) -> tuple[Tensor, Tensor]:
        root = self.root if model is self.model else self._reference_root
        return root(mb.input_ids, mb.position_ids, grad)

    @torch.no_grad()
    def _reference_logprobs(self, mb) -> Tensor:
        if self.lora:
            return super()._reference_logprobs(mb)
        if self._reference_root is None:  # the base model, sharded and frozen
            self._reference = self._load_model(self.params, trainable=False).model
            self._reference_root = self._shard(self._reference)
        return self._logprobs(self._reference, mb, grad=False)[0]

    # ── the rows of this rank ────────────────────────────────────────────────────────────────
    def _share(self, batch: dict[str, Tensor]) -> tuple[dict[str, Tensor], list, Tensor]:
        """This rank's rows of `batch` (each flat tensor, and lengths), then pad rows (loss mask 0)
        so that every micro-batch has 2+ tokens and every rank as many micro-batches; the packed
        micro-batches; and where the rank's real tokens sit in the call's flat arrays."""
        lengths = batch["lengths"].tolist()
        mine = share(lengths, self.world)[self.rank]
        starts = row_starts(batch["lengths"].long()).tolist()
        index = torch.cat([torch.arange(starts[r], starts[r] + lengths[r]) for r in mine]) if mine \
            else torch.zeros(0, dtype=torch.long)
        lens = [lengths[r] for r in mine]
        groups = plan(lens, self.params["microBatchTokens"]) if mine else []
        pads: list[int] = []
        for g in groups:
            if sum(lens[r] for r in g) == 1:
                g.append(len(lens) + len(pads))
                pads.append(1)
        count = torch.tensor([len(groups)])
        dist.all_reduce(count, op=dist.ReduceOp.MAX)
        while len(groups) < int(count):
            groups.append([len(lens) + len(pads)])
            pads.append(2)
        n_pad = sum(pads)
        local = {k: torch.cat([v[index], v.new_zeros(n_pad)]) for k, v in batch.items() if k != "lengths"}
        local["lengths"] = torch.tensor(lens + pads, dtype=torch.int32)
        micro = micro_batches(local["tokens"], local["lengths"], self.params["microBatchTokens"], self.device, groups)
        return local, micro, index

    def _sum(self, values: list[float], op=dist.ReduceOp.SUM) -> list[float]:
        t = torch.tensor(values, dtype=torch.float64)
        dist.all_reduce(t, op=op)
        return t.tolist()

    # ── the methods ──────────────────────────────────────────────────────────────────────────
    def forward_backward(self, batch: dict[str, Tensor], loss: dict, denominators: dict, proximal: str) -> dict:
        spec, n_tokens, n_rows = self.check_batch(batch, loss, denominators, proximal)
        local, micro, _ = self._share(batch)
        metrics = LossMetrics(spec)
        total = self._accumulate(local, micro, spec, n_tokens, n_rows, proximal, metrics)
        keys = list(metrics.sums)
        total, *sums = self._sum([total] + [metrics.sums[k] for k in keys])
        metrics.sums = dict(zip(keys, sums))
        metrics.max_abs_diff = self._sum([metrics.max_abs_diff], dist.ReduceOp.MAX)[0]
        return {"loss": total, "metrics": metrics.result(total, float(loss_mask(batch).sum()), int(batch["lengths"].numel()))}

    @torch.no_grad()
    def compute_logprobs(self, tokens: Tensor, lengths: Tensor) -> Tensor | None:
        self.check_tokens(tokens, lengths)
        local, micro, index = self._share({"tokens": tokens, "lengths": lengths})
        self.model.eval()
        out = torch.zeros(local["tokens"].numel(), dtype=torch.float32)
        for mb in micro:
            lp, _ = self._logprobs(self.model, mb, grad=False)
            out[mb.flat_index.cpu()] = lp.float().cpu()
        parts = [None] * self.world if self.is_main else None
        dist.gather_object((index, out[: index.numel()]), parts, dst=0)
        if not self.is_main:
            return None
        full = torch.zeros(tokens.numel(), dtype=torch.float32)
        for idx, values in parts:
            full[idx] = values
        return full

    def _clip_gradients(self, max_norm: float) -> float:
        grads = [p.grad for p in self.trainable if p.grad is not None]
        norm = torch.nn.utils.get_total_norm(grads)
        if isinstance(norm, DTensor):
            norm = norm.full_tensor()
        torch.nn.utils.clip_grads_with_norm_(self.trainable, max_norm, norm)
        return float(norm)

    def gradients(self) -> dict[str, Tensor]:
        """Rank 0: the full accumulated gradient of each trainable parameter (zeros before any)."""
        out = {}
        for name, p in self.model.named_parameters():
            if p.requires_grad:
                g = p.grad.full_tensor() if p.grad is not None else torch.zeros(p.shape)
                out[name] = g.detach().float().cpu().contiguous()
        return out if self.is_main else {}

    def export_weights(self, directory: str) -> str:
        weights = self.weights_state()
        if self.is_main:
            # the sampler serves in the compute dtype: fp32 master weights travel as bf16 (half the bytes)
            serve = DTYPES[self.info["dtype"]]
            weights = {k: v.to(serve) if v.is_floating_point() else v for k, v in weights.items()}
            checkpoint.export(self, directory, weights)
        return "lora" if self.lora else "full"

    # ── checkpoints ──────────────────────────────────────────────────────────────────────────
    def weights_state(self) -> dict[str, Tensor]:
        """Rank 0: the full weights save_pretrained writes (LoRA: the adapter's), on CPU."""
        return get_model_state_dict(self.model, options=StateDictOptions(
            full_state_dict=True, cpu_offload=True, ignore_frozen_params=self.lora))

    def optimizer_state(self) -> dict:
        return get_optimizer_state_dict(self.model, self.optimizer, options=FULL)

    def restore(self, saved: dict | None) -> int:
        """Rank 0 has `read`'s result (None elsewhere): every rank gets its shard of it."""
        set_model_state_dict(self.model, saved["weights"] if self.is_main else {}, options=FROM_RANK0)
        set_optimizer_state_dict(self.model, self.optimizer, saved["optimizer"] if self.is_main else {}, options=FROM_RANK0)
        box = [(saved["step"], saved["rng"]) if self.is_main else None]
        dist.broadcast_object_list(box, src=0)
        self.step, rng = box[0]
        checkpoint.set_rng_state(rng)
        return self.step

