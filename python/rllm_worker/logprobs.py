"""Per-token log π_θ(t) and entropy H_t of a packed micro-batch, in fp32 (fp64 for an fp64 model),
without materialising [tokens × vocab] in fp32 for the whole micro-batch: the decoder runs to its
last hidden states, then the LM head, log-softmax and entropy run over `chunk` tokens at a time,
each chunk under torch.utils.checkpoint when gradients are needed (backward recomputes it).

The LM head runs in the model's dtype (bf16 on CUDA, as the sampler's forward does); the logits are
cast to fp32 before the log-softmax and entropy.

    logits z = head(h_{t−1}),   log π_θ(t) = z[token_t] − logsumexp(z),   H_t = logsumexp(z) − Σ softmax(z)·z

Position 0 of every row (position_ids == 0) has no predictor: its logprob and entropy are 0.
"""

from __future__ import annotations

import torch
from torch import Tensor
from torch.utils.checkpoint import checkpoint

from rllm_worker.model import hf_model


def _head_chunk(head: torch.nn.Module, hidden: Tensor, targets: Tensor, softcap: float | None, dtype: torch.dtype):
    logits = head(hidden).to(dtype)
    if softcap:
        logits = torch.tanh(logits / softcap) * softcap
    lse = torch.logsumexp(logits, dim=-1)
    picked = logits.gather(-1, targets.unsqueeze(-1)).squeeze(-1)
    entropy = lse - (torch.softmax(logits, dim=-1) * logits).sum(-1)
    return picked - lse, entropy


def token_logprobs(
    model: torch.nn.Module, input_ids: Tensor, position_ids: Tensor, chunk: int, grad: bool
) -> tuple[Tensor, Tensor]:
    """(log π_θ, H) per token of the packed row [1, T] → two [T] tensors (0 at each row's start)."""
    if chunk < 1:
        raise ValueError(f"logprobChunkTokens must be ≥ 1, got {chunk}")
    net = hf_model(model)
    hidden = net.base_model(input_ids=input_ids, position_ids=position_ids, use_cache=False).last_hidden_state[0]
    head = net.get_output_embeddings()
    softcap = getattr(net.config.get_text_config(), "final_logit_softcapping", None)
    dtype = torch.promote_types(hidden.dtype, torch.float32)
    targets = input_ids[0, 1:]
    hidden = hidden[:-1]  # the last token predicts nothing in this row
    lps, ents = [], []
    for s in range(0, targets.numel(), chunk):
        h, y = hidden[s : s + chunk], targets[s : s + chunk]
        if grad and torch.is_grad_enabled():
            lp, ent = checkpoint(_head_chunk, head, h, y, softcap, dtype, use_reentrant=False)
        else:
            lp, ent = _head_chunk(head, h, y, softcap, dtype)
        lps.append(lp)
        ents.append(ent)
    zero = hidden.new_zeros(1, dtype=dtype)
    lp = torch.cat([zero, *lps])  # token t is predicted by hidden t−1
    ent = torch.cat([zero, *ents])
    start = position_ids[0] == 0
    return torch.where(start, torch.zeros_like(lp), lp), torch.where(start, torch.zeros_like(ent), ent)
