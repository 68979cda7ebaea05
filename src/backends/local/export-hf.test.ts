/**
 * The local GPT exported as a Hugging Face directory: (a) hf/serving.ts over it tokenizes and
 * renders chats as the local backend does; (b) plain transformers in Python (the torch worker's
 * stack) loads it and computes the local model's logprobs and gradients (relative 1e-4 in fp32;
 * measured ~4e-7 and ~1e-6), tokenizes as byteTokenizer and renders the chat template as
 * chat-format.ts does. (b) needs the worker's Python: RLLM_PYTHON, else
 * <repo>/python/.venv/bin/python; without it the test fails saying how to install it.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { loadServing } from "../../hf/serving.js";
import type { ChatMessage, Tool } from "../../types/index.js";
import { saveCheckpoint } from "../checkpoint/checkpoint.js";
import { renderChat } from "./chat-format.js";
import { CHAT_TEMPLATE, exportLocalAsHf, modelConfig } from "./export-hf.js";
import { Gpt, type GptConfig, gptParamLayout } from "./model.js";
import { byteTokenizer, EOS_TOKEN_IDS, VOCAB_SIZE } from "./tokenizer.js";
import { tensorsFromFlat } from "./weights.js";

const REPO = fileURLToPath(new URL("../../..", import.meta.url));
const tmp = mkdtempSync(join(tmpdir(), "rllm-export-hf-"));
after(() => rmSync(tmp, { recursive: true, force: true }));

function tinyConfig(positional: GptConfig["positional"]): GptConfig {
  return {
    vocabSize: VOCAB_SIZE,
    dModel: 32,
    nLayers: 2,
    nHeads: 4,
    maxSeqLen: 48,
    mlpRatio: 4,
    positional,
    tiedHead: true,
  };
}

/** A random model (init std 0.2: logprobs far from uniform) exported to a fresh directory. */
async function exported(positional: GptConfig["positional"]): Promise<{ gpt: Gpt; dir: string }> {
  const config = tinyConfig(positional);
  const gpt = new Gpt(config, { seed: 7, initStd: 0.2 });
  const dir = join(tmp, positional);
  await exportLocalAsHf({ config, params: gpt.paramData }, dir);
  return { gpt, dir };
}

const SAMPLE =
  "héllo 世界 🦀 <|im_start|>user\nx<|im_end|><think>a</think><tool_call>{}</tool_call><|endoftext|><|pad|> tail";

const add: Tool = {
  type: "function",
  function: {
    name: "add",
    description: "Add two numbers — exactly.",
    parameters: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } } },
  },
};

/** Conversations covering every branch of chatMLSegments; no tools (those render to the same ids). */
const CHATS: { messages: ChatMessage[]; addGenerationPrompt: boolean }[] = [
  {
    messages: [
      { role: "system", content: "You are terse." },
      { role: "user", content: "What is 2+2? 🤔" },
    ],
    addGenerationPrompt: true,
  },
  {
    messages: [
      { role: "user", content: "héllo 世界" },
      { role: "assistant", content: "4", reasoning_content: "2+2\nis 4" },
      { role: "developer", content: "be brief" },
      {
        role: "user",
        content: [
          { type: "text", text: "a" },
          { type: "text", text: "b" },
        ],
      },
    ],
    addGenerationPrompt: false,
  },
  {
    messages: [
      { role: "user", content: "add 1 and 2, negate 3" },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "c0", type: "function", function: { name: "add", arguments: '{"a": 1, "b": 2}' } },
          { id: "c1", type: "function", function: { name: "neg", arguments: "" } },
        ],
      },
      { role: "tool", tool_call_id: "c0", content: "3" },
      { role: "tool", tool_call_id: "c1", content: "-3" },
      {
        role: "assistant",
        content: "Done.",
        tool_calls: [
          { id: "c2", type: "function", function: { name: "add", arguments: '{"a": 0}' } },
        ],
      },
      { role: "tool", tool_call_id: "c2", content: "0" },
    ],
    addGenerationPrompt: true,
  },
];

/** With tools: the same text; the tools block's own <tool_call> tags are bytes locally. */
const TOOL_CHATS: { messages: ChatMessage[]; addGenerationPrompt: boolean; tools: Tool[] }[] = [
  { messages: [{ role: "user", content: "hi" }], addGenerationPrompt: true, tools: [add] },
  {
    messages: [
      { role: "system", content: "Use tools." },
      { role: "user", content: "hi" },
    ],
    addGenerationPrompt: true,
    tools: [add, { type: "function", function: { name: "neg", parameters: {} } }],
  },
];

test("config.json: GPT-NeoX for rope, GPT-2 for learned positions, the local model's constants", () => {
  const neox = modelConfig(tinyConfig("rope"));
  assert.deepEqual(neox["architectures"], ["GPTNeoXForCausalLM"]);
  assert.equal(neox["use_parallel_residual"], false);
  assert.equal(neox["rotary_pct"], 1.0);
  assert.equal(neox["rotary_emb_base"], 10000);
  assert.equal(neox["hidden_act"], "gelu_new");
  assert.equal(neox["layer_norm_eps"], 1e-5);
  assert.equal(neox["intermediate_size"], 128);
  assert.equal(neox["max_position_embeddings"], 48);
  assert.equal(neox["tie_word_embeddings"], true);
  assert.equal(neox["vocab_size"], 264);
  assert.deepEqual(neox["eos_token_id"], [...EOS_TOKEN_IDS]);
  const gpt2 = modelConfig(tinyConfig("learned"));
  assert.deepEqual(gpt2["architectures"], ["GPT2LMHeadModel"]);
  assert.equal(gpt2["activation_function"], "gelu_new");
  assert.equal(gpt2["n_positions"], 48);
});

test("a local checkpoint directory exports to the same files as its weights", async () => {
  const config = tinyConfig("rope");
  const gpt = new Gpt(config, { seed: 3, initStd: 0.2 });
  const ckpt = join(tmp, "ckpt");
  await saveCheckpoint(ckpt, {
    tensors: tensorsFromFlat(gptParamLayout(config), gpt.paramData),
    config: { ...config },
    tokenizer: { ...byteTokenizer.describe() },
  });
  await exportLocalAsHf(ckpt, join(tmp, "from-ckpt"));
  await exportLocalAsHf({ config, params: gpt.paramData }, join(tmp, "from-weights"));
  for (const f of ["model.safetensors", "config.json", "tokenizer.json", "tokenizer_config.json"])
    assert.ok(
      readFileSync(join(tmp, "from-ckpt", f)).equals(readFileSync(join(tmp, "from-weights", f))),
      f,
    );
  await assert.rejects(exportLocalAsHf(join(tmp, "nothing-here"), join(tmp, "x")));
});

test("params that do not fit the config are refused", async () => {
  const config = tinyConfig("rope");
  await assert.rejects(
    exportLocalAsHf({ config, params: new Float32Array(10) }, join(tmp, "bad")),
    /params hold 10 floats, the config's layout needs \d+/,
  );
});

test("loadServing over the export tokenizes, decodes and renders as the local backend", async () => {
  const { dir } = await exported("rope");
  const { tokenizer, renderChat: render, eosTokenIds } = await loadServing(dir);
  assert.deepEqual(eosTokenIds, [...EOS_TOKEN_IDS]);
  assert.equal(tokenizer.vocabSize, VOCAB_SIZE);
  const ids = tokenizer.encode(SAMPLE);
  assert.deepEqual(ids, byteTokenizer.encode(SAMPLE));
  assert.equal(tokenizer.decode(ids), SAMPLE);
  assert.equal(
    tokenizer.decode(ids, { skipSpecialTokens: true }),
    byteTokenizer.decode(ids, { skipSpecialTokens: true }),
  );
  for (let id = 0; id < VOCAB_SIZE; id++) {
    assert.equal(tokenizer.tokenText(id), byteTokenizer.tokenText(id), `tokenText(${id})`);
    assert.deepEqual(tokenizer.tokenBytes(id), byteTokenizer.tokenBytes(id), `tokenBytes(${id})`);
  }
  const stream = tokenizer.decodeStream();
  const pieces = ids.map((id) => stream.push([id]));
  pieces.push(stream.flush());
  assert.ok(pieces.every((p) => !p.includes("\ufffd")));
  assert.equal(pieces.join(""), SAMPLE);
  for (const c of CHATS) {
    const options = { addGenerationPrompt: c.addGenerationPrompt };
    assert.deepEqual(render(c.messages, options), renderChat(c.messages, options));
  }
  for (const c of TOOL_CHATS) {
    const options = { addGenerationPrompt: c.addGenerationPrompt, tools: c.tools };
    assert.equal(
      tokenizer.decode(render(c.messages, options)),
      byteTokenizer.decode(renderChat(c.messages, options)),
    );
  }
  const config = JSON.parse(readFileSync(join(dir, "tokenizer_config.json"), "utf8"));
  assert.equal(config.chat_template, CHAT_TEMPLATE);
  assert.equal(config.eos_token, "<|im_end|>");
});

function python(): string {
  const py = process.env["RLLM_PYTHON"] ?? join(REPO, "python/.venv/bin/python");
  assert.ok(
    existsSync(py),
    `no Python for the torch worker at ${py}: run \`bash python/install.sh\` (or set RLLM_PYTHON to a Python with torch and transformers)`,
  );
  return py;
}

interface PythonReport {
  model_class: string;
  logprobs: number[][];
  encoded: number[][];
  decoded: [string, string][];
  chats: { text: string; ids: number[] }[];
  grads: Record<string, { max_abs_diff: number; max_abs: number }>;
}

function runTransformers(request: Record<string, unknown>): PythonReport {
  const script = join(REPO, "python/tests/tools/local_logprobs.py");
  const r = spawnSync(python(), [script], {
    input: JSON.stringify(request),
    encoding: "utf8",
    timeout: 120_000,
    maxBuffer: 64 << 20,
  });
  assert.equal(
    r.status,
    0,
    `${script} failed (${r.error?.message ?? `exit ${r.status}`}):\n${r.stderr}`,
  );
  return JSON.parse(r.stdout) as PythonReport;
}

/** Rows of different lengths, one the full context, with specials and multibyte bytes. */
function rows(maxSeqLen: number): number[][] {
  const chat = renderChat(CHATS[0]!.messages, { addGenerationPrompt: true }).slice(0, maxSeqLen);
  const long = Array.from({ length: maxSeqLen }, (_, i) => (i * 37 + 11) % VOCAB_SIZE);
  return [chat, byteTokenizer.encode("🦀 ok<|im_end|>"), long, [65, 66]];
}

for (const positional of ["rope", "learned"] as const) {
  test(`cross-implementation (${positional}): transformers computes the local model's logprobs and gradients`, async () => {
    const { gpt, dir } = await exported(positional);
    const batch = rows(gpt.config.maxSeqLen);
    const texts = [SAMPLE, "plain ascii", "日本語 ✓"];
    // The local gradient of Σ log π over the rows, written in the HF layout by the same export.
    gpt.zeroGrad();
    for (const row of batch) {
      gpt.forward(Int32Array.from(row), 1, row.length, { needCache: true });
      gpt.backward(Float32Array.from(row, (_, t) => (t === 0 ? 0 : 1)));
    }
    const gradDir = join(tmp, `${positional}-grad`);
    await exportLocalAsHf({ config: gpt.config, params: gpt.gradData.slice() }, gradDir);
    const report = runTransformers({
      dir,
      grad_dir: gradDir,
      rows: batch,
      texts,
      chats: [
        ...CHATS.map((c) => ({
          messages: c.messages,
          add_generation_prompt: c.addGenerationPrompt,
        })),
        ...TOOL_CHATS.map((c) => ({
          messages: c.messages,
          tools: c.tools,
          add_generation_prompt: c.addGenerationPrompt,
        })),
      ],
    });
    assert.equal(
      report.model_class,
      positional === "rope" ? "GPTNeoXForCausalLM" : "GPT2LMHeadModel",
    );
    batch.forEach((row, r) => {
      const local = gpt.tokenLogprobs(Int32Array.from(row), 1, row.length);
      const theirs = report.logprobs[r]!;
      assert.equal(theirs.length, row.length);
      for (let t = 0; t < row.length; t++) {
        const a = local[t]!;
        const b = theirs[t]!;
        // relative 1e-4; below magnitude 1, absolute 1e-4
        const rel = Math.abs(a - b) / Math.max(1, Math.abs(a), Math.abs(b));
        assert.ok(rel <= 1e-4, `row ${r} position ${t}: local ${a}, transformers ${b}`);
      }
    });
    const grads = Object.entries(report.grads);
    assert.equal(grads.length, gpt.params.length, "one gradient per parameter tensor");
    for (const [name, g] of grads)
      assert.ok(
        g.max_abs_diff <= 1e-4 * Math.max(1, g.max_abs),
        `gradient of ${name}: max |torch − local| ${g.max_abs_diff}, max |local| ${g.max_abs}`,
      );
    texts.forEach((text, i) => {
      assert.deepEqual(
        report.encoded[i],
        byteTokenizer.encode(text),
        `AutoTokenizer.encode(${text})`,
      );
      assert.equal(report.decoded[i]![0], text);
      assert.equal(
        report.decoded[i]![1],
        byteTokenizer.decode(byteTokenizer.encode(text), { skipSpecialTokens: true }),
      );
    });
    CHATS.forEach((c, i) => {
      const want = renderChat(c.messages, { addGenerationPrompt: c.addGenerationPrompt });
      assert.deepEqual(report.chats[i]!.ids, want, `apply_chat_template, chat ${i}`);
    });
    TOOL_CHATS.forEach((c, i) => {
      const want = renderChat(c.messages, {
        addGenerationPrompt: c.addGenerationPrompt,
        tools: c.tools,
      });
      assert.equal(
        report.chats[CHATS.length + i]!.text,
        byteTokenizer.decode(want),
        `tools chat ${i}`,
      );
    });
  });
}
