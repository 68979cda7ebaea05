"""A trainer's checkpoint (PROTOCOL.md `save`/`load`): weights that plain transformers or peft load
as they are, and beside them what resuming needs.

    full fine-tuning   save_pretrained (config.json, model.safetensors, generation_config.json) +
                       the tokenizer files and chat template copied from the model's directory
                       → AutoModelForCausalLM.from_pretrained(dir)
    LoRA               the peft adapter (adapter_config.json, adapter_model.safetensors)
                       → PeftModel.from_pretrained(base, dir)
    both               trainer_state.pt (optimizer, step, torch/CUDA/python/numpy RNG states)
                       worker.json (base model, LoRA settings, dtype, step)
"""

from __future__ import annotations

import glob
import json
import os
import random
import shutil

import numpy as np
import torch
from safetensors.torch import load_file

TOKENIZER_FILES = (
    "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "added_tokens.json", "vocab.json",
    "merges.txt", "tokenizer.model", "chat_template.jinja", "chat_template.json",
)
STATE_FILE = "trainer_state.pt"
WORKER_FILE = "worker.json"


def _rng_state() -> dict:
    return {
        "torch": torch.get_rng_state(),
        "cuda": torch.cuda.get_rng_state_all() if torch.cuda.is_available() else None,
        "python": random.getstate(),
        "numpy": np.random.get_state(),
    }


def _set_rng_state(rng: dict) -> None:
    torch.set_rng_state(rng["torch"])
    if rng["cuda"] is not None and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(rng["cuda"])
    random.setstate(rng["python"])
    np.random.set_state(rng["numpy"])


def save(trainer, directory: str) -> list[str]:
    """Writes `trainer`'s checkpoint to `directory`; returns the file names there."""
    os.makedirs(directory, exist_ok=True)
    trainer.model.save_pretrained(directory)
    if not trainer.lora:
        for name in TOKENIZER_FILES:
            src = os.path.join(trainer.source_dir, name)
            if os.path.isfile(src):
                shutil.copyfile(src, os.path.join(directory, name))
    torch.save(
        {"optimizer": trainer.optimizer.state_dict(), "step": trainer.step, "rng": _rng_state()},
        os.path.join(directory, STATE_FILE),
    )
    worker = {
        "baseModel": trainer.params["model"],
        "kind": "lora" if trainer.lora else "full",
        "lora": trainer.params["lora"],
        "adapter": trainer.params["adapter"],
        "dtype": trainer.info["dtype"],
        "step": trainer.step,
    }
    with open(os.path.join(directory, WORKER_FILE), "w") as f:
        json.dump(worker, f, indent=2)
    return sorted(os.listdir(directory))


def _load_full_weights(model: torch.nn.Module, directory: str) -> None:
    files = sorted(glob.glob(os.path.join(directory, "*.safetensors")))
    if not files:
        raise FileNotFoundError(f"checkpoint {directory} has no *.safetensors weights")
    state = {}
    for f in files:
        state.update(load_file(f))
    result = model.load_state_dict(state, strict=False)
    kept = {name for name, _ in model.named_parameters()}  # tied weights appear once
    missing = [k for k in result.missing_keys if k in kept]
    if missing or result.unexpected_keys:
        raise ValueError(
            f"checkpoint {directory} does not fit the model: missing {missing[:5]}, unexpected {result.unexpected_keys[:5]}"
        )


def load(trainer, directory: str) -> int:
    """Restores weights, optimizer, step and RNG states from `save`'s `directory`; returns the step."""
    worker_path = os.path.join(directory, WORKER_FILE)
    if not os.path.isfile(worker_path):
        raise FileNotFoundError(f"{directory} has no {WORKER_FILE}: it is not a checkpoint the trainer saved")
    with open(worker_path) as f:
        worker = json.load(f)
    kind = "lora" if trainer.lora else "full"
    if worker["kind"] != kind:
        raise ValueError(
            f"checkpoint {directory} is {worker['kind']} fine-tuning but this trainer does {kind}: "
            f"start it with the same LoRA settings the checkpoint was trained with"
        )
    if trainer.lora:
        from peft import set_peft_model_state_dict

        result = set_peft_model_state_dict(trainer.model, load_file(os.path.join(directory, "adapter_model.safetensors")))
        if result.unexpected_keys:
            raise ValueError(f"adapter in {directory} does not fit the model: unexpected {result.unexpected_keys[:5]}")
    else:
        _load_full_weights(trainer.model, directory)
    state = torch.load(os.path.join(directory, STATE_FILE), weights_only=False)
    trainer.optimizer.load_state_dict(state["optimizer"])
    trainer.step = int(state["step"])
    _set_rng_state(state["rng"])
    return trainer.step
