"""Packing a call's rows into micro-batches by a token budget, with no padding.

Rows are flat (PROTOCOL.md): `tokens` is every row's tokens concatenated, `lengths` splits them.
A micro-batch is whole rows, in order, while their tokens fit `budget` (a row longer than the
budget gets a micro-batch of its own), laid out as ONE packed row (batch dim 1):

    input_ids      [1, T]   the rows' tokens back to back
    position_ids   [1, T]   0, 1, …, n₀−1, 0, 1, …, n₁−1, …   (restart per row)

With `attention_mask=None` and no KV cache (`use_cache=False`), transformers (≥ 5.17,
masking_utils.find_packed_sequence_indices) reads the restarts in `position_ids` and builds a
block-diagonal causal mask, so attention never crosses rows; tests/test_train.py checks this
against one-row-at-a-time for Qwen3, Llama and GPT-NeoX with sdpa and eager attention.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor


@dataclass
class MicroBatch:
    rows: list[int]  # the call's row indices, in order
    input_ids: Tensor  # [1, T] long
    position_ids: Tensor  # [1, T] long
    flat_index: Tensor  # [T] long: where each packed token sits in the call's flat arrays
    row_ids: Tensor  # [T] long: each token's row within this micro-batch (0 … len(rows)−1)


def plan(lengths: list[int], budget: int) -> list[list[int]]:
    """Row indices grouped into micro-batches of at most `budget` tokens (in order; a row longer
    than the budget alone)."""
    if budget < 1:
        raise ValueError(f"microBatchTokens must be ≥ 1, got {budget}")
    groups: list[list[int]] = []
    size = budget + 1  # forces a new group for the first row
    for i, n in enumerate(lengths):
        if size + n > budget:
            groups.append([])
            size = 0
        groups[-1].append(i)
        size += n
    return groups


def row_starts(lengths: Tensor) -> Tensor:
    """The flat offset of each row: [0, n₀, n₀+n₁, …]."""
    return torch.cumsum(lengths, 0) - lengths


def micro_batches(
    tokens: Tensor, lengths: Tensor, budget: int, device: str | torch.device, groups: list[list[int]] | None = None
) -> list[MicroBatch]:
    """The packed micro-batches of a call's flat `tokens` split by `lengths` (grouped by `plan`, or
    as `groups` says)."""
    starts = row_starts(lengths).tolist()
    lens = lengths.tolist()
    out = []
    for rows in plan(lens, budget) if groups is None else groups:
        flat_index = torch.cat([torch.arange(starts[r], starts[r] + lens[r]) for r in rows])
        positions = torch.cat([torch.arange(lens[r]) for r in rows])
        row_ids = torch.cat([torch.full((lens[r],), i) for i, r in enumerate(rows)])
        out.append(
            MicroBatch(
                rows=rows,
                input_ids=tokens[flat_index].long().unsqueeze(0).to(device),
                position_ids=positions.unsqueeze(0).to(device),
                flat_index=flat_index.to(device),
                row_ids=row_ids.to(device),
            )
        )
    return out


def check_rows(tokens: Tensor, lengths: Tensor, vocab_size: int, max_seq_len: int = 0) -> None:
    """Refuses a malformed flat batch with an error that says what is wrong."""
    if tokens.dim() != 1 or lengths.dim() != 1:
        raise ValueError(f"tokens and lengths must be 1-D (flat rows), got shapes {list(tokens.shape)} and {list(lengths.shape)}")
    if tokens.dtype != torch.int32 or lengths.dtype != torch.int32:
        raise ValueError(f"tokens and lengths must be int32, got {tokens.dtype} and {lengths.dtype}")
    if lengths.numel() == 0:
        raise ValueError("the batch has no rows (lengths is empty)")
    if int(lengths.min()) < 1:
        raise ValueError(f"every row needs at least one token; lengths has {int(lengths.min())}")
    if int(lengths.sum()) != tokens.numel():
        raise ValueError(f"lengths sum to {int(lengths.sum())} but tokens has {tokens.numel()} entries")
    if max_seq_len and int(lengths.max()) > max_seq_len:
        raise ValueError(f"a row has {int(lengths.max())} tokens; the model's maxSeqLen is {max_seq_len} (truncate it)")
    if tokens.numel() and (int(tokens.min()) < 0 or int(tokens.max()) >= vocab_size):
        bad = int(tokens.min()) if int(tokens.min()) < 0 else int(tokens.max())
        raise ValueError(f"token id {bad} is outside the model's vocabulary [0, {vocab_size})")
