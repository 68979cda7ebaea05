"""Tiny random-initialised Hugging Face models, written with save_pretrained so that the worker's
real loading path (config.json + model.safetensors) runs in tests. Two architectures (Qwen3 and
Llama), 2 layers, hidden 64; fp32. Deterministic: the same seed writes the same weights."""

from __future__ import annotations

from pathlib import Path

import torch
from transformers import LlamaConfig, LlamaForCausalLM, Qwen3Config, Qwen3ForCausalLM

TINY_VOCAB = 512


def _common(vocab_size: int) -> dict:
    return dict(
        vocab_size=vocab_size,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=256,
        bos_token_id=1,
        eos_token_id=2,
        pad_token_id=0,
        torch_dtype="float32",
    )


def make_tiny_model(directory: str | Path, arch: str = "qwen3", seed: int = 0, vocab_size: int = TINY_VOCAB) -> Path:
    """Writes a tiny `arch` ("qwen3" | "llama") model to `directory`; returns the directory."""
    directory = Path(directory)
    torch.manual_seed(seed)
    if arch == "qwen3":
        config = Qwen3Config(head_dim=16, tie_word_embeddings=False, **_common(vocab_size))
        model = Qwen3ForCausalLM(config)
    elif arch == "llama":
        config = LlamaConfig(tie_word_embeddings=True, **_common(vocab_size))
        model = LlamaForCausalLM(config)
    else:
        raise ValueError(f"unknown tiny architecture {arch!r}; use qwen3 or llama")
    # default init is std 0.02: scale up so logits are not all ~uniform and gradients are visible
    with torch.no_grad():
        for p in model.parameters():
            if p.dim() >= 2:
                p.normal_(0.0, 0.2)
    model.save_pretrained(directory)
    model.generation_config.save_pretrained(directory)
    return directory
