"""The losses of `src/algorithms/loss.ts`, in torch: the same specs, formulas, edge cases and metrics,
so the torch backend trains exactly what the local backend trains (pinned by the golden cases of
src/algorithms/loss-goldens.test.ts, checked in tests/test_loss.py).

Notation, per sampled token t of row i (tokens with loss mask 0 take no part):

    log π_θ(t)     the policy being trained (gradients flow through it, and through H_t)
    log μ(t)       the sampling policy that generated the token (sampling_logprobs)
    log π_old(t)   the proximal policy (proximal_logprobs); log μ when not given
    log π_ref(t)   the frozen reference policy, for the KL penalty
    A_t, m_t       the advantage and the loss mask
    r_t = exp(log π_θ(t) − log π_old(t))     the policy ratio
    sg(·)          stop-gradient (`.detach()`)

Policy-gradient term ℓᵖᵍ_t by `kind`:

    cross_entropy        ℓᵖᵍ = −log π_θ(t)                                   (advantages ignored)
    importance_sampling  ℓᵖᵍ = −w·r·A
    ppo                  ℓᵖᵍ = w·max(−r·A, −clip(r, 1 − ε_low, 1 + ε_high)·A)
                         (gradient 0 where the clipped term is the larger)
    cispo                ℓᵖᵍ = −w·sg(clip(r, 1 − ε_low, 1 + ε_high))·A·log π_θ(t)

Truncated importance sampling, `tisCap` = C:  w = sg(min(exp(log π_old − log μ), C)), else w = 1.
KL to the reference, `kl: {coef: β, estimator}`, δ = log π_ref − log π_θ:
    k1 = −δ,   k2 = ½·δ²,   k3 = exp(δ) − δ − 1
Per token:  ℓ_t = ℓᵖᵍ_t + β·k_t − c_H·H_t   (H_t the policy's entropy at t; `entropyCoef` = c_H)

Aggregation, row scale sᵢ from the *batch's* denominators (tokens Σm and rows N with at least one
masked-in token; a batch split over calls or micro-batches passes the whole batch's):

    token-mean           sᵢ = 1/Σm
    seq-mean-token-sum   sᵢ = 1/N
    seq-mean-token-mean  sᵢ = 1/(N·Σ_t mᵢ)           L = Σᵢ Σ_t sᵢ·m·ℓ_t

A row with no masked-in token, or a batch with none, weighs 0.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import Tensor

KINDS = ("cross_entropy", "importance_sampling", "ppo", "cispo")
AGGREGATIONS = ("token-mean", "seq-mean-token-sum", "seq-mean-token-mean")
KL_ESTIMATORS = ("k1", "k2", "k3")
_COMMON_KEYS = {"kind", "kl", "entropyCoef", "aggregation"}
_KIND_KEYS = {
    "cross_entropy": set(),
    "importance_sampling": {"tisCap"},
    "ppo": {"clipLow", "clipHigh", "tisCap"},
    "cispo": {"clipLow", "clipHigh", "tisCap"},
}


class LossSpecError(ValueError):
    """A loss spec the worker cannot run: names the key and what to send instead."""


@dataclass(frozen=True)
class LossSpec:
    kind: str
    aggregation: str
    entropy_coef: float
    kl_coef: float = 0.0  # β; 0 without a KL term
    kl_estimator: str | None = None
    clip_low: float | None = None  # ε_low (ppo, cispo)
    clip_high: float | None = None  # ε_high (ppo, cispo)
    tis_cap: float | None = None  # C (not cross_entropy)


def _number(spec: dict, key: str, lo: float, hi: float = math.inf) -> float:
    v = spec.get(key)
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not lo <= v <= hi:
        raise LossSpecError(f"loss.{key} must be a number in [{lo}, {hi}], got {v!r}")
    return float(v)


def parse_loss_spec(spec: dict) -> LossSpec:
    """The LossSpec of loss.ts as the TypeScript side sends it (defaults filled in; `kl` and
    `tisCap` absent or null when unused). Unknown keys and out-of-range values are errors."""
    if not isinstance(spec, dict):
        raise LossSpecError(f"loss must be an object (a LossSpec), got {type(spec).__name__}")
    kind = spec.get("kind")
    if kind not in KINDS:
        raise LossSpecError(f"loss.kind must be one of {', '.join(KINDS)}; got {kind!r}")
    unknown = set(spec) - _COMMON_KEYS - _KIND_KEYS[kind]
    if unknown:
        raise LossSpecError(f"loss kind {kind} has no key(s) {', '.join(sorted(unknown))}")
    for key in {"entropyCoef", "aggregation"} | ({"clipLow", "clipHigh"} & _KIND_KEYS[kind]):
        if key not in spec:
            raise LossSpecError(f"loss.{key} is missing: send the LossSpec with its defaults filled in")
    if spec["aggregation"] not in AGGREGATIONS:
        raise LossSpecError(f"loss.aggregation must be one of {', '.join(AGGREGATIONS)}; got {spec['aggregation']!r}")
    fields = dict(kind=kind, aggregation=spec["aggregation"], entropy_coef=_number(spec, "entropyCoef", 0.0))
    kl = spec.get("kl")
    if kl is not None:
        if not isinstance(kl, dict) or set(kl) - {"coef", "estimator"} or kl.get("estimator") not in KL_ESTIMATORS:
            raise LossSpecError(f"loss.kl must be {{coef: number ≥ 0, estimator: k1|k2|k3}}, got {kl!r}")
        fields.update(kl_coef=_number(kl, "coef", 0.0), kl_estimator=kl["estimator"])
    if "clipLow" in _KIND_KEYS[kind]:
        fields.update(clip_low=_number(spec, "clipLow", 0.0, 1.0), clip_high=_number(spec, "clipHigh", 0.0))
    if spec.get("tisCap") is not None:
        fields["tis_cap"] = _number(spec, "tisCap", 1.0)
    return LossSpec(**fields)


@dataclass
class TokenTerms:
    """ℓ_t (in the autograd graph) and what went into it (constants), per masked-in token."""

    value: Tensor
    ratio: Tensor  # r_t (1 for cross_entropy)
    clipped: Tensor  # bool: ppo's clipped term won; cispo's weight was cut
    tis_weight: Tensor  # w_t
    kl: Tensor  # k_t before β (0 without a KL term)


def token_loss(
    spec: LossSpec,
    logprobs: Tensor,
    sampling: Tensor,
    advantages: Tensor,
    proximal: Tensor | None = None,
    ref: Tensor | None = None,
    entropy: Tensor | None = None,
) -> TokenTerms:
    """ℓ_t for each token given (all 1-D, aligned), as the header's formulas."""
    old = (sampling if proximal is None else proximal).detach()
    A = advantages
    one = torch.ones_like(logprobs).detach()
    if spec.kind == "cross_entropy":
        ratio = one
        value = -logprobs
    else:
        ratio = torch.exp(logprobs - old)  # r_t, with its gradient
    w = torch.minimum(torch.exp(old - sampling), one * spec.tis_cap) if spec.tis_cap is not None else one
    w = w.detach()
    clipped = torch.zeros_like(logprobs, dtype=torch.bool)
    if spec.kind == "importance_sampling":
        value = -w * ratio * A
    elif spec.kind == "ppo":
        unclipped_term = -ratio * A
        clipped_term = -torch.clamp(ratio, 1 - spec.clip_low, 1 + spec.clip_high) * A
        clipped = (clipped_term > unclipped_term).detach()
        value = w * torch.where(clipped, clipped_term.detach(), unclipped_term)
    elif spec.kind == "cispo":
        weight = torch.clamp(ratio.detach(), 1 - spec.clip_low, 1 + spec.clip_high)
        clipped = weight != ratio.detach()
        value = -w * weight * A * logprobs

    kl = torch.zeros_like(logprobs).detach()
    if spec.kl_coef > 0:
        if ref is None:
            raise ValueError("the loss has a KL term but no reference logprobs were given")
        delta = ref.detach() - logprobs  # δ_t
        if spec.kl_estimator == "k1":
            k = -delta
        elif spec.kl_estimator == "k2":
            k = 0.5 * delta * delta
        else:
            k = torch.exp(delta) - delta - 1
        value = value + spec.kl_coef * k
        kl = k.detach()
    if spec.entropy_coef > 0:
        if entropy is None:
            raise ValueError("the loss has an entropy bonus but no per-token entropies were given")
        value = value - spec.entropy_coef * entropy
    return TokenTerms(value=value, ratio=ratio.detach(), clipped=clipped, tis_weight=w, kl=kl)


def aggregation_scale(aggregation: str, row_tokens: Tensor, tokens: float, rows: float) -> Tensor:
    """sᵢ per row from its masked-in token count Σ_t mᵢ and the batch's denominators (Σm, N)."""
    if tokens == 0:
        return torch.zeros_like(row_tokens)
    if aggregation == "token-mean":
        s = torch.full_like(row_tokens, 1.0 / tokens)
    elif aggregation == "seq-mean-token-sum":
        s = torch.full_like(row_tokens, 1.0 / rows)
    else:
        s = 1.0 / (rows * row_tokens)
    return torch.where(row_tokens != 0, s, torch.zeros_like(s))


class LossMetrics:
    """The metrics of LossMetrics.result in loss.ts, accumulated over masked-in tokens (across
    micro-batches), plus `loss/rows` (the rows of the call)."""

    def __init__(self, spec: LossSpec):
        self.spec = spec
        self.sums = {"ratio": 0.0, "kl": 0.0, "entropy": 0.0, "clipped": 0.0, "capped": 0.0}
        self.max_abs_diff = 0.0

    def add(self, terms: TokenTerms, entropy: Tensor, logprob_diff: Tensor) -> None:
        """Masked-in tokens: their terms, H_t and log π_θ(t) − log μ(t)."""
        if terms.ratio.numel() == 0:
            return
        self.sums["ratio"] += terms.ratio.double().sum().item()
        self.sums["kl"] += terms.kl.double().sum().item()
        self.sums["entropy"] += entropy.detach().double().sum().item()
        self.sums["clipped"] += terms.clipped.sum().item()
        if self.spec.tis_cap is not None:
            self.sums["capped"] += (terms.tis_weight == self.spec.tis_cap).sum().item()
        self.max_abs_diff = max(self.max_abs_diff, logprob_diff.detach().abs().max().item())

    def result(self, loss: float, mask_sum: float, rows: int) -> dict[str, float]:
        n = max(mask_sum, 1)
        mean = (lambda key: self.sums[key] / n) if mask_sum else (lambda key: 0.0)
        return {
            "loss/value": loss,
            "loss/tokens": mask_sum,
            "loss/ratio_mean": mean("ratio"),
            "loss/clip_fraction": mean("clipped"),
            "loss/tis_capped_fraction": mean("capped"),
            "loss/kl_mean": mean("kl"),
            "loss/entropy_mean": mean("entropy"),
            "logprob_diff/max_abs": self.max_abs_diff,
            "loss/rows": rows,
        }


@dataclass
class LossBatch:
    """Flat per-token tensors of whole rows (a call or one micro-batch): `row_ids[t]` is token t's row
    among `n_rows`. `mask` is 0 wherever a token takes no part (position 0 of every row included)."""

    logprobs: Tensor
    entropy: Tensor
    sampling: Tensor
    advantages: Tensor
    mask: Tensor
    row_ids: Tensor
    n_rows: int
    proximal: Tensor | None = None
    ref: Tensor | None = None


def batch_loss(spec: LossSpec, b: LossBatch, tokens: float, rows: float, metrics: LossMetrics | None = None) -> Tensor:
    """This batch's part of L = Σᵢ Σ_t sᵢ·m·ℓ_t under the whole batch's denominators (tokens, rows);
    masked-out tokens are dropped before any arithmetic (their inputs may be anything)."""
    keep = b.mask != 0
    pick = lambda x: None if x is None else x[keep]  # noqa: E731
    m, row_ids = b.mask[keep], b.row_ids[keep]
    terms = token_loss(
        spec, b.logprobs[keep], b.sampling[keep], b.advantages[keep], pick(b.proximal), pick(b.ref), b.entropy[keep]
    )
    row_tokens = torch.zeros(b.n_rows, dtype=m.dtype, device=m.device).index_add_(0, row_ids, m)
    scale = aggregation_scale(spec.aggregation, row_tokens, tokens, rows)
    if metrics is not None:
        metrics.add(terms, b.entropy[keep], b.logprobs[keep] - b.sampling[keep])
    return (scale[row_ids] * m * terms.value).sum()
