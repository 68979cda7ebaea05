"""`python -m rllm_worker.inspect_weights DIR --kind lora|full [--base MODEL_DIR]`: does DIR load the
way a vLLM or SGLang server would load it? The fake servers of the TypeScript tests
(src/testing/fake-upstream/weights.ts) run it on every directory a weight sync hands them.

  lora   DIR is a peft adapter (adapter_config.json + adapter_model.safetensors); it is applied to
         --base (required) and every tensor of the file must land on a LoRA parameter of the model
         (no unexpected names, no LoRA parameter left without a value).
  full   DIR is a Hugging Face model directory; AutoModelForCausalLM.from_pretrained loads it with
         no missing, unexpected or mismatched tensors (a tied head may be absent or present). With
         --base, its parameter names and shapes must also be the base model's.

Prints one JSON line `{"kind", "params", "tensors"}` and exits 0, or prints the reason on stderr
and exits 1. `--serve` checks many directories in one process (the imports once): each stdin line
`{"dir", "kind", "base"?}` is answered by one stdout line, `{"ok": true, "result": {...}}` or
`{"ok": false, "error": reason}`, until stdin ends.
"""

from __future__ import annotations

import argparse
import json
import os
import sys


class WeightsError(Exception):
    pass


def _require(path: str, what: str) -> None:
    if not os.path.exists(path):
        raise WeightsError(f"{path} does not exist ({what})")


def inspect_lora(directory: str, base: str | None) -> dict:
    from peft import PeftConfig, get_peft_model, set_peft_model_state_dict
    from safetensors.torch import load_file
    from transformers import AutoModelForCausalLM

    if base is None:
        raise WeightsError("--kind lora needs --base (the model directory the adapter applies to)")
    _require(os.path.join(directory, "adapter_config.json"), "a peft adapter's config")
    weights = os.path.join(directory, "adapter_model.safetensors")
    _require(weights, "a peft adapter's tensors")
    config = PeftConfig.from_pretrained(directory)
    model = get_peft_model(AutoModelForCausalLM.from_pretrained(base), config)
    state = load_file(weights)
    result = set_peft_model_state_dict(model, state)
    if result.unexpected_keys:
        raise WeightsError(f"adapter tensors the model has no place for: {sorted(result.unexpected_keys)[:5]}")
    missing = [k for k in result.missing_keys if "lora_" in k]
    if missing:
        raise WeightsError(f"LoRA parameters the adapter gives no value: {sorted(missing)[:5]}")
    return {"kind": "lora", "params": sum(t.numel() for t in state.values()), "tensors": len(state)}


def inspect_full(directory: str, base: str | None) -> dict:
    from transformers import AutoConfig, AutoModelForCausalLM

    _require(os.path.join(directory, "config.json"), "a Hugging Face model's config")
    model, info = AutoModelForCausalLM.from_pretrained(directory, output_loading_info=True)
    tied = bool(getattr(model.config, "tie_word_embeddings", False))
    missing = [k for k in info.get("missing_keys", []) if not (tied and k.startswith("lm_head."))]
    unexpected = [k for k in info.get("unexpected_keys", []) if not (tied and k.startswith("lm_head."))]
    for what, keys in (("missing", missing), ("unexpected", unexpected), ("mismatched", info.get("mismatched_keys", []))):
        if keys:
            raise WeightsError(f"{what} tensors loading {directory}: {sorted(map(str, keys))[:5]}")
    shapes = {n: tuple(p.shape) for n, p in model.named_parameters()}
    if base is not None:
        reference = AutoModelForCausalLM.from_config(AutoConfig.from_pretrained(base))
        expected = {n: tuple(p.shape) for n, p in reference.named_parameters()}
        if expected != shapes:
            diff = sorted(set(expected.items()) ^ set(shapes.items()))[:5]
            raise WeightsError(f"{directory}'s parameters are not those of the base model {base}: {diff}")
    return {"kind": "full", "params": sum(p.numel() for p in model.parameters()), "tensors": len(shapes)}


def inspect(directory: str, kind: str, base: str | None) -> dict:
    """The check of `kind` on `directory`; raises WeightsError (or the loader's error) with the reason."""
    if kind not in ("lora", "full"):
        raise WeightsError(f"kind must be lora or full, not {kind!r}")
    if not os.path.isdir(directory):
        raise WeightsError(f"{directory} is not a directory")
    return (inspect_lora if kind == "lora" else inspect_full)(directory, base)


def _reason(e: Exception) -> str:
    # a file transformers or peft cannot read: the reason is theirs
    return str(e) if isinstance(e, WeightsError) else f"{type(e).__name__}: {e}"


def serve(lines, out) -> None:
    for line in lines:
        if not line.strip():
            continue
        try:
            req = json.loads(line)
            reply = {"ok": True, "result": inspect(str(req["dir"]), str(req["kind"]), req.get("base"))}
        except Exception as e:
            reply = {"ok": False, "error": _reason(e)}
        out.write(json.dumps(reply) + "\n")
        out.flush()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m rllm_worker.inspect_weights", description=__doc__.split("\n\n")[0])
    p.add_argument("dir", nargs="?")
    p.add_argument("--kind", choices=["lora", "full"])
    p.add_argument("--base", help="the base model directory (required for lora)")
    p.add_argument("--serve", action="store_true", help="check the directories named on stdin, one JSON line each")
    args = p.parse_args(argv)
    if args.serve:
        serve(sys.stdin, sys.stdout)
        return 0
    if args.dir is None or args.kind is None:
        p.error("DIR and --kind are required (or --serve)")
    try:
        out = inspect(args.dir, args.kind, args.base)
    except Exception as e:
        print(_reason(e), file=sys.stderr)
        return 1
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
