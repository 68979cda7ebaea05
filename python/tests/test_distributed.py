"""The trainer on 2 ranks (torchrun, gloo, CPU, fp32) computes what one process computes: the same
loss, metrics, gradients, logprobs, gradient norm and updated weights (1e-5), for full fine-tuning
and LoRA; its checkpoints are the single-process files plus a DCP optimizer, and they resume on 1
or 2 ranks to the uninterrupted run's next step. One torchrun serves every test of this module (a
launch costs seconds); the single-process runs are in-process Trainers."""

import socket
from pathlib import Path

import pytest
from safetensors.torch import load_file, save_file
from transformers import BertConfig

from rllm_worker.fsdp import share
from rllm_worker.trainer import Trainer
from test_train import PPO_KL_ENTROPY, denominators, init_params, make_batch
from tiny_models import make_tiny_model
from torchrun_worker import TorchrunWorker, free_port, start, torchrun_command

LENGTHS = [5, 1, 7, 3, 9, 1, 2]  # 7 rows; with 4-token micro-batches rank 1 gets 4 micro-batches, two of them
#                                  1-token (padded), and rank 0 gets 3 (it runs a zero-loss one more)
IS_TOKEN_MEAN = {"kind": "importance_sampling", "entropyCoef": 0, "aggregation": "token-mean", "tisCap": 2.0}
CALLS = [(PPO_KL_ENTROPY, "given", 0), (IS_TOKEN_MEAN, "current", 1)]  # (loss, proximal, batch seed)
OPTIM = {"lr": 1e-3, "beta1": 0.9, "beta2": 0.999, "eps": 1e-8, "weightDecay": 0.01, "maxGradNorm": 1.0}
LORA = {"rank": 4, "alpha": 8, "dropout": 0.0, "targetModules": "all-linear"}
ATOL = 1e-5
# Weights after AdamW steps agree to a fraction of the lr, not to ATOL: a step moves a weight by
# lr·m/(√v + eps), and where a gradient is near eps (1e-8) the float reassociation of the two ranks'
# gradient sum changes that ratio by a few percent (2e-5 seen on an AMD EPYC; 0 on other CPUs).
WEIGHT_ATOL = 0.05 * OPTIM["lr"]


@pytest.fixture(scope="module")
def model_dirs(tmp_path_factory):
    """Tiny Qwen3 and Llama (tied embeddings) directories. Not conftest's parametrized session
    fixture: that would let pytest reorder this module's tests, which share one torchrun in order."""
    return {arch: make_tiny_model(tmp_path_factory.mktemp(f"dist-{arch}"), arch) for arch in ("qwen3", "llama")}


@pytest.fixture(scope="module")
def worker(tmp_path_factory):
    w = TorchrunWorker(tmp_path_factory.mktemp("dist"), nproc=2)
    yield w
    w.close()


def close(a, b, what: str, atol: float = ATOL) -> None:
    assert a.shape == b.shape, what
    diff = (a.double() - b.double()).abs().max().item() if a.numel() else 0.0
    assert diff <= atol, f"{what}: max abs diff {diff}"


def close_dicts(a: dict, b: dict, what: str, atol: float = ATOL) -> None:
    assert a.keys() == b.keys(), f"{what}: {sorted(a.keys() ^ b.keys())[:5]}"
    for k in a:
        close(a[k], b[k], f"{what} {k}", atol)


def close_metrics(a: dict, b: dict) -> None:
    assert a.keys() == b.keys()
    for k in a:
        assert a[k] == pytest.approx(b[k], abs=ATOL), k


class Dist:
    """The 2-rank trainer through the socket, with Trainer's method names."""

    def __init__(self, w: TorchrunWorker, params: dict):
        self.w = w
        self.info = w.call("init", params)
        self.files = 0

    def _file(self, tensors: dict) -> str:
        self.files += 1
        path = self.w.dir / f"request-{self.files}.safetensors"
        save_file(tensors, str(path))
        return str(path)

    def forward_backward(self, batch, loss, den, proximal):
        return self.w.call("forward_backward", {"tensors": self._file(batch), "loss": loss, "denominators": den,
                                                "proximal": proximal})

    def compute_logprobs(self, tokens, lengths):
        out = self.w.call("compute_logprobs", {"tensors": self._file({"tokens": tokens, "lengths": lengths})})
        return load_file(out["tensors"])["logprobs"]

    def gradients(self):
        return load_file(self.w.call("gradients", {})["tensors"])

    def optim_step(self, params):
        return self.w.call("optim_step", params)

    def export_weights(self, directory):
        return self.w.call("export_weights", {"dir": directory})["kind"]

    def save(self, directory):
        return self.w.call("save", {"dir": directory})["files"]

    def load(self, directory):
        return self.w.call("load", {"dir": directory})["step"]


def step(trainer, seed: int) -> dict:
    """forward_backward of every CALL on the batch of `seed` + CALL's own, then optim_step."""
    results = []
    for loss, proximal, s in CALLS:
        batch = make_batch(LENGTHS, seed=seed + s)
        results.append(trainer.forward_backward(batch, loss, denominators(batch), proximal))
    return {"calls": results, "gradients": trainer.gradients(), "optim": trainer.optim_step(OPTIM)}


def exported(trainer, directory: Path) -> dict:
    kind = trainer.export_weights(str(directory))
    return load_file(str(directory / ("adapter_model.safetensors" if kind == "lora" else "model.safetensors")))


def moments(trainer) -> dict:
    state = trainer.optimizer.state_dict()["state"]
    names = [n for group in trainer.group_names for n in group]
    return {f"{names[i]}.{k}": v for i, s in state.items() for k, v in s.items() if k != "step"}


def test_rows_are_shared_by_tokens():
    assert share(LENGTHS, 2) == [[3, 4, 6], [0, 1, 2, 5]]  # 14 and 14 tokens
    assert share([6], 2) == [[0], []]
    assert share([4, 4, 4], 3) == [[0], [1], [2]]


def test_hello_describes_the_world(worker):
    world = worker.hello["world"]
    assert world["size"] == 2 and world["nodes"] == 1
    assert [(r["rank"], r["localRank"], r["node"]) for r in world["ranks"]] == [(0, 0, 0), (1, 1, 0)]
    assert worker.hello["pid"] == world["ranks"][0]["pid"] and all(r["host"] for r in world["ranks"])


@pytest.mark.parametrize("arch", ["qwen3", "llama"])
@pytest.mark.parametrize("lora, checkpointing", [(None, False), (LORA, True)], ids=["full", "lora-checkpointing"])
def test_two_ranks_equal_one_process_and_checkpoints_cross_rank_counts(worker, model_dirs, tmp_path, lora,
                                                                      checkpointing, arch):
    params = init_params(model_dirs[arch], lora=lora, microBatchTokens=4, seed=5, gradientCheckpointing=checkpointing)
    one, two = Trainer(params), Dist(worker, params)
    assert two.info == one.info

    a, b = step(one, seed=0), step(two, seed=0)
    for x, y in zip(a["calls"], b["calls"]):
        assert x["loss"] == pytest.approx(y["loss"], abs=ATOL)
        close_metrics(x["metrics"], y["metrics"])
    close_dicts(a["gradients"], b["gradients"], "gradient")
    assert a["optim"]["step"] == b["optim"]["step"] == 1
    assert a["optim"]["gradNorm"] == pytest.approx(b["optim"]["gradNorm"], abs=ATOL)
    close_dicts(exported(one, tmp_path / "e1"), exported(two, tmp_path / "e2"), "weight after the step", WEIGHT_ATOL)
    for lengths in (LENGTHS, [6]):  # [6]: rank 1 has no row
        batch = make_batch(lengths, seed=9)
        close(one.compute_logprobs(batch["tokens"], batch["lengths"]),
              two.compute_logprobs(batch["tokens"], batch["lengths"]), f"logprobs of {lengths}")

    files_one, files_two = one.save(str(tmp_path / "one")), two.save(str(tmp_path / "two"))
    assert files_one == files_two and "optimizer" in files_two
    uninterrupted = step(one, seed=20)
    want_weights, want_moments = exported(one, tmp_path / "e3"), moments(one)

    resumed = Trainer(params)  # saved by 2 ranks → 1 process
    assert resumed.load(str(tmp_path / "two")) == 1
    got = step(resumed, seed=20)
    assert got["calls"][0]["loss"] == pytest.approx(uninterrupted["calls"][0]["loss"], abs=ATOL)
    close_dicts(exported(resumed, tmp_path / "e4"), want_weights, "resumed on 1: weight", WEIGHT_ATOL)
    close_dicts(moments(resumed), want_moments, "resumed on 1: AdamW moment")

    for saved_by in ("two", "one"):  # saved by 2 ranks, and by 1 process → 2 ranks
        two = Dist(worker, params)
        assert two.load(str(tmp_path / saved_by)) == 1
        got = step(two, seed=20)
        assert got["optim"]["step"] == 2
        assert got["calls"][0]["loss"] == pytest.approx(uninterrupted["calls"][0]["loss"], abs=ATOL)
        close_dicts(exported(two, tmp_path / f"e5-{saved_by}"), want_weights, f"resumed on 2 from {saved_by}: weight", WEIGHT_ATOL)
        two.save(str(tmp_path / f"again-{saved_by}"))
        check = Trainer(params)
        check.load(str(tmp_path / f"again-{saved_by}"))
        close_dicts(moments(check), want_moments, f"resumed on 2 from {saved_by}: AdamW moment")


def test_a_bad_request_is_an_error_reply_and_the_group_serves_on(worker, model_dirs, tmp_path):
    worker.call("init", init_params(model_dirs["qwen3"]))
    msg = worker.call_raw("forward_backward", {"tensors": str(tmp_path / "none.safetensors"), "loss": IS_TOKEN_MEAN,
                                               "proximal": "sampling"})
    assert msg["error"]["type"] == "ProtocolError" and "params.denominators" in msg["error"]["message"]
    batch = make_batch([3, 4])
    path = str(tmp_path / "bad.safetensors")
    save_file({**batch, "tokens": batch["tokens"] + 10_000}, path)
    msg = worker.call_raw("forward_backward", {"tensors": path, "loss": IS_TOKEN_MEAN, "denominators": denominators(batch),
                                               "proximal": "sampling"})
    assert msg["error"]["type"] == "ValueError" and "outside the model's vocabulary" in msg["error"]["message"]
    assert worker.call_raw("load", {"dir": str(tmp_path)})["error"]["type"] == "FileNotFoundError"
    bert = tmp_path / "bert"  # a model FSDP2 cannot wrap (no decoder layer class): refused before the broadcast
    BertConfig(hidden_size=16, num_hidden_layers=1, num_attention_heads=2, intermediate_size=32).save_pretrained(bert)
    msg = worker.call_raw("init", init_params(str(bert)))
    assert msg["error"]["type"] == "ValueError" and "cannot shard BertLMHeadModel" in msg["error"]["message"]
    assert worker.call("optim_step", OPTIM)["step"] >= 1  # still serving, every rank


def test_shutdown_ends_every_rank_with_status_0(worker):
    assert worker.call("shutdown", {}) == {}
    code, _ = worker.wait(30)
    assert code == 0, worker.output()


def test_two_nodes_on_loopback_run_a_step_equal_to_one_process(tmp_path, model_dirs):
    """Two torchrun launches (one rank each; node 1 without a socket) meet at a static rendezvous,
    run one step, and end when the TypeScript side closes the socket."""
    port = free_port()
    node1 = start(torchrun_command(1, port, nnodes=2, node_rank=1) + ["--role", "trainer"], tmp_path / "node1.log")
    node0 = TorchrunWorker(tmp_path, nproc=1, nnodes=2, port=port)
    try:
        world = node0.hello["world"]
        assert world["size"] == 2 and world["nodes"] == 2
        assert [(r["rank"], r["localRank"], r["node"]) for r in world["ranks"]] == [(0, 0, 0), (1, 0, 1)]
        params = init_params(model_dirs["qwen3"], microBatchTokens=4)
        one, two = step(Trainer(params), seed=0), step(Dist(node0, params), seed=0)
        for x, y in zip(one["calls"], two["calls"]):
            assert x["loss"] == pytest.approx(y["loss"], abs=ATOL)
        assert one["optim"]["gradNorm"] == pytest.approx(two["optim"]["gradNorm"], abs=ATOL)
        close_dicts(one["gradients"], two["gradients"], "gradient")
        node0.conn.shutdown(socket.SHUT_RDWR)  # as if TypeScript went away: rank 0 ends the followers, every node exits 0
        assert node0.wait(30)[0] == 0, node0.output()
        assert node1.wait(30) == 0, (tmp_path / "node1.log").read_text()
    finally:
        node0.close()
        if node1.poll() is None:
            node1.kill()
            node1.wait(10)
