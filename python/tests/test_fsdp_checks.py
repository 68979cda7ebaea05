"""What rank 0 refuses before it broadcasts init (a refusal there is an error reply, the group
serves on), and restoring a checkpoint's CUDA RNG states on a machine with fewer GPUs."""

import pytest
import torch
from transformers import BertConfig, T5Config

from rllm_worker import checkpoint
from rllm_worker.fsdp import check_shardable


def test_a_causal_lm_with_decoder_layers_is_shardable(tiny_qwen3_dir):
    check_shardable(str(tiny_qwen3_dir))


def test_a_model_without_decoder_layer_classes_is_refused(tmp_path):
    BertConfig(hidden_size=16, num_hidden_layers=1, num_attention_heads=2, intermediate_size=32).save_pretrained(tmp_path)
    with pytest.raises(ValueError, match=r"cannot shard BertLMHeadModel .*_no_split_modules.*backend\.nproc 1"):
        check_shardable(str(tmp_path))


def test_a_model_that_is_no_causal_lm_is_refused(tmp_path):
    T5Config(d_model=16, num_layers=1, num_heads=2, d_ff=32).save_pretrained(tmp_path)
    with pytest.raises(ValueError, match="transformers has no causal LM for T5Config"):
        check_shardable(str(tmp_path))


def test_cuda_rng_states_restore_on_the_gpus_this_machine_has(monkeypatch):
    rng = checkpoint._rng_state() | {"cuda": [torch.tensor([i], dtype=torch.uint8) for i in range(8)]}
    restored = []
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
    monkeypatch.setattr(torch.cuda, "set_rng_state", lambda state, device: restored.append((int(state[0]), device)))
    checkpoint.set_rng_state(rng)
    assert restored == [(0, 0), (1, 1)]  # saved with 8 GPUs, restored on the 2 there are
