"""Reads an exported local-backend model directory with plain transformers and prints what the
TypeScript side compares against its own model (src/backends/local/export-hf.test.ts).

    echo '{"dir": "...", "rows": [[...]], "texts": ["..."], "chats": [...]}' | python local_logprobs.py

Input (stdin, JSON):
    dir    the model directory (AutoModelForCausalLM + AutoTokenizer load it as is)
    rows   token-id rows; each is run alone (no padding), fp32 on the CPU
    texts  strings to encode (add_special_tokens=False) and decode back
    chats  {"messages", "tools", "add_generation_prompt"}: rendered with apply_chat_template
    grad_dir  (optional) a directory whose model.safetensors holds the local model's gradient of
              Σ_rows Σ_{t≥1} log π(row[t]) in this model's tensor layout (exportLocalAsHf of the
              gradient): compared with autograd's gradient of the same sum here
Output (stdout, JSON):
    logprobs  per row, log π(row[t] | row[<t]) for t ≥ 1 and 0 at t = 0 (the local model's
              Gpt.tokenLogprobs convention)
    encoded   per text, its ids;  decoded: decode(ids) and decode(ids, skip_special_tokens=True)
    chats     per chat, {"text", "ids"}: the template's text and its ids
    grads     with grad_dir: per tensor {"max_abs_diff", "max_abs"} (max |ours − theirs|, max |theirs|)
"""

from __future__ import annotations

import json
import sys

import torch
from safetensors.torch import load_file
from transformers import AutoModelForCausalLM, AutoTokenizer


def row_logprobs(model, row: list[int]) -> list[float]:
    ids = torch.tensor([row], dtype=torch.long)
    with torch.no_grad():
        logits = model(input_ids=ids).logits[0].float()
    logp = torch.log_softmax(logits, dim=-1)
    picked = logp[:-1].gather(1, ids[0, 1:, None])[:, 0]
    return [0.0, *picked.tolist()]


def compare_grads(model, rows: list[list[int]], grad_dir: str) -> dict[str, dict[str, float]]:
    model.zero_grad()
    for row in rows:
        ids = torch.tensor([row], dtype=torch.long)
        logp = torch.log_softmax(model(input_ids=ids).logits[0].float(), dim=-1)
        logp[:-1].gather(1, ids[0, 1:, None]).sum().backward()
    theirs = load_file(f"{grad_dir}/model.safetensors")
    ours = {name: p.grad for name, p in model.named_parameters()}
    if set(ours) != set(theirs):
        raise SystemExit(
            f"gradient tensors differ: only here {sorted(set(ours) - set(theirs))}, "
            f"only in {grad_dir} {sorted(set(theirs) - set(ours))}"
        )
    return {
        name: {
            "max_abs_diff": (g - theirs[name]).abs().max().item(),
            "max_abs": theirs[name].abs().max().item(),
        }
        for name, g in ours.items()
    }


def main() -> None:
    request = json.load(sys.stdin)
    torch.set_num_threads(1)
    model = AutoModelForCausalLM.from_pretrained(
        request["dir"], dtype=torch.float32, attn_implementation="eager"
    ).eval()
    tokenizer = AutoTokenizer.from_pretrained(request["dir"])
    encoded = [tokenizer.encode(t, add_special_tokens=False) for t in request.get("texts", [])]
    chats = []
    for chat in request.get("chats", []):
        text = tokenizer.apply_chat_template(
            chat["messages"],
            tools=chat.get("tools"),
            add_generation_prompt=chat.get("add_generation_prompt", False),
            tokenize=False,
        )
        chats.append({"text": text, "ids": tokenizer.encode(text, add_special_tokens=False)})
    json.dump(
        {
            "model_class": type(model).__name__,
            "logprobs": [row_logprobs(model, row) for row in request.get("rows", [])],
            "encoded": encoded,
            "decoded": [
                [tokenizer.decode(i), tokenizer.decode(i, skip_special_tokens=True)] for i in encoded
            ],
            "chats": chats,
            "grads": (
                compare_grads(model, request["rows"], request["grad_dir"]) if "grad_dir" in request else None
            ),
        },
        sys.stdout,
    )


if __name__ == "__main__":
    main()
