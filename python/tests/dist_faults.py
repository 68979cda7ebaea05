"""A torchrun entry for tests/test_distributed_failure.py: the worker's own entry point, with rank 1's
optim_step replaced as RLLM_TEST_FAULT says — "raise": a Python exception in the middle of the call;
"hang": writes its pid to RLLM_TEST_MARK and sleeps (the test then kills it inside the call)."""

import os
import sys
import time
from pathlib import Path

from rllm_worker import __main__ as worker
from rllm_worker import fsdp

if os.environ.get("RANK") == "1":
    fault = os.environ["RLLM_TEST_FAULT"]

    def optim_step(self, params):
        if fault == "raise":
            raise RuntimeError("injected failure on rank 1")
        Path(os.environ["RLLM_TEST_MARK"]).write_text(str(os.getpid()))
        time.sleep(600)

    fsdp.DistributedTrainer.optim_step = optim_step

sys.exit(worker.main())
