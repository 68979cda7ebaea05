import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { Command } from "commander";
import { saveCheckpoint } from "../backends/checkpoint/checkpoint.js";
import { Gpt, type GptConfig, gptParamLayout } from "../backends/local/model.js";
import { byteTokenizer } from "../backends/local/tokenizer.js";
import { tensorsFromFlat } from "../backends/local/weights.js";
import { registerServeCommand, runModelServe } from "./serve.js";

const CONFIG: GptConfig = {
  vocabSize: 264,
  dModel: 32,
  nLayers: 1,
  nHeads: 2,
  maxSeqLen: 64,
  mlpRatio: 4,
  positional: "rope",
  tiedHead: true,
};

/** Runs `fn` with console.log/warn captured. */
async function captured<T>(fn: () => Promise<T>): Promise<{ value: T; out: string }> {
  const lines: string[] = [];
  const { log, warn } = console;
  console.log = (...a: unknown[]) => lines.push(a.join(" "));
  console.warn = (...a: unknown[]) => lines.push(a.join(" "));
  try {
    return { value: await fn(), out: lines.join("\n") };
  } finally {
    console.log = log;
    console.warn = warn;
  }
}

test("rllm model serve: a saved checkpoint served on port 0 answers with its weights", async () => {
  const model = new Gpt(CONFIG, { seed: 5, initStd: 0.3 });
  const dir = join(mkdtempSync(join(tmpdir(), "rllm-serve-")), "step-3");
  await saveCheckpoint(dir, {
    tensors: tensorsFromFlat(gptParamLayout(CONFIG), model.paramData),
    config: { ...CONFIG },
    tokenizer: { ...byteTokenizer.describe() },
    weightVersion: 3,
  });
  const { value: server, out } = await captured(() =>
    runModelServe({ checkpoint: dir, port: 0, servedModelName: "ckpt-model" }),
  );
  try {
    const sampler = server;
    assert.match(
      out,
      /"ckpt-model" \(weight version 3, local backend, checkpoint .*step-3\) on http:\/\/127\.0\.0\.1:\d+\/v1/,
    );
    assert.equal(sampler.weightVersion, 3);
    const prompt = byteTokenizer.encode("Hi");
    const res = await fetch(`${sampler.baseURL}/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        model: "ckpt-model",
        prompt,
        max_tokens: 10,
        logprobs: 0,
        return_token_ids: true,
        seed: 1,
      }),
    });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("x-rllm-weight-version"), "3");
    const body = (await res.json()) as {
      choices: { token_ids: number[]; logprobs: { token_logprobs: number[] } }[];
    };
    const c = body.choices[0]!;
    // the logprobs are the checkpoint's model's
    const all = Int32Array.from([...prompt, ...c.token_ids]);
    const ref = model.tokenLogprobs(all, 1, all.length);
    c.token_ids.forEach((_, j) => {
      assert.ok(Math.abs(ref[prompt.length + j]! - c.logprobs.token_logprobs[j]!) < 1e-4);
    });
  } finally {
    await server.close();
  }
});

test("without a checkpoint it serves an untrained model and says so", async () => {
  const { value: server, out } = await captured(() => runModelServe({ port: 0, seed: 7 }));
  try {
    assert.match(out, /untrained/);
    assert.match(out, /"rllm-local" \(weight version 0/);
    const res = await fetch(`${server.baseURL}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ messages: [{ role: "user", content: "hi" }], max_tokens: 4 }),
    });
    assert.equal(res.status, 200);
  } finally {
    await server.close();
  }
});

test("a bad checkpoint path or flag is an error that says what to fix", async () => {
  const missing = join(tmpdir(), "rllm-no-such-checkpoint-dir");
  await assert.rejects(
    runModelServe({ checkpoint: missing, port: 0 }),
    /no checkpoint at .*does not exist/,
  );
  const notCkpt = mkdtempSync(join(tmpdir(), "rllm-not-ckpt-"));
  await assert.rejects(runModelServe({ checkpoint: notCkpt, port: 0 }), /not an rllm checkpoint/);

  const cmd = () => {
    const model = new Command("model").exitOverride().configureOutput({
      writeErr: () => {},
      writeOut: () => {},
    });
    registerServeCommand(model);
    model.commands.forEach((c) => {
      c.exitOverride().configureOutput({ writeErr: () => {}, writeOut: () => {} });
    });
    return model;
  };
  await assert.rejects(
    cmd().parseAsync(["serve", "--port", "0", "--checkpoint", missing], { from: "user" }),
    /no checkpoint at/,
  );
  await assert.rejects(
    cmd().parseAsync(["serve", "--checkpoint", missing], { from: "user" }),
    /required option '--port <port>' not specified/,
  );
  await assert.rejects(
    cmd().parseAsync(["serve", "--port", "http"], { from: "user" }),
    /--port must be an integer in \[0, 65535\]/,
  );
  const help = cmd()
    .commands.find((c) => c.name() === "serve")!
    .helpInformation();
  for (const flag of ["--backend", "--checkpoint", "--port", "--host", "--workers", "--seed"])
    assert.ok(help.includes(flag), flag);
  // the served name is vLLM's flag; --model is the torch backend's Hugging Face model
  assert.match(
    help.replace(/\s+/g, " "),
    /--served-model-name <name> the model name the server answers to/,
  );
  await assert.rejects(
    cmd().parseAsync(["serve", "--port", "0", "--model", "Qwen/Qwen3-0.6B"], { from: "user" }),
    /--model is a torch-backend option \(backend\.model\), and the backend is local \(the default\); pass --backend torch/,
  );
  await assert.rejects(
    cmd().parseAsync(["serve", "--port", "0", "--backend", "torch", "--workers", "2"], {
      from: "user",
    }),
    /--workers is a local-backend option/,
  );
  await assert.rejects(
    runModelServe({ backend: "torch", port: 0 }),
    /rllm model serve --backend torch needs --model DIR\|HUB_ID .* or --checkpoint DIR/,
  );
  await assert.rejects(
    runModelServe({ backend: "torch", port: 0, model: "m", checkpoint: notCkpt }),
    /--model and --checkpoint: a checkpoint names its own model/,
  );
});
