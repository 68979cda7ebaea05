"""The sampler role end to end: the real worker process (`python -m rllm_worker --role sampler`)
on a Unix socket this test listens on, driven as src/backends/torch drives it (PROTOCOL.md).
Generated tokens are checked against argmax loops of the same weights in this process."""

from __future__ import annotations

import json
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file, save_file
from transformers import AutoModelForCausalLM

from tiny_models import make_tiny_model

torch.set_num_threads(1)  # the worker runs beside this process on few cores
PYTHON_DIR = Path(__file__).resolve().parents[1]
TIMEOUT = 60.0


class Worker:
    """One worker process and its socket: requests by id, events in arrival order."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="rllm-sampler-test-")
        os.chmod(self.dir, 0o700)
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(os.path.join(self.dir, "rpc.sock"))
        listener.listen(1)
        listener.settimeout(TIMEOUT)
        env = {**os.environ, "PYTHONPATH": str(PYTHON_DIR), "OMP_NUM_THREADS": "1"}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "rllm_worker", "--socket", os.path.join(self.dir, "rpc.sock"),
             "--exchange", self.dir, "--role", "sampler"],
            env=env, start_new_session=True,
        )
        self.conn, _ = listener.accept()
        listener.close()
        self.buffer = b""
        self.log: list[dict] = []  # every message, in order
        self.replies: dict[int, dict] = {}
        self.next_id = 1
        hello = self.next_event("hello")
        assert hello["role"] == "sampler", hello

    def _pump(self, deadline: float) -> None:
        ready, _, _ = select.select([self.conn], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            raise TimeoutError(f"no message from the worker; log: {self.log[-5:]}")
        chunk = self.conn.recv(1 << 20)
        assert chunk, f"the worker closed the socket (exit {self.proc.poll()})"
        self.buffer += chunk
        *lines, self.buffer = self.buffer.split(b"\n")
        for line in lines:
            msg = json.loads(line)
            self.log.append(msg)
            if "event" not in msg:
                self.replies[msg["id"]] = msg

    def next_event(self, name: str) -> dict:
        seen = len(self.log)
        deadline = time.monotonic() + TIMEOUT
        while True:
            for msg in self.log[seen:]:
                if msg.get("event") == name:
                    return msg
                assert msg.get("event") != "fatal", msg
            seen = len(self.log)
            self._pump(deadline)

    def send(self, method: str, params: dict) -> int:
        rid, self.next_id = self.next_id, self.next_id + 1
        self.conn.sendall(json.dumps({"id": rid, "method": method, "params": params}).encode() + b"\n")
        return rid

    def wait(self, rid: int) -> dict:
        deadline = time.monotonic() + TIMEOUT
        while rid not in self.replies:
            self._pump(deadline)
        return self.replies[rid]

    def call(self, method: str, params: dict) -> dict:
        reply = self.wait(self.send(method, params))
        assert "result" in reply, reply["error"]["traceback"]
        return reply["result"]

    def error(self, method: str, params: dict) -> dict:
        reply = self.wait(self.send(method, params))
        assert "error" in reply, f"{method} should have failed: {reply}"
        return reply["error"]

    def index(self, rid: int) -> int:
        """Position of request `rid`'s reply in the log."""
        return next(i for i, m in enumerate(self.log) if m.get("id") == rid and "event" not in m)

    def steps(self, rid: int) -> list[tuple[int, dict]]:
        return [(i, m) for i, m in enumerate(self.log) if m.get("event") == "step" and m["id"] == rid]

    def tensors(self, name: str, **tensors) -> str:
        path = os.path.join(self.dir, name + ".safetensors")
        save_file(tensors, path)
        return path

    def close(self) -> None:
        try:
            if self.proc.poll() is None:
                self.call("shutdown", {})
                self.proc.wait(timeout=TIMEOUT)
        finally:
            if self.proc.poll() is None:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
            self.conn.close()
            shutil.rmtree(self.dir, ignore_errors=True)


def prompts_file(worker: Worker, name: str, prompts: list[list[int]], seeds: list[int]) -> str:
    return worker.tensors(
        name,
        tokens=torch.tensor([t for p in prompts for t in p], dtype=torch.int32),
        lengths=torch.tensor([len(p) for p in prompts], dtype=torch.int32),
        seeds=torch.tensor(seeds, dtype=torch.int64),
    )


def gen_params(path: str, **kw) -> dict:
    return {"tensors": path, "maxTokens": 8, "temperature": 0.0, "topP": 1.0, "topK": 0,
            "stopTokenIds": [], "topLogprobs": 0, "maxSeqLen": 200, **kw}


def completions(result: dict) -> tuple[list[list[int]], list[list[float]], dict]:
    t = load_file(result["tensors"])
    lengths = t["lengths"].tolist()
    ids = [x.tolist() for x in torch.split(t["token_ids"], lengths)]
    lps = [x.tolist() for x in torch.split(t["logprobs"], lengths)]
    return ids, lps, t


@torch.no_grad()
def argmax_loop(model, prompt: list[int], n: int) -> list[int]:
    ids = list(prompt)
    for _ in range(n):
        ids.append(int(model(torch.tensor([ids])).logits[0, -1].argmax()))
    return ids[len(prompt):]


@pytest.fixture(scope="module")
def dirs(tmp_path_factory):
    root = tmp_path_factory.mktemp("sampler-rpc")
    return {"base": make_tiny_model(root / "base", "qwen3", seed=0), "other": make_tiny_model(root / "other", "qwen3", seed=1)}


@pytest.fixture(scope="module")
def worker(dirs):
    """One sampler for the module (a worker takes seconds to import torch). Before its init it must
    refuse generate — checked here, where the process is still fresh."""
    w = Worker()
    err = w.error("generate", gen_params("/nonexistent.safetensors"))
    assert "before init" in err["message"] and "call init first" in err["message"], err
    assert "no method 'forward_backward'" in w.error("forward_backward", {})["message"]
    info = w.call("init", {"model": str(dirs["base"]), "device": "cpu", "dtype": "float32", "seed": 0,
                           "adapter": None, "maxBatch": 16, "weightVersion": 5})  # a served checkpoint's version
    assert info["vocabSize"] == 512 and info["maxSeqLen"] == 256, info
    yield w
    w.close()


def test_two_overlapping_requests(worker, dirs):
    model = AutoModelForCausalLM.from_pretrained(dirs["base"]).eval()
    a_prompts, b_prompts = [[5, 6, 7], [9, 10, 11, 12]], [[40, 41]]
    a = worker.send("generate", gen_params(prompts_file(worker, "a", a_prompts, [1, 2]), maxTokens=60, topLogprobs=3))
    worker.next_event("step")  # a runs
    b = worker.send("generate", gen_params(prompts_file(worker, "b", b_prompts, [3]), maxTokens=6, temperature=1.0))
    ra, rb = worker.wait(a)["result"], worker.wait(b)["result"]

    first_b = worker.steps(b)[0][0]
    assert any(i > first_b for i, _ in worker.steps(a)), "request b did not join while a ran"
    assert worker.index(b) < worker.index(a), "the shorter request b replied before a ended"

    ids, lps, t = completions(ra)
    assert ids == [argmax_loop(model, p, 60) for p in a_prompts]
    assert ra["finish"] == [{"reason": "length", "stopToken": None}] * 2 and ra["weightVersion"] == 5
    assert t["top_ids"].shape == (120, 3) and t["top_logprobs"].dtype == torch.float32
    assert (t["top_ids"][:, 0] == t["token_ids"]).all(), "greedy tokens are their row's top alternative"
    streamed = {0: [], 1: []}
    for _, ev in worker.steps(a):
        assert len(set(ev["seqs"])) == len(ev["seqs"]) and len(ev["top"]) == len(ev["seqs"])
        for s, pos, tok, lp in zip(ev["seqs"], ev["pos"], ev["tokens"], ev["logprobs"]):
            assert pos == len(streamed[s])
            streamed[s].append((tok, lp))
    assert [[tok for tok, _ in streamed[s]] for s in (0, 1)] == ids
    assert [lp for s in (0, 1) for _, lp in streamed[s]] == pytest.approx([x for row in lps for x in row], abs=1e-6)

    ids_b, _, tb = completions(rb)
    assert len(ids_b[0]) == 6 and set(tb) == {"token_ids", "lengths", "logprobs"}
    assert all(ev["top"] is None for _, ev in worker.steps(b))


def trainer_for(model_dir, lora=None):
    """The trainer role's Trainer in this process: its export_weights writes what set_weights reads."""
    from rllm_worker.trainer import Trainer

    return Trainer({"model": str(model_dir), "device": "cpu", "dtype": "float32", "seed": 0, "lora": lora,
                    "adapter": None, "gradientCheckpointing": False, "microBatchTokens": 256, "logprobChunkTokens": 64})


def test_set_weights_waits_for_running_sequences(worker, dirs):
    trainer = trainer_for(dirs["other"])
    export = dirs["other"].parent / "export-full"
    assert trainer.export_weights(str(export)) == "full"
    other = trainer.model.eval()
    base = AutoModelForCausalLM.from_pretrained(dirs["base"]).eval()
    bad = dirs["other"].parent / "export-bad"
    bad.mkdir()
    save_file({**other.state_dict(), "model.extra.weight": torch.zeros(2)}, str(bad / "model.safetensors"))
    err = worker.error("set_weights", {"dir": str(bad), "kind": "full", "weightVersion": 9})
    assert err["type"] == "ValueError" and "1 unknown tensors, e.g. ['model.extra.weight']" in err["message"], err
    prompt = [[7, 8, 9]]
    before = worker.send("generate", gen_params(prompts_file(worker, "w1", prompt, [0]), maxTokens=20))
    worker.next_event("step")
    update = worker.send("set_weights", {"dir": str(export), "kind": "full", "weightVersion": 1})
    after = worker.send("generate", gen_params(prompts_file(worker, "w2", prompt, [0]), maxTokens=20))
    r_after, r_update, r_before = worker.wait(after), worker.wait(update), worker.wait(before)
    assert worker.index(before) < worker.index(update) < worker.index(after)
    assert all(i > worker.index(update) for i, _ in worker.steps(after)), "a request ran before the update"
    assert r_update["result"] == {"weightVersion": 1}
    assert r_before["result"]["weightVersion"] == 5 and r_after["result"]["weightVersion"] == 1
    assert completions(r_before["result"])[0] == [argmax_loop(base, prompt[0], 20)]
    assert completions(r_after["result"])[0] == [argmax_loop(other, prompt[0], 20)]


def test_set_weights_lora(worker, dirs):
    from peft import LoraConfig, get_peft_model

    trainer = trainer_for(dirs["other"], lora={"rank": 4, "alpha": 8, "dropout": 0.0, "targetModules": "all-linear"})
    outputs = []
    for version in (2, 3):  # the first wraps the sampler's model, the second loads into its LoRA modules
        with torch.no_grad():  # as if trained: LoRA B starts at zero
            for name, p in trainer.model.named_parameters():
                if "lora_B" in name:
                    p.normal_(0.0, 0.3)
        adapter = dirs["other"].parent / f"adapter-{version}"
        assert trainer.export_weights(str(adapter)) == "lora"
        assert worker.call("set_weights", {"dir": str(adapter), "kind": "lora", "weightVersion": version}) == {"weightVersion": version}
        result = worker.call("generate", gen_params(prompts_file(worker, f"l{version}", [[3, 4, 5]], [0]), maxTokens=12))
        assert result["weightVersion"] == version
        assert completions(result)[0] == [argmax_loop(trainer.model.eval(), [3, 4, 5], 12)]
        outputs.append(completions(result)[0])
    assert outputs[0] != outputs[1], "the second adapter changed the sampler's tokens"
    wider = dirs["other"].parent / "adapter-wider"
    get_peft_model(AutoModelForCausalLM.from_pretrained(dirs["other"]), LoraConfig(r=8, target_modules="all-linear")).save_pretrained(wider)
    err = worker.error("set_weights", {"dir": str(wider), "kind": "lora", "weightVersion": 4})
    assert "has shape" in err["message"] and "the sampler's LoRA" in err["message"], err
    again = worker.call("generate", gen_params(prompts_file(worker, "l4", [[3, 4, 5]], [0]), maxTokens=12))
    assert again["weightVersion"] == 3 and completions(again)[0] == completions(result)[0], "a refused adapter changed nothing"
    err = worker.error("set_weights", {"dir": str(dirs["other"]), "kind": "full", "weightVersion": 4})
    assert "LoRA" in err["message"]


def test_stop_sequences(worker):
    rid = worker.send("generate", gen_params(prompts_file(worker, "s", [[5, 6], [7, 8]], [1, 2]), maxTokens=250, maxSeqLen=256, temperature=1.0))
    worker.next_event("step")
    assert worker.call("stop_sequences", {"request": rid, "seqs": [0]}) == {}
    assert rid not in worker.replies, "sequence 1 still runs"
    assert worker.call("stop_sequences", {"request": rid, "seqs": [1]}) == {}
    result = worker.wait(rid)["result"]
    assert result["finish"] == [{"reason": "stop", "stopToken": None}] * 2
    assert all(len(x) < 250 for x in completions(result)[0])
    assert worker.call("stop_sequences", {"request": rid, "seqs": [0]}) == {}, "an ended request: no-op"
    assert "no running generate request 9999" in worker.error("stop_sequences", {"request": 9999, "seqs": [0]})["message"]


def test_vocab_limit_reaches_the_engine(worker):
    prompts = [[5, 6], [7, 8], [9, 10], [11, 12]]
    params = gen_params(prompts_file(worker, "vl", prompts, [1, 2, 3, 4]), temperature=2.0, maxTokens=8)
    unlimited = completions(worker.call("generate", params))[0]
    assert max(t for c in unlimited for t in c) >= 64, "ids above the limit are drawn without it"
    params = gen_params(prompts_file(worker, "vl2", prompts, [1, 2, 3, 4]), temperature=2.0, maxTokens=8, vocabLimit=64)
    assert max(t for c in completions(worker.call("generate", params))[0] for t in c) < 64
    params = gen_params(prompts_file(worker, "vl3", prompts, [1, 2, 3, 4]), temperature=2.0, maxTokens=8, vocabLimit=None)
    assert completions(worker.call("generate", params))[0] == unlimited, "null: every id"


def test_stop_token_and_immediate_endings(worker):
    greedy = completions(worker.call("generate", gen_params(prompts_file(worker, "g", [[11, 12]], [0]), maxTokens=10)))[0][0]
    result = worker.call("generate", gen_params(prompts_file(worker, "st", [[11, 12]], [0]), maxTokens=10, stopTokenIds=[greedy[4]]))
    assert completions(result)[0] == [greedy[: greedy.index(greedy[4]) + 1]]
    assert result["finish"] == [{"reason": "stop", "stopToken": greedy[4]}]
    result = worker.call("generate", gen_params(prompts_file(worker, "z", [[1, 2]], [0]), maxTokens=0, topLogprobs=2))
    ids, _, t = completions(result)
    assert ids == [[]] and t["top_ids"].shape == (0, 2) and result["finish"] == [{"reason": "length", "stopToken": None}]


@pytest.mark.parametrize(
    "change, kind, message",
    [
        ({"maxTokens": None}, "ProtocolError", "'maxTokens' must be an integer"),
        ({"temperature": "hot"}, "ProtocolError", "'temperature' must be a number"),
        ({"stopTokenIds": [1, "x"]}, "ProtocolError", "'stopTokenIds' must be a list of integers"),
        ({"topP": 0.0}, "ValueError", r"topP must be in (0, 1]"),
        ({"maxSeqLen": 1000}, "ValueError", "maxSeqLen 1000 exceeds the model's 256"),
        ({"vocabLimit": 513}, "ValueError", "vocabLimit 513 exceeds the model's vocabulary (512 ids)"),
        ({"vocabLimit": "all"}, "ProtocolError", "'vocabLimit' must be an integer or null"),
        ({"vocabLimit": 4, "topLogprobs": 5}, "ValueError", "topLogprobs 5 exceeds the vocabulary (4 tokens)"),
        ({"tensors": "/nonexistent/x.safetensors"}, "ProtocolError", "cannot read the tensors file"),
    ],
)
def test_malformed_generate_params(worker, change, kind, message):
    params = gen_params(prompts_file(worker, "ok", [[1, 2]], [0]), **change)
    err = worker.error("generate", params)
    assert err["type"] == kind and message in err["message"], err


def test_malformed_generate_tensors(worker):
    def bad(name, **t):
        return worker.error("generate", gen_params(worker.tensors(name, **t)))

    ok = dict(tokens=torch.tensor([1, 2, 3], dtype=torch.int32), lengths=torch.tensor([2, 1], dtype=torch.int32), seeds=torch.tensor([0, 1]))
    assert "'tokens' must be 1-D torch.int32, got 1-D torch.int64" in bad("t1", **{**ok, "tokens": ok["tokens"].long()})["message"]
    assert "lacks 'seeds'" in bad("t2", tokens=ok["tokens"], lengths=ok["lengths"])["message"]
    assert "'lengths' sum to 4 but 'tokens' has 3" in bad("t3", **{**ok, "lengths": torch.tensor([2, 2], dtype=torch.int32)})["message"]
    assert "'seeds' has 1 entries for 2 prompts" in bad("t4", **{**ok, "seeds": torch.tensor([0])})["message"]
    assert "token ids must lie in [0, 512)" in bad("t5", **{**ok, "tokens": torch.tensor([1, 2, 999], dtype=torch.int32)})["message"]
    assert "every prompt needs ≥ 1 token" in bad("t6", **{**ok, "lengths": torch.tensor([3, 0], dtype=torch.int32)})["message"]
    missing = worker.error("generate", {k: v for k, v in gen_params("x").items() if k != "topK"})
    assert missing["type"] == "ProtocolError" and "generate needs 'topK'" in missing["message"]
    assert completions(worker.call("generate", gen_params(worker.tensors("t7", **ok), maxTokens=2)))[0][0].__len__() == 2
