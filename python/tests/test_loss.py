"""loss.py against the golden cases of src/algorithms/loss-goldens.test.ts (built from loss.ts's
referenceLoss): every kind × aggregation × KL × entropy × TIS cap; value, gradient with respect to
the logprobs (autograd, fp64) and metrics."""

import json
from pathlib import Path

import pytest
import torch

from rllm_worker.loss import LossBatch, LossMetrics, LossSpecError, batch_loss, parse_loss_spec

GOLDENS = json.loads((Path(__file__).parent / "golden" / "loss_cases.json").read_text())
TOL = 1e-6


def _batch(rows: list[dict], first: int = 0) -> LossBatch:
    """The flat LossBatch of `rows`; logprobs a leaf that requires grad."""
    cat = lambda key: torch.tensor([x for r in rows for x in r[key]], dtype=torch.float64)  # noqa: E731
    row_ids = torch.tensor([i for i, r in enumerate(rows) for _ in r["logprobs"]])
    return LossBatch(
        logprobs=cat("logprobs").requires_grad_(),
        entropy=cat("entropy"),
        sampling=cat("samplingLogprobs"),
        advantages=cat("advantages"),
        mask=cat("mask"),
        row_ids=row_ids,
        n_rows=len(rows),
        proximal=cat("proximalLogprobs") if "proximalLogprobs" in rows[0] else None,
        ref=cat("refLogprobs"),
    )


def _denominators(rows: list[dict]) -> tuple[float, int]:
    sums = [sum(r["mask"]) for r in rows]
    return sum(sums), sum(1 for s in sums if s > 0)


def _case_id(case: dict) -> str:
    s = case["spec"]
    kl = s.get("kl") or {}
    return f"{s['kind']}-{s['aggregation']}-kl{kl.get('estimator', 'none')}-H{s['entropyCoef']}-tis{s.get('tisCap')}-{case['inputs']}"


@pytest.mark.parametrize("case", GOLDENS["cases"], ids=_case_id)
def test_golden_value_gradient_metrics(case):
    rows = GOLDENS["inputs"][case["inputs"]]
    spec = parse_loss_spec(case["spec"])
    b = _batch(rows)
    metrics = LossMetrics(spec)
    tokens, n_rows = _denominators(rows)
    loss = batch_loss(spec, b, tokens, n_rows, metrics)
    loss.backward()
    assert loss.item() == pytest.approx(case["loss"], abs=TOL)
    expected_grad = torch.tensor([g for row in case["grad"] for g in row], dtype=torch.float64)
    assert torch.allclose(b.logprobs.grad, expected_grad, atol=TOL, rtol=0), (b.logprobs.grad, expected_grad)
    got = metrics.result(loss.item(), tokens, len(rows))
    assert got.pop("loss/rows") == len(rows)
    assert got.keys() == case["metrics"].keys()
    for key, value in case["metrics"].items():
        assert got[key] == pytest.approx(value, abs=1e-9), key


@pytest.mark.parametrize("case", [c for c in GOLDENS["cases"] if c["inputs"] == "proximal"], ids=_case_id)
def test_split_batch_with_the_batch_denominators_sums_to_the_whole(case):
    rows = GOLDENS["inputs"]["proximal"]
    spec = parse_loss_spec(case["spec"])
    tokens, n_rows = _denominators(rows)
    parts = [batch_loss(spec, _batch(rows[:1]), tokens, n_rows), batch_loss(spec, _batch(rows[1:]), tokens, n_rows)]
    assert sum(p.item() for p in parts) == pytest.approx(case["loss"], abs=TOL)


@pytest.mark.parametrize(
    "spec, message",
    [
        ({"kind": "grpo"}, "loss.kind must be one of"),
        ({"kind": "ppo", "aggregation": "token-mean", "entropyCoef": 0, "clipLow": 0.2}, "loss.clipHigh is missing"),
        ({"kind": "cross_entropy", "aggregation": "token-mean", "entropyCoef": 0, "tisCap": 2}, "has no key"),
        ({"kind": "importance_sampling", "aggregation": "sum", "entropyCoef": 0}, "loss.aggregation must be"),
        ({"kind": "importance_sampling", "aggregation": "token-mean", "entropyCoef": 0, "tisCap": 0.5}, "loss.tisCap"),
        ({"kind": "cispo", "aggregation": "token-mean", "entropyCoef": 0, "clipLow": 1.5, "clipHigh": 0.2}, "clipLow"),
        ({"kind": "ppo", "aggregation": "token-mean", "entropyCoef": 0, "clipLow": 0.2, "clipHigh": 0.2,
          "kl": {"coef": 0.1, "estimator": "k4"}}, "loss.kl must be"),
        ({"kind": "cross_entropy", "aggregation": "token-mean", "entropyCoef": -1}, "loss.entropyCoef"),
    ],
)
def test_malformed_specs_are_refused_naming_the_key(spec, message):
    with pytest.raises(LossSpecError, match=message):
        parse_loss_spec(spec)


def test_kl_and_entropy_need_their_inputs():
    rows = GOLDENS["inputs"]["proximal"]
    b = _batch(rows)
    b.ref = None
    spec = parse_loss_spec({"kind": "cross_entropy", "aggregation": "token-mean", "entropyCoef": 0,
                            "kl": {"coef": 0.1, "estimator": "k3"}})
    with pytest.raises(ValueError, match="no reference logprobs"):
        batch_loss(spec, b, 1, 1)
