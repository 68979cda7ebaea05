"""Continuous-batching generation over any Hugging Face causal LM, with a KV cache.

Design — a ragged, left-padded batch:

    rows     the running sequences, one batch row each
    cache    one DynamicCache of plain (non-sliding) layers, keys/values [rows, heads, T, head_dim];
             row r's real tokens are the LAST n_r columns; the columns before them are padding
             (masked: zeros, or a prefill's pad columns). Attention-only models: a model with
             other layer kinds (linear attention, state-space) is refused at construction
    mask     [rows, T] bool, True on real columns — passed as the 2D attention_mask
    decode   input_ids [rows, 1] = each row's last sampled token, position_ids [rows, 1] = its own
             position n_r (rotary positions are per row; the mask's causal offset is the column T)

One `step()`:
  1. drop finished rows (index_select on the batch dim) and the leading columns no row uses;
  2. if a weight update is pending and nothing runs, apply it (see "Weights");
  3. admit waiting sequences up to `max_batch`: identical prompts are prefilled once and their
     cache repeated; distinct prompts prefill together, up to PREFILL_ROWS per forward, longest
     first, RIGHT-padded (a pad query still sees its row's real tokens, so no query row is ever
     fully masked and no attention implementation can produce NaN); then each row's columns are
     rotated so its real ones end at the last column. Each newcomer samples its first token from
     its prefill logits (`logits_to_keep` picks the rows' last real positions); its cache is
     left-padded to the running T (or the running cache to its length), concatenated on the
     batch dim, and columns no row uses are trimmed;
  4. one decode forward of every running row (old and new), one token each.
Because a row's real columns are contiguous and end at the last column, column distance equals
position distance, so sliding-window masks built from columns stay right (the cache itself keeps
every column: DynamicCache() without a config never trims).

Sampling, per sequence, from the fp32 logits z of its row, with z[i] = −inf for ids i ≥ vocabLimit
(when set: the model's embedding may have more rows than its tokenizer has ids — Qwen3: 151936 for
151669 — and an id the tokenizer cannot decode must never be sampled):
  - temperature 0: argmax z (lowest id on ties);
  - else p = softmax(z / temperature); top-k keeps the k most likely ids (k = 0: all), then top-p
    keeps the smallest prefix of them (by decreasing p, ties by lower id) whose mass reaches topP
    times the kept mass, as in vLLM and src/backends/local/generate.ts; then one draw by inverse
    CDF (in id order, or in that decreasing order when truncated) with u ~ U[0, 1) from the
    sequence's own torch.Generator, seeded by its seed alone, so its tokens do not depend on its
    batch-mates (same logits ⇒ same token).
Reported logprob of a sampled token: log_softmax(z) at temperature 1 with no truncation, in fp32 —
the trainer's log π_θ(token), not the log-probability under the truncated/tempered distribution
that was sampled from. Top alternatives: the `topLogprobs` largest of the same log_softmax, by
decreasing logprob, ties by lower id.

Endings, checked after each sampled token (the token is kept): a stop token ("stop", stopToken =
its id); `maxTokens` tokens sampled ("length"); prompt + completion = `maxSeqLen` ("length").
A sequence whose prompt already has `maxSeqLen` tokens, or with `maxTokens` 0, ends at once with
no token ("length"); a longer prompt or an empty one is refused. `stop(request, seqs)` ends
sequences now ("stop", stopToken None).

Weights: `update_weights(apply)` queues `apply` (a callable). Requests added after it wait; it runs
once every sequence of the requests added before it has ended, then the waiting requests start.
Updates queued together are applied together, in order, so no sequence mixes two weight versions.
"""

from __future__ import annotations

import inspect
from collections import deque
from dataclasses import dataclass, field
from typing import Callable

import torch
from transformers import DynamicCache

ATTENTION_LAYERS = {"full_attention", "sliding_attention"}
PREFILL_ROWS = 16  # distinct prompts per prefill forward; bounds its [rows, distinct lengths, vocab] logits


@dataclass(frozen=True)
class SamplingParams:
    """One request's settings, shared by its sequences. topK 0 = every token; topP 1 = no nucleus."""

    max_tokens: int
    temperature: float = 1.0
    top_p: float = 1.0
    top_k: int = 0
    stop_token_ids: frozenset[int] = frozenset()
    top_logprobs: int = 0
    max_seq_len: int = 2048
    vocab_limit: int | None = None  # ids ≥ this are never sampled nor listed; None: every id

    def __post_init__(self):
        stops = sorted(self.stop_token_ids)
        rules = [
            (_is_int(self.max_tokens) and self.max_tokens >= 0, "maxTokens must be an integer ≥ 0", self.max_tokens),
            (_is_num(self.temperature) and self.temperature >= 0, "temperature must be a number ≥ 0", self.temperature),
            (_is_num(self.top_p) and 0 < self.top_p <= 1, "topP must be in (0, 1]", self.top_p),
            (_is_int(self.top_k) and self.top_k >= 0, "topK must be an integer ≥ 0 (0: every token)", self.top_k),
            (all(_is_int(t) and t >= 0 for t in stops), "stopTokenIds must be token ids ≥ 0", stops),
            (_is_int(self.top_logprobs) and self.top_logprobs >= 0, "topLogprobs must be an integer ≥ 0", self.top_logprobs),
            (_is_int(self.max_seq_len) and self.max_seq_len >= 1, "maxSeqLen must be an integer ≥ 1", self.max_seq_len),
            (self.vocab_limit is None or (_is_int(self.vocab_limit) and self.vocab_limit >= 1),
             "vocabLimit must be an integer ≥ 1 (or null: every id)", self.vocab_limit),
        ]
        for ok, rule, value in rules:
            _check(ok, f"{rule}, got {value!r}")


def _is_int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _is_num(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _check(ok: bool, message: str) -> None:
    if not ok:
        raise ValueError(message)


@dataclass(eq=False)
class Sequence:
    request: "Request" = field(repr=False)
    index: int  # within its request
    prompt: list[int]
    generator: torch.Generator = field(repr=False)
    tokens: list[int] = field(default_factory=list)
    logprobs: list[float] = field(default_factory=list)
    top: list[list[tuple[int, float]]] = field(default_factory=list)
    finish: tuple[str, int | None] | None = None  # (reason, stopToken) once ended

    @property
    def cached(self) -> int:
        """Tokens in the KV cache: the prompt and every sampled token but the last."""
        return len(self.prompt) + len(self.tokens) - 1


@dataclass(eq=False)
class Request:
    id: int
    params: SamplingParams
    seqs: list[Sequence] = field(default_factory=list)

    @property
    def done(self) -> bool:
        return all(s.finish is not None for s in self.seqs)


@dataclass(frozen=True)
class Sampled:
    """One sampled token: token `pos` (0-based, in the completion) of sequence `seq` of `request`."""

    request: Request
    seq: int
    pos: int
    token: int
    logprob: float
    top: list[tuple[int, float]] | None


@dataclass
class StepResult:
    sampled: list[list[Sampled]]  # one list per forward of the step (prefills, then the decode)
    finished: list[Request]  # requests whose last sequence ended in this step


class Engine:
    def __init__(self, model: torch.nn.Module, max_batch: int | None = None):
        _check(max_batch is None or (_is_int(max_batch) and max_batch >= 1), f"maxBatch must be an integer ≥ 1, got {max_batch!r}")
        kinds = set(getattr(getattr(model, "config", None), "layer_types", None) or [])
        _check(
            kinds <= ATTENTION_LAYERS,
            f"the sampler batches attention-only models; this one has {sorted(kinds - ATTENTION_LAYERS)} layers",
        )
        self.model = model
        self.max_batch = max_batch
        self.device = next(model.parameters()).device
        self.rows: list[Sequence] = []
        self.cache: DynamicCache | None = None
        self.mask: torch.Tensor | None = None  # [rows, T] bool
        self.waiting: deque[Sequence] = deque()  # may start now
        self.held: list[Request] = []  # arrived after a pending weight update
        self.pending_weights: list[Callable[[], None]] = []
        self.requests: dict[int, Request] = {}
        self._keep_logits = _accepts(model, "logits_to_keep")
        self._kw = {"logits_to_keep": 1} if self._keep_logits else {}

    # ---- public API ----

    def add(self, request_id: int, prompts: list[list[int]], seeds: list[int], params: SamplingParams) -> Request:
        """Queues a request (one sequence per prompt); its sequences join at the next step."""
        _check(request_id not in self.requests, f"request {request_id} is already running")
        _check(len(prompts) >= 1, "a generate request needs at least one prompt")
        _check(len(seeds) == len(prompts), f"seeds has {len(seeds)} entries for {len(prompts)} prompts; give one seed per sequence")
        for i, p in enumerate(prompts):
            _check(len(p) >= 1, f"prompt {i} is empty; every sequence needs at least one prompt token")
            _check(len(p) <= params.max_seq_len, f"prompt {i} has {len(p)} tokens; maxSeqLen is {params.max_seq_len}")
        request = Request(request_id, params)
        for i, (p, seed) in enumerate(zip(prompts, seeds)):
            g = torch.Generator(device=self.device)
            g.manual_seed(int(seed))
            seq = Sequence(request, i, [int(t) for t in p], g)
            if params.max_tokens == 0 or len(p) >= params.max_seq_len:
                seq.finish = ("length", None)
            request.seqs.append(seq)
        if request.done:
            return request  # nothing to sample: the caller replies at once
        self.requests[request_id] = request
        if self.pending_weights:
            self.held.append(request)
        else:
            self._queue(request)
        return request

    def stop(self, request_id: int, seqs: list[int]) -> Request | None:
        """Ends sequences `seqs` of a running request now ("stop"); returns the request if that ended it."""
        request = self.requests.get(request_id)
        _check(request is not None, f"no running generate request {request_id}")
        for i in seqs:
            _check(_is_int(i) and 0 <= i < len(request.seqs), f"request {request_id} has no sequence {i!r} (it has {len(request.seqs)})")
        for i in seqs:
            if request.seqs[i].finish is None:
                request.seqs[i].finish = ("stop", None)
        self._compact()
        return self._retire(request)

    def update_weights(self, apply: Callable[[], None]) -> None:
        """Queues a weight update; it runs once the requests already added have ended (see the header)."""
        self.pending_weights.append(apply)

    def abort(self) -> list[Request]:
        """Drops every request (after a step failed); returns them. Queued weight updates stay."""
        requests = list(self.requests.values())
        self.requests, self.rows, self.cache, self.mask = {}, [], None, None
        self.waiting, self.held = deque(), []
        return requests

    def has_work(self) -> bool:
        return bool(self.rows or self.waiting or self.held or self.pending_weights)

    @torch.inference_mode()
    def step(self) -> StepResult:
        result = StepResult([], [])
        self._compact()
        if self.pending_weights and not self.rows and not self.waiting:
            updates, self.pending_weights = self.pending_weights, []
            with torch.inference_mode(False), torch.no_grad():  # weights stay normal tensors
                for apply in updates:
                    apply()
            for request in self.held:
                self._queue(request)
            self.held = []
        if self.waiting:
            result.sampled.extend(self._admit())
        live = [s for s in self.rows if s.finish is None]
        if live:
            result.sampled.append(self._decode())
        for phase in result.sampled:
            for rec in phase:
                if self._retire(rec.request) and rec.request not in result.finished:
                    result.finished.append(rec.request)
        self._compact()
        return result

    # ---- batch bookkeeping ----

    def _queue(self, request: Request) -> None:
        self.waiting.extend(s for s in request.seqs if s.finish is None)

    def _retire(self, request: Request) -> Request | None:
        """Forgets a request once all its sequences ended; returns it then."""
        if request.done and self.requests.get(request.id) is request:
            del self.requests[request.id]
            self.waiting = deque(s for s in self.waiting if s.request is not request)
            return request
        return None

    def _compact(self) -> None:
        """Drops finished rows, then the leading columns that no remaining row uses."""
        keep = [i for i, s in enumerate(self.rows) if s.finish is None]
        if len(keep) == len(self.rows):
            return
        if not keep:
            self.rows, self.cache, self.mask = [], None, None
            return
        idx = torch.tensor(keep, device=self.device)
        self.rows = [self.rows[i] for i in keep]
        self.mask = self.mask.index_select(0, idx)
        for layer in self.cache.layers:
            layer.keys, layer.values = layer.keys.index_select(0, idx), layer.values.index_select(0, idx)
        self._trim()

    def _trim(self) -> None:
        first = int(self.mask.any(0).nonzero()[0, 0])
        if first > 0:
            self.mask = self.mask[:, first:]
            for layer in self.cache.layers:
                layer.keys, layer.values = layer.keys[:, :, first:], layer.values[:, :, first:]

    def _merge(self, cache: DynamicCache, mask: torch.Tensor) -> None:
        """Appends the rows of a left-padded `cache` whose real columns `mask` [rows, T'] marks."""
        if self.cache is None:
            self.cache, self.mask = cache, mask
        else:
            T = max(self.mask.shape[1], mask.shape[1])
            self.mask = torch.cat([_left_pad(self.mask, T), _left_pad(mask, T)], 0)
            for mine, new in zip(self.cache.layers, cache.layers):
                mine.keys = torch.cat([_left_pad(mine.keys, T, dim=2), _left_pad(new.keys, T, dim=2)], 0)
                mine.values = torch.cat([_left_pad(mine.values, T, dim=2), _left_pad(new.values, T, dim=2)], 0)
        self._trim()

    # ---- forwards ----

    def _admit(self) -> list[list[Sampled]]:
        room = len(self.waiting) if self.max_batch is None else self.max_batch - len(self.rows)
        newcomers = [self.waiting.popleft() for _ in range(min(room, len(self.waiting)))]
        newcomers = [s for s in newcomers if s.finish is None]  # stop() may have ended a waiting one
        unique: dict[tuple[int, ...], list[Sequence]] = {}
        for s in newcomers:
            unique.setdefault(tuple(s.prompt), []).append(s)
        prompts = sorted(unique, key=len, reverse=True)  # neighbours in a prefill have similar lengths
        return [
            self._prefill(chunk, [unique[p] for p in chunk])
            for chunk in (prompts[i : i + PREFILL_ROWS] for i in range(0, len(prompts), PREFILL_ROWS))
        ]

    def _prefill(self, prompts: list[tuple[int, ...]], groups: list[list[Sequence]]) -> list[Sampled]:
        """One forward of distinct prompts (longest first), RIGHT-padded so that no query row is
        fully masked; then each row's real columns move to the end (the batch's left-padded layout)
        and each group's sequences get their prompt's row."""
        n, L = len(prompts), len(prompts[0])
        lengths = torch.tensor([len(p) for p in prompts], device=self.device)
        cols = torch.arange(L, device=self.device)
        ids = torch.tensor([list(p) + [0] * (L - len(p)) for p in prompts], dtype=torch.long, device=self.device)
        ends = sorted({len(p) - 1 for p in prompts})
        kw = {"logits_to_keep": torch.tensor(ends, device=self.device)} if self._keep_logits else {}
        cache = DynamicCache()
        out = self.model(
            input_ids=ids,
            attention_mask=(cols[None, :] < lengths[:, None]).long(),
            position_ids=cols.expand(n, -1),
            past_key_values=cache,
            use_cache=True,
            **kw,
        )
        at = [ends.index(len(p) - 1) if self._keep_logits else len(p) - 1 for p in prompts]
        logits = out.logits[torch.arange(n, device=self.device), torch.tensor(at, device=self.device)]
        repeat = torch.tensor([len(g) for g in groups], device=self.device)
        seqs = [s for g in groups for s in g]
        records = self._sample(seqs, logits.repeat_interleave(repeat, 0))
        alive = torch.tensor([s.finish is None for s in seqs], device=self.device)
        if bool(alive.any()):
            rows = torch.arange(n, device=self.device).repeat_interleave(repeat)[alive]
            shift = (L - lengths).index_select(0, rows)[:, None]  # new column t holds old column t - shift
            src = ((cols[None, :] - shift) % L)[:, None, :, None]
            for layer in cache.layers:
                index = src.expand(-1, layer.keys.shape[1], -1, layer.keys.shape[3])
                layer.keys = layer.keys.index_select(0, rows).gather(2, index)
                layer.values = layer.values.index_select(0, rows).gather(2, index)
            self._merge(cache, cols[None, :] >= shift)
            self.rows.extend(s for s in seqs if s.finish is None)
        return records

    def _decode(self) -> list[Sampled]:
        """One forward of every running row's last token; samples one token per row."""
        n = len(self.rows)
        ids = torch.tensor([[s.tokens[-1]] for s in self.rows], dtype=torch.long, device=self.device)
        pos = torch.tensor([[s.cached] for s in self.rows], dtype=torch.long, device=self.device)
        self.mask = torch.cat([self.mask, torch.ones(n, 1, dtype=torch.bool, device=self.device)], 1)
        out = self.model(
            input_ids=ids,
            attention_mask=self.mask,
            position_ids=pos,
            past_key_values=self.cache,
            use_cache=True,
            **self._kw,
        )
        return self._sample(self.rows, out.logits[:, -1])

    # ---- sampling ----

    def _sample(self, seqs: list[Sequence], logits: torch.Tensor) -> list[Sampled]:
        """Samples one token per sequence from its row of `logits` [n, V]; records and ends them."""
        z = logits.float()
        logprobs = torch.log_softmax(z, dim=-1)
        allowed = _allowed(seqs, z.shape[1], z.device)
        tokens = _choose(seqs, z if allowed is None else z.masked_fill(~allowed, float("-inf")))
        chosen = logprobs.gather(1, torch.tensor(tokens, device=z.device)[:, None])[:, 0].tolist()
        tops = _top_alternatives(seqs, logprobs if allowed is None else logprobs.masked_fill(~allowed, float("-inf")))
        records = []
        for s, token, lp, top in zip(seqs, tokens, chosen, tops):
            records.append(Sampled(s.request, s.index, len(s.tokens), token, lp, top))
            s.tokens.append(token)
            s.logprobs.append(lp)
            if top is not None:
                s.top.append(top)
            _maybe_end(s, token)
        return records


def _maybe_end(s: Sequence, token: int) -> None:
    p = s.request.params
    if token in p.stop_token_ids:
        s.finish = ("stop", token)
    elif len(s.tokens) >= p.max_tokens or len(s.prompt) + len(s.tokens) >= p.max_seq_len:
        s.finish = ("length", None)


def _allowed(seqs: list[Sequence], V: int, device) -> torch.Tensor | None:
    """[n, V] bool, True on the ids each row may sample (below its vocabLimit); None: every id everywhere."""
    limits = [s.request.params.vocab_limit for s in seqs]
    if all(v is None or v >= V for v in limits):
        return None
    limit = torch.tensor([V if v is None else v for v in limits], device=device)
    return torch.arange(V, device=device)[None, :] < limit[:, None]


def _choose(seqs: list[Sequence], z: torch.Tensor) -> list[int]:
    """One token per row of fp32 logits `z`, each row under its own sequence's settings (header)."""
    V = z.shape[1]
    temps = [s.request.params.temperature for s in seqs]
    tokens = z.argmax(dim=-1).tolist()  # greedy rows keep these
    sampled = [i for i, t in enumerate(temps) if t > 0]
    if not sampled:
        return tokens
    rows = torch.tensor(sampled, device=z.device)
    scaled = z.index_select(0, rows) / torch.tensor([temps[i] for i in sampled], device=z.device)[:, None]
    params = [seqs[i].request.params for i in sampled]
    truncate = [(0 < p.top_k < V) or p.top_p < 1 for p in params]
    probs = torch.softmax(scaled, dim=-1)  # id order
    cut = torch.tensor(truncate, device=z.device)
    if any(truncate):
        in_order, order = _truncated(scaled, params)  # decreasing order
        probs = torch.where(cut[:, None], in_order, probs)
    # inverse CDF: the first token whose cumulative mass exceeds u · total, u ~ U[0, 1) from the
    # sequence's own generator (one number per sequence per token)
    u = torch.stack([torch.rand((), generator=seqs[i].generator, device=z.device, dtype=torch.float64) for i in sampled])
    cdf = probs.double().cumsum(dim=-1)
    picks = torch.searchsorted(cdf, (u * cdf[:, -1])[:, None], right=True)[:, 0]
    last = V - 1 - (probs > 0).flip(-1).int().argmax(dim=-1)  # rounding must not pick past the last kept token
    picks = torch.minimum(picks, last)
    if any(truncate):
        picks = torch.where(cut, order.gather(1, picks[:, None])[:, 0], picks)
    for i, token in zip(sampled, picks.tolist()):
        tokens[i] = token
    return tokens


def _truncated(scaled: torch.Tensor, params: list[SamplingParams]) -> tuple[torch.Tensor, torch.Tensor]:
    """Probabilities in decreasing order (ties: lower id first) with top-k, then top-p, applied; and the order."""
    V = scaled.shape[1]
    sorted_z, order = scaled.sort(dim=-1, descending=True, stable=True)
    rank = torch.arange(V, device=scaled.device)[None, :]
    k = torch.tensor([p.top_k if 0 < p.top_k < V else V for p in params], device=scaled.device)[:, None]
    sorted_z = sorted_z.masked_fill(rank >= k, float("-inf"))
    probs = torch.softmax(sorted_z, dim=-1)
    top_p = torch.tensor([p.top_p for p in params], dtype=probs.dtype, device=scaled.device)[:, None]
    before = probs.cumsum(dim=-1) - probs  # mass of the more likely tokens
    probs = probs.masked_fill((before >= top_p) & (rank > 0), 0.0)
    return probs, order


def _top_alternatives(seqs: list[Sequence], logprobs: torch.Tensor) -> list[list[tuple[int, float]] | None]:
    wanted = [s.request.params.top_logprobs for s in seqs]
    out: list[list[tuple[int, float]] | None] = [None] * len(seqs)
    rows = [i for i, k in enumerate(wanted) if k > 0]
    if not rows:
        return out
    k = min(max(wanted[i] for i in rows), logprobs.shape[1])
    vals, ids = logprobs.index_select(0, torch.tensor(rows, device=logprobs.device)).sort(dim=-1, descending=True, stable=True)
    vals, ids = vals[:, :k].tolist(), ids[:, :k].tolist()
    for j, i in enumerate(rows):
        n = wanted[i]
        out[i] = list(zip(ids[j][:n], vals[j][:n]))
    return out


def _left_pad(x: torch.Tensor, length: int, dim: int = 1) -> torch.Tensor:
    missing = length - x.shape[dim]
    if missing == 0:
        return x
    shape = list(x.shape)
    shape[dim] = missing
    return torch.cat([x.new_zeros(shape), x], dim)


def _accepts(model: torch.nn.Module, name: str) -> bool:
    forward = getattr(model, "get_base_model", lambda: model)().forward
    params = inspect.signature(forward).parameters
    return name in params or any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
