"""The generation engine (rllm_worker/generate.py) against full forwards of the same model:
greedy = an argmax loop, logprobs = log_softmax of a full forward, a sequence's tokens independent
of its batch-mates and of when it joined, endings, top alternatives, truncation, stop(), weight
updates and refusals. Tiny fp32 models (Qwen3, Llama, GPT-NeoX) on CPU."""

from __future__ import annotations

import copy

import pytest
import torch
from transformers import AutoModelForCausalLM, GPTNeoXConfig, GPTNeoXForCausalLM

from rllm_worker.generate import Engine, SamplingParams

torch.set_num_threads(1)

PROMPTS = [[5, 6, 7], [9, 10, 11, 12, 13, 14], [3], [5, 6, 7], [40, 41, 42, 43]]


@pytest.fixture(scope="module", params=["qwen3", "llama", "gpt_neox"])
def model(request, tmp_path_factory):
    if request.param == "gpt_neox":
        torch.manual_seed(0)
        config = GPTNeoXConfig(vocab_size=512, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                               num_attention_heads=4, rotary_pct=0.25, max_position_embeddings=256)
        m = GPTNeoXForCausalLM(config)
        with torch.no_grad():
            for p in m.parameters():
                if p.dim() >= 2:
                    p.normal_(0.0, 0.2)
        return m.eval()
    from tiny_models import make_tiny_model

    directory = make_tiny_model(tmp_path_factory.mktemp(f"gen-{request.param}"), request.param)
    return AutoModelForCausalLM.from_pretrained(directory).eval()


def params(**kw) -> SamplingParams:
    return SamplingParams(**{"max_tokens": 12, "temperature": 1.0, "max_seq_len": 200, **kw})


def run(engine: Engine, *requests, on_step=None) -> list:
    """Adds (id, prompts, seeds, params) requests, steps until idle; returns the Request objects."""
    out = [engine.add(*r) for r in requests]
    steps = 0
    while engine.has_work():
        engine.step()
        steps += 1
        if on_step:
            on_step(steps)
        assert steps < 1000, "engine did not finish"
    assert all(r.done for r in out)
    return out


def tokens(request) -> list[list[int]]:
    return [s.tokens for s in request.seqs]


def solo(model, prompt, seed, p) -> list[int]:
    return tokens(run(Engine(model), (0, [prompt], [seed], p))[0])[0]


@torch.no_grad()
def full_logprobs(model, ids: list[int]) -> torch.Tensor:
    """log π(ids[t] | ids[:t]) for t ≥ 1, from one forward without a cache."""
    logits = model(torch.tensor([ids])).logits[0].float()
    return torch.log_softmax(logits[:-1], -1).gather(1, torch.tensor(ids[1:])[:, None])[:, 0]


@torch.no_grad()
def test_greedy_equals_argmax_loop(model):
    (req,) = run(Engine(model), (1, PROMPTS, [0] * len(PROMPTS), params(temperature=0.0)))
    for prompt, got in zip(PROMPTS, tokens(req)):
        ids = list(prompt)
        for _ in range(12):
            ids.append(int(model(torch.tensor([ids])).logits[0, -1].argmax()))
        assert got == ids[len(prompt):]


def test_seeded_runs_repeat_and_seeds_differ(model):
    p = params(max_tokens=16)
    a = tokens(run(Engine(model), (1, [[5, 6, 7]] * 3, [11, 11, 12], p))[0])
    b = tokens(run(Engine(model), (1, [[5, 6, 7]] * 3, [11, 11, 12], p))[0])
    assert a == b
    assert a[0] == a[1], "the same seed on the same prompt samples the same tokens"
    assert a[0] != a[2], "different seeds sample different tokens"


def test_sequence_alone_equals_batched(model):
    # In float64: a batch may take other matmul kernels than one row (oneDNN chooses by shape and
    # CPU), and in fp32 that moves a logit by ~1e-6, enough to flip a near-tie draw on some CPUs
    # (an AMD EPYC with AVX-512 BF16 did). The claim tested is the engine's: no state leaks between
    # batch-mates, each has its own generator.
    m = copy.deepcopy(model).double()
    p = params(max_tokens=10, top_k=50, top_p=0.9)
    seeds = [1, 2, 3, 4, 5]
    (batched,) = run(Engine(m), (1, PROMPTS, seeds, p))
    for prompt, seed, got in zip(PROMPTS, seeds, tokens(batched)):
        assert got == solo(m, prompt, seed, p)


def test_request_joins_running_batch(model):
    p1, p2 = params(max_tokens=12), params(max_tokens=6, temperature=0.7)
    engine = Engine(model)
    shared = []
    first = engine.add(1, [[5, 6, 7], [9, 10]], [1, 2], p1)
    second = []

    def on_step(n):
        if n == 3:
            second.append(engine.add(2, [[40, 41, 42, 43, 44]], [3], p2))
        running = {s.request.id for s in engine.rows}
        if running == {1, 2} and not first.done:
            shared.append(n)

    run(engine, on_step=on_step)
    assert shared, "no step ran both requests' sequences together"
    assert tokens(first) == [solo(model, [5, 6, 7], 1, p1), solo(model, [9, 10], 2, p1)]
    assert tokens(second[0]) == [solo(model, [40, 41, 42, 43, 44], 3, p2)]


def test_logprobs_equal_full_forward(model):
    (req,) = run(Engine(model), (1, PROMPTS, [7, 8, 9, 10, 11], params(max_tokens=16, temperature=0.8, top_k=20)))
    worst = 0.0
    for prompt, s in zip(PROMPTS, req.seqs):
        ref = full_logprobs(model, prompt + s.tokens)[len(prompt) - 1:]
        worst = max(worst, (torch.tensor(s.logprobs) - ref).abs().max().item())
    print(f"sampled-vs-forward logprob max abs difference: {worst:.3g}")
    assert worst <= 1e-4


def test_endings(model):
    greedy = solo(model, [5, 6, 7], 0, params(temperature=0.0))
    stop_at = greedy[3]
    first = greedy.index(stop_at)
    (req,) = run(
        Engine(model),
        (1, [[5, 6, 7]], [0], params(temperature=0.0, stop_token_ids=frozenset({stop_at, 511}))),
    )
    s = req.seqs[0]
    assert s.tokens == greedy[: first + 1] and s.finish == ("stop", stop_at), "stop token kept, reason stop"
    (req,) = run(Engine(model), (1, [[5, 6, 7]], [0], params(max_tokens=4)))
    assert len(req.seqs[0].tokens) == 4 and req.seqs[0].finish == ("length", None)
    (req,) = run(Engine(model), (1, [[5, 6, 7], [1] * 9], [0, 0], params(max_seq_len=10)))
    assert [len(s.tokens) for s in req.seqs] == [7, 1], "prompt + completion = maxSeqLen"
    assert all(s.finish == ("length", None) for s in req.seqs)
    (req,) = run(Engine(model), (1, [[1] * 10], [0], params(max_seq_len=10)))
    assert req.seqs[0].tokens == [] and req.seqs[0].finish == ("length", None)
    (req,) = run(Engine(model), (1, [[5]], [0], params(max_tokens=0)))
    assert req.seqs[0].tokens == [] and req.seqs[0].finish == ("length", None)


def test_top_logprobs(model):
    (req,) = run(Engine(model), (1, [[5, 6, 7], [9]], [1, 2], params(max_tokens=5, top_logprobs=4)))
    for prompt, s in ((p, s) for p, s in zip([[5, 6, 7], [9]], req.seqs)):
        assert len(s.top) == len(s.tokens)
        for t, top in enumerate(s.top):
            with torch.no_grad():
                logits = model(torch.tensor([prompt + s.tokens[:t]])).logits[0, -1].float()
            ref = torch.log_softmax(logits, -1)
            ids = [i for i, _ in top]
            lps = [lp for _, lp in top]
            assert lps == sorted(lps, reverse=True)
            assert ids == ref.topk(4).indices.tolist()
            assert max(abs(a - b) for a, b in zip(lps, ref[ids].tolist())) <= 1e-4


def test_top_alternatives_ties_lower_id_first():
    from rllm_worker.generate import Request, Sequence, _top_alternatives

    r = Request(0, params(top_logprobs=3))
    s = Sequence(r, 0, [1], torch.Generator())
    lp = torch.log_softmax(torch.tensor([[0.0, 1.0, 1.0, 2.0, 1.0]]), -1)
    assert [i for i, _ in _top_alternatives([s], lp)[0]] == [3, 1, 2]


def test_top_k_one_and_tiny_top_p_are_greedy(model):
    greedy = solo(model, [9, 10, 11], 0, params(temperature=0.0))
    assert solo(model, [9, 10, 11], 5, params(top_k=1)) == greedy
    assert solo(model, [9, 10, 11], 6, params(top_p=1e-6, temperature=0.5)) == greedy
    assert solo(model, [9, 10, 11], 6, params()) != greedy, "plain sampling is not greedy here"


def test_stop_ends_sequences(model):
    engine = Engine(model)
    req = engine.add(1, [[5, 6, 7], [9, 10], [3]], [1, 2, 3], params(max_tokens=50))
    engine.step()
    engine.step()
    assert engine.stop(1, [0, 2]) is None, "sequence 1 still runs"
    assert req.seqs[0].finish == ("stop", None) and len(req.seqs[0].tokens) == 3
    engine.step()
    assert [s.request.id for s in engine.rows] == [1] and engine.rows[0].index == 1
    assert engine.stop(1, [1]) is req and not engine.has_work()
    with pytest.raises(ValueError, match="no running generate request 1"):
        engine.stop(1, [0])


def test_weight_update_waits_for_running_sequences(model):
    engine = Engine(model)
    applied = []
    first = engine.add(1, [[5, 6, 7]], [1], params(max_tokens=4))
    engine.step()
    engine.update_weights(lambda: applied.append(first.done))
    second = engine.add(2, [[9, 10]], [2], params(max_tokens=3))
    while engine.has_work():
        engine.step()
        if not applied:
            assert not any(s.request is second for s in engine.rows), "a request queued after the update ran early"
    assert applied == [True], "the update ran once, after the running request ended"
    assert second.done and len(second.seqs[0].tokens) == 3


def test_max_batch_bounds_rows(model):
    engine = Engine(model, max_batch=2)
    widths = []
    (req,) = run(engine, (1, PROMPTS, [1, 2, 3, 4, 5], params(max_tokens=5)), on_step=lambda n: widths.append(len(engine.rows)))
    assert max(widths) <= 2 and req.done
    assert tokens(req)[4] == solo(model, PROMPTS[4], 5, params(max_tokens=5))


@pytest.mark.parametrize(
    "kw, message",
    [
        ({"max_tokens": -1}, "maxTokens must be an integer ≥ 0"),
        ({"temperature": -0.5}, "temperature must be a number ≥ 0"),
        ({"top_p": 0.0}, r"topP must be in \(0, 1\]"),
        ({"top_k": 1.5}, "topK must be an integer ≥ 0"),
        ({"top_logprobs": -2}, "topLogprobs must be an integer ≥ 0"),
        ({"max_seq_len": 0}, "maxSeqLen must be an integer ≥ 1"),
        ({"stop_token_ids": frozenset({-3})}, "stopTokenIds must be token ids ≥ 0"),
        ({"vocab_limit": 0}, "vocabLimit must be an integer ≥ 1"),
    ],
)
def test_bad_params_refused(kw, message):
    with pytest.raises(ValueError, match=message):
        params(**kw)


def test_bad_requests_refused(model):
    engine = Engine(model)
    with pytest.raises(ValueError, match="seeds has 1 entries for 2 prompts"):
        engine.add(1, [[1], [2]], [0], params())
    with pytest.raises(ValueError, match="prompt 1 is empty"):
        engine.add(1, [[1], []], [0, 0], params())
    with pytest.raises(ValueError, match="prompt 0 has 5 tokens; maxSeqLen is 4"):
        engine.add(1, [[1] * 5], [0], params(max_seq_len=4))
    engine.add(1, [[1]], [0], params())
    with pytest.raises(ValueError, match="request 1 is already running"):
        engine.add(1, [[1]], [0], params())
    with pytest.raises(ValueError, match="request 1 has no sequence 3"):
        engine.stop(1, [3])


def test_sampling_follows_the_truncated_distribution(model):
    """2000 one-token draws: top-k keeps exactly k ids at their renormalised tempered probabilities;
    top-p keeps exactly the nucleus."""
    prompt, n = [9, 10, 11], 2000
    with torch.no_grad():
        z = model(torch.tensor([prompt])).logits[0, -1].float()
    p = torch.softmax(z / 0.7, -1)
    (req,) = run(Engine(model), (1, [prompt] * n, list(range(n)), params(max_tokens=1, temperature=0.7, top_k=3)))
    drawn = torch.tensor([s.tokens[0] for s in req.seqs])
    top3 = p.topk(3).indices
    assert set(drawn.tolist()) == set(top3.tolist())
    want = p[top3] / p[top3].sum()
    got = torch.stack([(drawn == t).float().mean() for t in top3])
    assert (got - want).abs().max() < 0.035, (got, want)
    (req,) = run(Engine(model), (1, [prompt] * n, list(range(n)), params(max_tokens=1, temperature=0.7, top_p=0.5)))
    sorted_p, ids = p.sort(descending=True)
    nucleus = ids[: int(((sorted_p.cumsum(0) - sorted_p) < 0.5).sum())]
    drawn = set(s.tokens[0] for s in req.seqs)
    assert drawn <= set(nucleus.tolist()) and ids[0].item() in drawn
    assert len(drawn) == len(nucleus) or p[nucleus].min() < 0.005, "a likely nucleus token was never drawn"


def test_vocab_limit_is_never_sampled(model):
    """vocabLimit below the model's vocabulary: greedy picks the best allowed id, sampling (hot,
    plain and truncated) never reaches the limit, top alternatives stay below it, and the logprobs
    stay the full-vocabulary log-softmax."""
    prompt = [9, 10, 11]
    with torch.no_grad():
        z = model(torch.tensor([prompt])).logits[0, -1].float()
    limit = int(z.argmax())  # the unlimited greedy token is the first id refused
    assert limit > 0, "the test needs an allowed id below the unlimited argmax"
    (req,) = run(Engine(model), (1, [prompt], [0], params(max_tokens=1, temperature=0.0, vocab_limit=limit, top_logprobs=3)))
    s = req.seqs[0]
    assert s.tokens == [int(z[:limit].argmax())]
    assert abs(s.logprobs[0] - torch.log_softmax(z, -1)[s.tokens[0]].item()) <= 1e-5, "the full-vocabulary logprob"
    assert all(i < limit for i, _ in s.top[0])
    limit = 64  # tiny models have 512 ids: most of the mass lies above this limit
    n = 200
    for p in (params(temperature=2.0), params(temperature=1.0, top_k=50), params(temperature=1.0, top_p=0.9)):
        p = SamplingParams(**{**p.__dict__, "vocab_limit": limit, "max_tokens": 4})
        (req,) = run(Engine(model), (1, [prompt] * n, list(range(n)), p))
        drawn = {t for s in req.seqs for t in s.tokens}
        assert max(drawn) < limit and len(drawn) > 5, sorted(drawn)
    (req,) = run(Engine(model), (1, [prompt] * n, list(range(n)), params(temperature=2.0, max_tokens=4)))
    assert max(t for s in req.seqs for t in s.tokens) >= limit, "without the limit, ids above it are drawn"


def test_weight_update_runs_outside_inference_mode(model):
    engine = Engine(model)
    seen = []
    engine.update_weights(lambda: seen.append((torch.is_inference_mode_enabled(), torch.is_grad_enabled())))
    engine.step()
    assert seen == [(False, False)], "a weight update made under inference mode leaves inference tensors"


def test_prefill_without_logits_to_keep(model):
    """Models whose forward lacks logits_to_keep: the prefill reads every position's logits."""
    p = params(max_tokens=6, temperature=0.0)
    engine = Engine(model)
    engine._keep_logits, engine._kw = False, {}
    (req,) = run(engine, (1, PROMPTS, [0] * 5, p))
    assert tokens(req) == tokens(run(Engine(model), (1, PROMPTS, [0] * 5, p))[0])


def test_refuses_models_with_other_layer_kinds():
    from types import SimpleNamespace

    m = torch.nn.Linear(2, 2)
    m.config = SimpleNamespace(layer_types=["full_attention", "linear_attention"])
    with pytest.raises(ValueError, match=r"attention-only models; this one has \['linear_attention'\] layers"):
        Engine(m)


def test_logprobs_equal_trainer_compute_logprobs(model):
    """The sampler's logprobs against the trainer's computeLogprobs path (logprobs.token_logprobs)."""
    from rllm_worker.logprobs import token_logprobs

    (req,) = run(Engine(model), (1, PROMPTS, [3, 4, 5, 6, 7], params(max_tokens=16, temperature=1.2, top_p=0.95)))
    worst = 0.0
    for prompt, s in zip(PROMPTS, req.seqs):
        ids = torch.tensor([prompt + s.tokens])
        with torch.no_grad():
            lp, _ = token_logprobs(model, ids, torch.arange(ids.shape[1])[None], chunk=7, grad=False)
        worst = max(worst, (torch.tensor(s.logprobs) - lp[len(prompt):]).abs().max().item())
    print(f"sampled-vs-trainer logprob max abs difference: {worst:.3g}")
    assert worst <= 1e-4
