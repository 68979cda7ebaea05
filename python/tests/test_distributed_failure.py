"""A distributed trainer that loses a rank ends, and says which: rank 1 killed with SIGKILL while the
group is idle or inside a call, or raising a Python exception mid-call, ends torchrun with a non-zero
status and a failure summary naming rank 1 (with the exception's traceback), within a bound — rank 0
never waits on a dead peer. And the launch's own errors: rank 0 without a socket, the sampler role."""

import json
import os
import signal
import socket
import time

import pytest
from safetensors.torch import save_file

from rllm_worker import __main__ as worker_main
from test_distributed import IS_TOKEN_MEAN, OPTIM
from test_train import denominators, init_params, make_batch
from torchrun_worker import TESTS_DIR, TorchrunWorker

BOUND_S = 60
FAULTS = [str(TESTS_DIR / "dist_faults.py")]


def accumulate(w: TorchrunWorker, model_dir) -> None:
    """init and one forward_backward: the next optim_step's gradient norm needs every rank."""
    w.call("init", init_params(model_dir))
    batch = make_batch([4, 6, 3])
    path = str(w.dir / "batch.safetensors")
    save_file(batch, path)
    w.call("forward_backward", {"tensors": path, "loss": IS_TOKEN_MEAN, "denominators": denominators(batch),
                                "proximal": "sampling"})


def ended(w: TorchrunWorker) -> str:
    """torchrun's output once it has exited non-zero within the bound."""
    code, took = w.wait(BOUND_S)
    out = w.output()
    assert code != 0, out
    assert took < BOUND_S
    return out


def test_sigkill_of_rank_1_while_idle_ends_the_group(tmp_path):
    w = TorchrunWorker(tmp_path)
    try:
        os.kill(w.hello["world"]["ranks"][1]["pid"], signal.SIGKILL)
        out = ended(w)
        assert "rank      : 1 (local_rank: 1)" in out and "Signal 9 (SIGKILL)" in out, out
    finally:
        w.close()


def test_sigkill_of_rank_1_inside_a_call_ends_the_group(tmp_path, tiny_qwen3_dir):
    mark = tmp_path / "rank1-in-call"
    w = TorchrunWorker(tmp_path, entry=FAULTS, env={"RLLM_TEST_FAULT": "hang", "RLLM_TEST_MARK": str(mark)})
    try:
        accumulate(w, tiny_qwen3_dir)
        w.send("optim_step", OPTIM)  # rank 0 waits in the gradient-norm all-reduce for rank 1
        deadline = time.monotonic() + 60
        while not mark.exists():
            assert time.monotonic() < deadline, w.output()
            time.sleep(0.1)
        t0 = time.monotonic()
        os.kill(int(mark.read_text()), signal.SIGKILL)
        out = ended(w)
        assert time.monotonic() - t0 < BOUND_S
        assert "rank      : 1 (local_rank: 1)" in out and "Signal 9 (SIGKILL)" in out, out
    finally:
        w.close()


@pytest.mark.parametrize("rank", [1, 0])
def test_an_exception_mid_call_reaches_the_failure_summary(tmp_path, tiny_qwen3_dir, rank):
    """Rank 0 too: a failure while the group executes a call is no error reply (the other ranks are
    mid-call), it ends the group."""
    w = TorchrunWorker(tmp_path, entry=FAULTS, env={"RLLM_TEST_FAULT": "raise", "RLLM_TEST_FAULT_RANK": str(rank)})
    try:
        accumulate(w, tiny_qwen3_dir)
        w.send("optim_step", OPTIM)
        assert w.file.readline() == b"", "no reply: rank 0 closes the socket as it ends"
        out = ended(w)
        summary = out[out.index("Root Cause"):]
        assert f"rank      : {rank} (local_rank: {rank})" in summary, out
        assert f"RuntimeError: injected failure on rank {rank}" in summary and "dist_faults.py" in summary, out
    finally:
        w.close()


def test_rank_0_without_a_socket_is_a_usage_error(monkeypatch, capsys):
    monkeypatch.setenv("RANK", "0")
    monkeypatch.setenv("WORLD_SIZE", "2")
    with pytest.raises(SystemExit) as e:
        worker_main.main(["--role", "trainer"])
    assert e.value.code == 2
    assert "--socket and --exchange are required (only a torchrun rank other than 0" in capsys.readouterr().err


def test_the_sampler_role_under_torchrun_is_fatal(tmp_path, monkeypatch):
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(tmp_path / "rpc.sock"))
    listener.listen(1)
    monkeypatch.setenv("RANK", "0")
    monkeypatch.setenv("WORLD_SIZE", "2")
    monkeypatch.setattr(signal, "signal", lambda *_: None)  # keep pytest's own handlers
    code = worker_main.main(["--socket", str(tmp_path / "rpc.sock"), "--exchange", str(tmp_path), "--role", "sampler"])
    conn, _ = listener.accept()
    fatal = json.loads(conn.makefile("rb").readline())
    assert code == 3 and fatal["event"] == "fatal"
    assert "the sampler role cannot run under torchrun" in fatal["message"]
    conn.close()
    listener.close()


def test_sigkill_of_torchrun_leaves_no_rank_behind(tmp_path):
    """The ranks run in sessions of their own; they die with their torchrun all the same."""
    w = TorchrunWorker(tmp_path)
    try:
        pids = [r["pid"] for r in w.hello["world"]["ranks"]]
        w.proc.kill()
        w.proc.wait(10)
        deadline = time.monotonic() + 20
        while any(_alive(p) for p in pids):
            assert time.monotonic() < deadline, f"ranks still running: {[p for p in pids if _alive(p)]}"
            time.sleep(0.1)
    finally:
        w.close()


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"  # a zombie has ended
    except FileNotFoundError:
        return False


def test_a_rank_stuck_inside_a_call_fails_the_group_after_the_collective_timeout(tmp_path, tiny_qwen3_dir):
    """Rank 1 alive but never reaching the collective: rank 0 gives up after --collective-timeout-s."""
    w = TorchrunWorker(tmp_path, entry=FAULTS, timeout_s=10,
                       env={"RLLM_TEST_FAULT": "hang", "RLLM_TEST_MARK": str(tmp_path / "mark")})
    try:
        accumulate(w, tiny_qwen3_dir)
        t0 = time.monotonic()
        w.send("optim_step", OPTIM)
        out = ended(w)
        assert 10 <= time.monotonic() - t0 < BOUND_S
        summary = out[out.index("Root Cause"):]
        assert "rank      : 0 (local_rank: 0)" in summary and "Timed out" in summary, out
    finally:
        w.close()
