"""The distributed trainer under a real torchrun, driven over its socket as the TypeScript side does
(PROTOCOL.md, "Distributed trainer"): launch, hello, calls, and the torchrun's exit and stderr."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

PYTHON_DIR = Path(__file__).resolve().parents[1]
TESTS_DIR = Path(__file__).resolve().parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def torchrun_command(nproc: int, port: int, nnodes: int = 1, node_rank: int = 0, entry: list[str] | None = None) -> list[str]:
    """The contract's launch line, without the worker's own arguments."""
    return [sys.executable, "-m", "torch.distributed.run", "--rdzv-backend", "static", "--rdzv-endpoint",
            f"127.0.0.1:{port}", "--nnodes", str(nnodes), "--node-rank", str(node_rank), "--nproc-per-node", str(nproc),
            "--max-restarts", "0", "--monitor-interval", "0.5", *(entry or ["-m", "rllm_worker"])]


def start(args: list[str], log: Path, env: dict | None = None) -> subprocess.Popen:
    env_vars = {**os.environ, "PYTHONPATH": os.pathsep.join([str(PYTHON_DIR), str(TESTS_DIR)]), **(env or {})}
    return subprocess.Popen(args, env=env_vars, stdout=open(log, "wb"), stderr=subprocess.STDOUT, start_new_session=True)


class TorchrunWorker:
    """torchrun with `nproc` ranks of the trainer on this node (node 0: rank 0 connects to us); with
    `plain`, the single-process worker (`python -m rllm_worker`) instead."""

    def __init__(self, tmp: Path, nproc: int = 2, nnodes: int = 1, port: int | None = None, timeout_s: float = 60,
                 entry: list[str] | None = None, env: dict | None = None, plain: bool = False):
        self.dir = tmp
        self.log = tmp / "torchrun.log"
        self.port = port or free_port()
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(str(tmp / "rpc.sock"))
        listener.listen(1)
        listener.settimeout(120)
        launch = [sys.executable, "-m", "rllm_worker"] if plain else torchrun_command(nproc, self.port, nnodes, 0, entry)
        self.proc = start(launch + [
            "--socket", str(tmp / "rpc.sock"), "--exchange", str(tmp), "--role", "trainer",
            "--collective-timeout-s", str(timeout_s)], self.log, env)
        try:
            self.conn, _ = listener.accept()
        except TimeoutError:
            self.close()
            raise AssertionError(f"rank 0 never connected; torchrun's output:\n{self.output()}") from None
        listener.close()
        self.conn.settimeout(300)
        self.file = self.conn.makefile("rb")
        self.next_id = 0
        self.hello = self.recv()

    def send(self, method: str, params: dict) -> int:
        self.next_id += 1
        self.conn.sendall(json.dumps({"id": self.next_id, "method": method, "params": params}).encode() + b"\n")
        return self.next_id

    def recv(self) -> dict:
        line = self.file.readline()
        assert line, f"rank 0 closed the socket; torchrun's output:\n{self.output()}"
        return json.loads(line)

    def call(self, method: str, params: dict) -> dict:
        """The reply's result (an error reply fails the test with its traceback)."""
        msg = self.call_raw(method, params)
        assert "result" in msg, f"{method}: {msg['error']['message']}\n{msg['error']['traceback']}"
        return msg["result"]

    def call_raw(self, method: str, params: dict) -> dict:
        request = self.send(method, params)
        while "event" in (msg := self.recv()):
            pass
        assert msg["id"] == request
        return msg

    def output(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def wait(self, timeout: float) -> tuple[int, float]:
        """torchrun's exit status and how long it took to exit."""
        t0 = time.monotonic()
        code = self.proc.wait(timeout)
        return code, time.monotonic() - t0

    def close(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(10)
        if hasattr(self, "conn"):
            self.conn.close()
