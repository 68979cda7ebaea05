"""The worker's RPC (PROTOCOL.md), with the real worker as a subprocess against a socket the test
listens on: hello, malformed lines, handler errors with tracebacks, tensor files, shutdown, SIGTERM;
and the startup version check (env.py) with fake versions."""

import json
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file, save_file

from rllm_worker import __main__ as worker_main
from rllm_worker import env

PYTHON_DIR = Path(__file__).resolve().parents[1]


class Worker:
    """A worker process and the test's end of its socket."""

    def __init__(self, tmp: Path, role: str = "trainer"):
        self.dir = tmp
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(str(tmp / "rpc.sock"))
        listener.listen(1)
        listener.settimeout(60)
        env_vars = {**os.environ, "PYTHONPATH": str(PYTHON_DIR)}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "rllm_worker", "--socket", str(tmp / "rpc.sock"), "--exchange", str(tmp), "--role", role],
            env=env_vars, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        )
        self.conn, _ = listener.accept()
        listener.close()
        self.conn.settimeout(60)
        self.file = self.conn.makefile("rb")
        self.next_id = 0

    def send_raw(self, line: str) -> None:
        self.conn.sendall(line.encode() + b"\n")

    def recv(self) -> dict:
        line = self.file.readline()
        assert line, f"the worker closed the socket; its output:\n{self.output()}"
        return json.loads(line)

    def reply(self) -> dict:
        """The next reply, skipping events."""
        while "event" in (msg := self.recv()):
            pass
        return msg

    def call(self, method: str, params: dict) -> dict:
        self.next_id += 1
        self.send_raw(json.dumps({"id": self.next_id, "method": method, "params": params}))
        msg = self.reply()
        assert msg["id"] == self.next_id
        return msg

    def output(self) -> str:
        if self.proc.poll() is None:
            return "(still running)"
        return self.proc.stdout.read().decode(errors="replace")

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(10)
        self.conn.close()


@pytest.fixture(scope="module")
def worker(tmp_path_factory):
    w = Worker(tmp_path_factory.mktemp("rpc"))
    yield w
    w.close()


def test_hello_names_the_role_and_versions(worker):
    hello = worker.recv()
    assert hello["event"] == "hello"
    assert hello["pid"] == worker.proc.pid and hello["role"] == "trainer"
    assert hello["torch"] == torch.__version__ and isinstance(hello["cuda"], bool)
    assert {"python", "transformers", "peft"} <= hello.keys()


@pytest.mark.parametrize(
    "line, message",
    [
        ("this is not json", "not JSON"),
        ('{"method": "init", "params": {}}', "integer 'id'"),
        ('{"id": "7", "method": "init", "params": {}}', "integer 'id'"),
        ('{"id": 7, "method": "generate", "params": {}}', "the trainer worker has no method 'generate'"),
        ('{"id": 7, "method": "init"}', "needs 'params', an object"),
        ('{"id": 7, "method": "optim_step", "params": [1, 2]}', "needs 'params', an object"),
    ],
)
def test_malformed_lines_get_a_protocol_error_and_the_worker_serves_on(worker, line, message):
    worker.send_raw(line)
    msg = worker.reply()
    assert msg["error"]["type"] == "ProtocolError", msg
    assert message in msg["error"]["message"]
    assert msg["id"] == (7 if '"id": 7' in line else None)
    assert worker.proc.poll() is None


def test_a_handler_exception_replies_with_its_traceback(worker):
    msg = worker.call("gradients", {})
    assert msg["error"]["type"] == "RuntimeError"
    assert "call init first" in msg["error"]["message"]
    assert "Traceback (most recent call last)" in msg["error"]["traceback"]
    assert "trainer.py" in msg["error"]["traceback"]
    msg = worker.call("init", {"model": str(worker.dir / "no-such-model"), "device": "cpu", "dtype": None, "seed": 0,
                               "lora": None, "adapter": None, "gradientCheckpointing": False,
                               "microBatchTokens": 64, "logprobChunkTokens": 16})
    assert msg["error"]["type"] == "FileNotFoundError" and "no-such-model" in msg["error"]["message"]


def test_init_and_compute_logprobs_through_tensor_files(worker, tiny_qwen3_dir):
    msg = worker.call("init", {"model": str(tiny_qwen3_dir), "device": "cpu", "dtype": None, "seed": 0, "lora": None,
                               "adapter": None, "gradientCheckpointing": False, "microBatchTokens": 8,
                               "logprobChunkTokens": 4})
    assert msg["result"]["architecture"] == "Qwen3ForCausalLM" and msg["result"]["eosTokenIds"] == [2]
    request = worker.dir / "request.safetensors"
    save_file({"tokens": torch.tensor([5, 6, 7, 8, 9, 10], dtype=torch.int32),
               "lengths": torch.tensor([2, 4], dtype=torch.int32)}, str(request))
    msg = worker.call("compute_logprobs", {"tensors": str(request)})
    logprobs = load_file(msg["result"]["tensors"])["logprobs"]
    assert logprobs.dtype == torch.float32 and logprobs.shape == (6,)
    assert logprobs[0] == 0 and logprobs[2] == 0 and (logprobs[[1, 3, 4, 5]] < 0).all()
    assert Path(msg["result"]["tensors"]).parent == worker.dir


def test_training_methods_through_the_socket(worker):
    """After init (previous test): forward_backward → gradients → optim_step → export → save → load."""
    n = 6
    request = worker.dir / "batch.safetensors"
    save_file({"tokens": torch.tensor([5, 6, 7, 8, 9, 10], dtype=torch.int32),
               "lengths": torch.tensor([2, 4], dtype=torch.int32), "loss_mask": torch.ones(n),
               "advantages": torch.tensor([0, 1, 0, -1, 1, 2.0]), "sampling_logprobs": -torch.ones(n)}, str(request))
    loss = {"kind": "cispo", "clipLow": 1, "clipHigh": 0.28, "entropyCoef": 0, "aggregation": "token-mean"}
    msg = worker.call("forward_backward", {"tensors": str(request), "loss": loss,
                                           "denominators": {"tokens": 4, "rows": 2}, "proximal": "sampling"})
    assert msg["result"]["metrics"]["loss/tokens"] == 4 and msg["result"]["metrics"]["loss/rows"] == 2
    grads = load_file(worker.call("gradients", {})["result"]["tensors"])
    assert "lm_head.weight" in grads and all(g.dtype == torch.float32 for g in grads.values())
    norm = float(torch.sqrt(sum((g.double() ** 2).sum() for g in grads.values())))
    msg = worker.call("optim_step", {"lr": 1e-3, "beta1": 0.9, "beta2": 0.999, "eps": 1e-8, "weightDecay": 0,
                                     "maxGradNorm": 1.0})
    assert msg["result"]["step"] == 1 and msg["result"]["gradNorm"] == pytest.approx(norm, rel=1e-5)
    assert worker.call("export_weights", {"dir": str(worker.dir / "export")})["result"] == {"kind": "full"}
    files = worker.call("save", {"dir": str(worker.dir / "ckpt")})["result"]["files"]
    assert "trainer_state.pt" in files and "model.safetensors" in files
    assert worker.call("load", {"dir": str(worker.dir / "ckpt")})["result"] == {"step": 1}
    msg = worker.call("forward_backward", {"tensors": str(request), "loss": loss, "proximal": "sampling"})
    assert msg["error"]["type"] == "ProtocolError" and "params.denominators" in msg["error"]["message"]


def test_shutdown_replies_then_exits_0(worker):
    assert worker.call("shutdown", {}) == {"id": worker.next_id, "result": {}}
    assert worker.proc.wait(30) == 0


def test_sigterm_ends_the_worker_cleanly(tmp_path):
    w = Worker(tmp_path)
    try:
        assert w.recv()["event"] == "hello"
        w.proc.send_signal(signal.SIGTERM)
        assert w.proc.wait(30) == 0
        assert "Traceback" not in w.output()
    finally:
        w.close()


# ── the startup check ────────────────────────────────────────────────────────────────────────
GOOD = {"torch": "2.11.0+cu128", "transformers": "5.17.0", "peft": "0.21.2", "safetensors": "0.8.0"}


def test_versions_at_the_minimums_pass():
    assert env.check_versions(GOOD) is None
    assert env.check_versions({**GOOD, "torch": "2.13.0", "transformers": "6.0.0.dev0"}) is None


@pytest.mark.parametrize(
    "versions, message",
    [
        ({**GOOD, "torch": "2.10.1"}, "torch 2.10.1 is too old (the worker needs torch >= 2.11)"),
        ({**GOOD, "transformers": "4.57.1"}, "transformers 4.57.1 is too old (the worker needs transformers >= 5.17)"),
        ({**GOOD, "peft": None}, "peft is not installed"),
        ({**GOOD, "safetensors": None, "torch": None}, "torch is not installed (or fails to import); safetensors"),
    ],
)
def test_missing_or_old_packages_are_named(versions, message):
    assert message in env.check_versions(versions)


def test_parse_version():
    assert env.parse_version("2.13.0+cpu") == (2, 13, 0)
    assert env.parse_version("5.17.0.dev0") == (5, 17, 0)
    with pytest.raises(ValueError, match="cannot read a version"):
        env.parse_version("unknown")


def test_a_failed_check_sends_fatal_with_the_install_command_and_exits_3(tmp_path, monkeypatch):
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(tmp_path / "rpc.sock"))
    listener.listen(1)
    monkeypatch.setattr(worker_main, "installed_versions", lambda: {**GOOD, "torch": "2.4.0"})
    monkeypatch.setattr(signal, "signal", lambda *_: None)  # keep pytest's own handlers
    code = worker_main.main(["--socket", str(tmp_path / "rpc.sock"), "--exchange", str(tmp_path), "--role", "trainer"])
    conn, _ = listener.accept()
    fatal = json.loads(conn.makefile("rb").readline())
    assert code == 3
    assert fatal["event"] == "fatal" and fatal["install"] == "bash python/install.sh"
    assert "torch 2.4.0 is too old" in fatal["message"]
    conn.close()
    listener.close()
