"""A trainer's checkpoint (PROTOCOL.md `save`/`load`): weights that plain transformers or peft load
as they are, and beside them what resuming needs.

    full fine-tuning   save_pretrained (config.json, model.safetensors, generation_config.json) +
                       the tokenizer files and chat template copied from the model's directory
                       → AutoModelForCausalLM.from_pretrained(dir)
    LoRA               the peft adapter (adapter_config.json, adapter_model.safetensors)
                       → PeftModel.from_pretrained(base, dir)
    both               optimizer/ (the AdamW state as a torch distributed checkpoint, keyed by
                       parameter name: loads on any number of ranks)
                       trainer_state.pt (step, torch/CUDA/python/numpy RNG states)
                       worker.json (base model, LoRA settings, dtype, step)

One process or N (fsdp.py) write the same files: the weights and the optimizer state are gathered to
rank 0, which writes them as one process would (no filesystem shared between nodes is needed); on
load rank 0 reads them and the trainer hands each rank its shard. Checkpoints written before
`optimizer/` existed kept the optimizer in trainer_state.pt, by parameter index: load still reads it.
"""

from __future__ import annotations

import glob
import json
import os
import random
import shutil
import warnings

import numpy as np
import torch
import torch.distributed.checkpoint as dcp
from safetensors.torch import load_file, save_file
from torch.distributed.checkpoint.default_planner import _EmptyStateDictLoadPlanner
from torch.distributed.checkpoint.state_dict import set_optimizer_state_dict
from torch.distributed.checkpoint.state_dict_loader import _load_state_dict

TOKENIZER_FILES = (
    "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "added_tokens.json", "vocab.json",
    "merges.txt", "tokenizer.model", "chat_template.jinja", "chat_template.json",
)
STATE_FILE = "trainer_state.pt"
OPTIMIZER_DIR = "optimizer"
WORKER_FILE = "worker.json"


def _rng_state() -> dict:
    return {
        "torch": torch.get_rng_state(),
        "cuda": torch.cuda.get_rng_state_all() if torch.cuda.is_available() else None,
        "python": random.getstate(),
        "numpy": np.random.get_state(),
    }


def set_rng_state(rng: dict) -> None:
    torch.set_rng_state(rng["torch"])
    if rng["cuda"] is not None and torch.cuda.is_available():
        # saved on a machine with more (or fewer) GPUs: the devices both have
        for device, state in enumerate(rng["cuda"][: torch.cuda.device_count()]):
            torch.cuda.set_rng_state(state, device)
    random.setstate(rng["python"])
    np.random.set_state(rng["numpy"])


def save(trainer, directory: str) -> list[str]:
    """Writes `trainer`'s checkpoint to `directory`; returns the file names there. Every rank calls it;
    rank 0 writes (the others return [])."""
    weights = trainer.weights_state()  # None: the model's own state_dict (one process)
    optimizer = trainer.optimizer_state()
    if not trainer.is_main:
        return []
    os.makedirs(directory, exist_ok=True)
    trainer.model.save_pretrained(directory, state_dict=weights)
    if not trainer.lora:
        for name in TOKENIZER_FILES:
            src = os.path.join(trainer.source_dir, name)
            if os.path.isfile(src):
                shutil.copyfile(src, os.path.join(directory, name))
    with warnings.catch_warnings():  # "assuming the intent is to save in a single process": it is
        warnings.simplefilter("ignore", UserWarning)
        dcp.save(optimizer, checkpoint_id=os.path.join(directory, OPTIMIZER_DIR), no_dist=True)
    torch.save({"step": trainer.step, "rng": _rng_state()}, os.path.join(directory, STATE_FILE))
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


def export(trainer, directory: str, weights: dict[str, torch.Tensor] | None = None) -> None:
    """The trainable weights for the sampler (PROTOCOL.md `export_weights`): LoRA the adapter, full
    every tensor by its state_dict name in model.safetensors. `weights`: gathered ones (None: the
    model's own)."""
    os.makedirs(directory, exist_ok=True)
    if trainer.lora:
        trainer.model.save_pretrained(directory, state_dict=weights)
        return
    seen: set[int] = set()
    tensors = {}
    for name, t in (weights if weights is not None else trainer.model.state_dict()).items():
        t = t.detach().cpu()
        tensors[name] = t.clone() if t.data_ptr() in seen else t.contiguous()  # tied weights share storage
        seen.add(t.data_ptr())
    save_file(tensors, os.path.join(directory, "model.safetensors"))


def _adapter_names(model: torch.nn.Module) -> dict[str, str]:
    """The adapter file's tensor names → the model's parameter names, by peft's own naming (its
    get_peft_model_state_dict of probe values)."""
    from peft import get_peft_model_state_dict

    names = [n for n, p in model.named_parameters() if p.requires_grad]
    saved = get_peft_model_state_dict(model, state_dict={n: torch.tensor(float(i)) for i, n in enumerate(names)})
    return {key: names[int(v)] for key, v in saved.items()}


def _model_weights(trainer, saved: dict[str, torch.Tensor], directory: str) -> dict[str, torch.Tensor]:
    """The checkpoint's weights keyed by the model's state_dict names, checked to fit the model."""
    if trainer.lora:
        names = _adapter_names(trainer.model)
        missing, unexpected = sorted(set(names) - set(saved)), sorted(set(saved) - set(names))
        weights = {names[k]: v for k, v in saved.items() if k in names}
    else:
        kept = {name for name, _ in trainer.model.named_parameters()}  # tied weights appear once
        missing, unexpected = sorted(kept - set(saved)), sorted(set(saved) - set(trainer.model.state_dict()))
        weights = saved
    if missing or unexpected:
        raise ValueError(f"checkpoint {directory} does not fit the model: missing {missing[:5]}, unexpected {unexpected[:5]}")
    return weights


def read(trainer, directory: str) -> dict:
    """What `save` wrote to `directory`, checked against `trainer`: {"weights": keyed by the model's
    state_dict names (LoRA: the adapter's), "optimizer": the optimizer state keyed by parameter name, "step",
    "rng"}. Rank 0 alone reads."""
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
        saved = load_file(os.path.join(directory, "adapter_model.safetensors"))
    else:
        files = sorted(glob.glob(os.path.join(directory, "*.safetensors")))
        if not files:
            raise FileNotFoundError(f"checkpoint {directory} has no *.safetensors weights")
        saved = {}
        for f in files:
            saved.update(load_file(f))
    state = torch.load(os.path.join(directory, STATE_FILE), weights_only=False)
    if "optimizer" in state:  # written before optimizer/ existed: keyed by index, in group order
        optimizer = _named_optimizer_state(state["optimizer"], trainer.group_names)
    else:
        optimizer = {}  # filled from the checkpoint's own metadata, as format_utils.dcp_to_torch_save does
        _load_state_dict(optimizer, storage_reader=dcp.FileSystemReader(os.path.join(directory, OPTIMIZER_DIR)),
                         planner=_EmptyStateDictLoadPlanner(), no_dist=True)
    return {"weights": _model_weights(trainer, saved, directory), "optimizer": optimizer, "step": int(state["step"]), "rng": state["rng"]}


def _named_optimizer_state(state: dict, group_names: list[list[str]]) -> dict:
    """torch.optim's state_dict (parameters by index) keyed by parameter name instead."""
    names = [n for group in group_names for n in group]
    return {
        "state": {names[i]: s for i, s in state["state"].items()},
        "param_groups": [{**g, "params": [names[i] for i in g["params"]]} for g in state["param_groups"]],
    }


def load(trainer, directory: str) -> int:
    """Restores weights, optimizer, step and RNG states from `save`'s `directory`; returns the step.
    Every rank calls it; rank 0 reads."""
    return trainer.restore(read(trainer, directory) if trainer.is_main else None)


def restore(trainer, saved: dict) -> int:
    """One process: `read`'s result into `trainer`."""
    trainer.model.load_state_dict(saved["weights"], strict=False)
    set_optimizer_state_dict(trainer.model, trainer.optimizer, saved["optimizer"])
    trainer.step = saved["step"]
    set_rng_state(saved["rng"])
    return trainer.step
