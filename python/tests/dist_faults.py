"""A torchrun entry for tests/test_distributed_failure.py: the worker's own entry point, with the
optim_step of rank RLLM_TEST_FAULT_RANK (default 1) replaced as RLLM_TEST_FAULT says — "raise": a Python exception in the middle of the call;
"hang": writes its pid to RLLM_TEST_MARK and sleeps (the test then kills it inside the call)."""

import os
import sys
import time
from pathlib import Path

from rllm_worker import __main__ as worker
from rllm_worker import fsdp

if os.environ.get("RANK") == os.environ.get("RLLM_TEST_FAULT_RANK", "1"):
    fault = os.environ["RLLM_TEST_FAULT"]

    def optim_step(self, params):
        if fault == "raise":
            raise RuntimeError(f"injected failure on rank {os.environ['RANK']}")
        Path(os.environ["RLLM_TEST_MARK"]).write_text(str(os.getpid()))
        time.sleep(600)

    fsdp.DistributedTrainer.optim_step = optim_step

sys.exit(worker.main())
