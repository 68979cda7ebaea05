"""Loading a Hugging Face causal LM for the worker: a model directory or a Hub id (resolved through
the normal HF cache), in the dtype and on the device asked for (fp32 on CPU, bf16 on CUDA unless
`dtype` says otherwise), with a LoRA adapter (peft) when asked, and the facts the protocol's `init`
reply carries."""

from __future__ import annotations

import os
from dataclasses import dataclass

import torch

DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float64": torch.float64}  # float64: tests
DEVICES = ("cpu", "cuda")


@dataclass
class LoadedModel:
    model: torch.nn.Module  # peft-wrapped when LoRA
    info: dict  # init's result: architecture, vocabSize, maxSeqLen, numParams, trainableParams, dtype, device, eosTokenIds
    source_dir: str  # the local directory the weights came from


def resolve_model_dir(model: str) -> str:
    """`model` as a local directory: itself when it is one, else a Hub id fetched into (or found in)
    the Hugging Face cache."""
    if os.path.isdir(model):
        if not os.path.isfile(os.path.join(model, "config.json")):
            raise FileNotFoundError(f"model directory {model} has no config.json: is it a Hugging Face model directory?")
        return os.path.abspath(model)
    if os.path.exists(model) or model.startswith((".", "/", "~")):
        raise FileNotFoundError(f"model {model!r} is not a directory (give a Hugging Face model directory or a Hub id)")
    from huggingface_hub import snapshot_download

    try:
        return snapshot_download(model)
    except Exception as e:  # noqa: BLE001 — the Hub's errors vary; say what was asked and why it failed
        raise FileNotFoundError(
            f"model {model!r} is neither a local directory nor a Hub id that could be fetched ({type(e).__name__}: {e})"
        ) from e


def resolve_dtype(dtype: str | None, device: str) -> torch.dtype:
    if device not in DEVICES:
        raise ValueError(f"device must be one of {', '.join(DEVICES)}, got {device!r}")
    if device == "cuda" and not torch.cuda.is_available():
        raise RuntimeError("device is 'cuda' but torch sees no CUDA GPU (use --device cpu, or a CUDA build of torch)")
    if dtype is None:
        return torch.bfloat16 if device == "cuda" else torch.float32
    if dtype not in DTYPES:
        raise ValueError(f"dtype must be one of {', '.join(DTYPES)}, got {dtype!r}")
    return DTYPES[dtype]


def eos_token_ids(source_dir: str, config) -> list[int]:
    """The ids that end a generation: generation_config.json's eos_token_id, else config.json's."""
    from transformers import GenerationConfig

    eos = None
    if os.path.isfile(os.path.join(source_dir, "generation_config.json")):
        eos = GenerationConfig.from_pretrained(source_dir).eos_token_id
    if eos is None:
        eos = getattr(config.get_text_config(), "eos_token_id", None)
    if eos is None:
        return []
    return [int(e) for e in (eos if isinstance(eos, (list, tuple)) else [eos])]


def lora_config(lora: dict):
    """peft's LoraConfig from the protocol's {rank, alpha, dropout, targetModules}."""
    from peft import LoraConfig

    missing = {"rank", "alpha", "dropout", "targetModules"} - set(lora)
    if missing:
        raise ValueError(f"lora needs rank, alpha, dropout and targetModules; missing {', '.join(sorted(missing))}")
    if not isinstance(lora["rank"], int) or lora["rank"] < 1:
        raise ValueError(f"lora.rank must be an integer ≥ 1, got {lora['rank']!r}")
    targets = lora["targetModules"]
    if targets != "all-linear" and not (isinstance(targets, list) and targets and all(isinstance(t, str) for t in targets)):
        raise ValueError(f"lora.targetModules must be \"all-linear\" or a list of module names, got {targets!r}")
    return LoraConfig(
        r=lora["rank"],
        lora_alpha=lora["alpha"],
        lora_dropout=lora["dropout"],
        target_modules=targets,
        task_type="CAUSAL_LM",
    )


def _info(model: torch.nn.Module, config, source_dir: str, dtype: torch.dtype, device: str) -> dict:
    text = config.get_text_config()
    arch = (config.architectures or [type(model).__name__])[0]
    unique = {id(p): p for p in model.parameters()}.values()
    return {
        "architecture": arch,
        "vocabSize": int(text.vocab_size),
        "maxSeqLen": int(getattr(text, "max_position_embeddings", 0) or 0),
        "numParams": sum(p.numel() for p in unique),
        "trainableParams": sum(p.numel() for p in unique if p.requires_grad),
        "dtype": str(dtype).removeprefix("torch."),
        "device": device,
        "eosTokenIds": eos_token_ids(source_dir, config),
    }


def load_model(
    model: str,
    device: str,
    dtype: str | None,
    lora: dict | None = None,
    adapter: str | None = None,
    gradient_checkpointing: bool = False,
    trainable: bool = True,
) -> LoadedModel:
    """The model `model` (directory or Hub id). LoRA: `lora` adds a fresh adapter, `adapter` loads a
    saved one (its own settings win). Not `trainable`: eval mode, no parameter needs a gradient."""
    from transformers import AutoModelForCausalLM

    torch_dtype = resolve_dtype(dtype, device)
    source_dir = resolve_model_dir(model)
    net = AutoModelForCausalLM.from_pretrained(source_dir, dtype=torch_dtype, attn_implementation="sdpa")
    net.to(device)
    if gradient_checkpointing:
        net.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
        net.config.use_cache = False
    if adapter is not None:
        from peft import PeftModel

        if not os.path.isfile(os.path.join(adapter, "adapter_config.json")):
            raise FileNotFoundError(f"adapter {adapter} has no adapter_config.json: is it a peft adapter directory?")
        net = PeftModel.from_pretrained(net, adapter, is_trainable=trainable)
    elif lora is not None:
        from peft import get_peft_model

        net = get_peft_model(net, lora_config(lora))
    if not trainable:
        net.requires_grad_(False)
        net.eval()
    return LoadedModel(model=net, info=_info(net, net.config, source_dir, torch_dtype, device), source_dir=source_dir)


def is_lora(model: torch.nn.Module) -> bool:
    from peft import PeftModel

    return isinstance(model, PeftModel)


def hf_model(model: torch.nn.Module):
    """The transformers model under a peft wrapper (LoRA layers stay injected in it)."""
    return model.get_base_model() if is_lora(model) else model
