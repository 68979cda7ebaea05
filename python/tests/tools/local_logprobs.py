"""Reads an exported local-backend model directory with plain transformers and prints what the
TypeScript side compares against its own model (src/backends/local/export-hf.test.ts).

    echo '{"dir": "...", "rows": [[...]], "texts": ["..."], "chats": [...]}' | python local_logprobs.py

Input (stdin, JSON):
    dir    the model directory (AutoModelForCausalLM + AutoTokenizer load it as is)
    rows   token-id rows; each is run alone (no padding), fp32 on the CPU
    texts  strings to encode (add_special_tokens=False) and decode back
    chats  {"messages", "tools", "add_generation_prompt"}: rendered with apply_chat_template
Output (stdout, JSON):
    logprobs  per row, log π(row[t] | row[<t]) for t ≥ 1 and 0 at t = 0 (the local model's
              Gpt.tokenLogprobs convention)
    encoded   per text, its ids;  decoded: decode(ids) and decode(ids, skip_special_tokens=True)
    chats     per chat, {"text", "ids"}: the template's text and its ids
"""

from __future__ import annotations

import json
import sys

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer


def row_logprobs(model, row: list[int]) -> list[float]:
    ids = torch.tensor([row], dtype=torch.long)
    with torch.no_grad():
        logits = model(input_ids=ids).logits[0].float()
    logp = torch.log_softmax(logits, dim=-1)
    picked = logp[:-1].gather(1, ids[0, 1:, None])[:, 0]
    return [0.0, *picked.tolist()]


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
                [tokenizer.decode(ids), tokenizer.decode(ids, skip_special_tokens=True)] for ids in encoded
            ],
            "chats": chats,
        },
        sys.stdout,
    )


if __name__ == "__main__":
    main()
