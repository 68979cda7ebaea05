"""rllm_worker: the PyTorch worker of rllm's `--backend torch` (see PROTOCOL.md)."""

__version__ = "0.1.0"
