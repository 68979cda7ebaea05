/**
 * The torch backend against the real worker (python/, `rllm_worker`) on tiny random Qwen3 models
 * written with save_pretrained (python/tests/tiny_models.py): training calls, checkpoints and the
 * sampler through the HTTP front end. The interpreter is the backend's own choice (RLLM_PYTHON,
 * else python/.venv — `bash python/install.sh`); one without torch fails these tests with the
 * install command, never skips them.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, describe, test } from "node:test";
import OpenAI from "openai";
import { LossSpecSchema, referenceLoss } from "../../algorithms/loss.js";
import { post } from "../../testing/harness.js";
import { writeTinyModels } from "../../testing/tiny-models.js";
import { resolveCheckpoint } from "../../trainer/checkpoint-path.js";
import type { Datum } from "../../types/index.js";
import { TorchBackend } from "./backend.js";
import { readTorchManifest } from "./checkpoint.js";
import { torchBackend } from "./index.js";
import type { WorkerProcess } from "./worker.js";

const tmp = mkdtempSync(join(tmpdir(), "rllm-torch-backend-"));
after(() => rmSync(tmp, { recursive: true, force: true }));

/**
 * Two tiny random Qwen3s, written by one Python process: `full` (vocab 512) for training, `lora`
 * (Qwen3's vocab, with Qwen3's tokenizer files and chat template) for sampling.
 */
function tinyModels(): { full: string; lora: string } {
  const [full, lora] = writeTinyModels([
    { dir: join(tmp, "full"), vocabSize: 512 },
    { dir: join(tmp, "lora"), vocabSize: 151936, tokenizer: "qwen3" },
  ]);
  return { full: full!, lora: lora! };
}
let made: { full: string; lora: string } | undefined;
const models = () => {
  made ??= tinyModels();
  return made;
};

/** Rows of random tokens: the first `prompt` tokens masked out, advantages ±1. */
function datums(rows: number[], vocab: number, seed: number): Datum[] {
  let s = seed;
  const rand = () => {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    return s / 2 ** 31;
  };
  return rows.map((n, i) => {
    const tokens = Array.from({ length: n }, () => Math.floor(rand() * vocab));
    return {
      tokens,
      lossMask: tokens.map((_, t) => (t < 2 ? 0 : 1)),
      advantages: tokens.map(() => (i % 2 ? -1 : 1)),
      samplingLogprobs: tokens.map(() => -5),
    } as Datum;
  });
}

const close = (a: number, b: number, tol: number) => Math.abs(a - b) <= tol * (1 + Math.abs(b));

describe("training: a full fine-tune of a tiny Qwen3", () => {
  let model: string;
  let backend: TorchBackend;
  before(async () => {
    model = models().full;
    backend = await TorchBackend.create({ model, device: "cpu", seed: 1 });
  });
  after(() => backend?.close());

  test("init reports the model; bad datums are refused naming the datum", async () => {
    assert.equal(backend.info.vocabSize, 512);
    assert.equal(backend.info.device, "cpu");
    const [d] = datums([6], 512, 1);
    const loss = LossSpecSchema.parse({ kind: "importance_sampling" });
    await assert.rejects(
      backend.forwardBackward([{ ...d!, tokens: [...d!.tokens.slice(0, 5), 600] }], loss),
      /datum 0 has token id 600, outside the model's vocabulary \[0, 512\)/,
    );
    await assert.rejects(
      backend.forwardBackward([{ ...d!, lossMask: [1] }], loss),
      /datum 0: lossMask has 1 entries but tokens has 6; they must align/,
    );
    await assert.rejects(
      backend.forwardBackward([d!], loss, { proximal: [] }),
      /proximal has 0 rows for 1 datums/,
    );
    await assert.rejects(
      backend.computeLogprobs([{ tokens: new Array(backend.info.maxSeqLen + 1).fill(1) }]),
      /datum 0 has \d+ tokens; the model's context is/,
    );
  });

  test("forwardBackward agrees with referenceLoss; a step changes the weights; save → load restores them", async () => {
    const batch = datums([7, 5, 9], 512, 2);
    const logprobs = await backend.computeLogprobs(batch);
    assert.deepEqual(
      logprobs.map((r) => r.length),
      [7, 5, 9],
    );
    assert.ok(logprobs.every((r) => r[0] === 0 && r.slice(1).every((x) => x < 0)));
    for (const d of batch) d.samplingLogprobs = logprobs[batch.indexOf(d)]!.map((x) => x - 0.1);
    const spec = LossSpecSchema.parse({ kind: "ppo", aggregation: "seq-mean-token-mean" });
    const ref = referenceLoss(
      spec,
      batch.map((d, i) => ({
        logprobs: logprobs[i]!.map((x, t) => (t === 0 ? 0 : x)),
        samplingLogprobs: d.samplingLogprobs,
        advantages: d.advantages,
        mask: d.lossMask,
      })),
    );
    const r = await backend.forwardBackward(batch, spec);
    assert.ok(close(r.loss, ref.loss, 1e-4), `loss ${r.loss} vs reference ${ref.loss}`);
    assert.ok(close(r.metrics["logprob_diff/max_abs"]!, 0.1, 1e-4));
    assert.equal(r.metrics["loss/rows"], 3);
    await assert.rejects(backend.save(join(tmp, "too-early")), /call optimStep\(\) first/);
    const o = await backend.optimStep({ lr: 1e-2 });
    assert.equal(o.step, 1);
    assert.ok(o.gradNorm > 0);
    const stepped = await backend.computeLogprobs(batch);
    assert.notDeepEqual(stepped, logprobs);

    assert.deepEqual(await backend.saveForSampler(), { weightVersion: 1 });
    const ckpt = join(tmp, "run", "checkpoints", "step-1", "backend");
    await backend.save(ckpt);
    assert.equal(resolveCheckpoint(dirname(ckpt)), ckpt);
    // train on, then load the checkpoint back: the weights, the step and the version return
    await backend.forwardBackward(batch, spec);
    await backend.optimStep({ lr: 1e-2 });
    assert.notDeepEqual(await backend.computeLogprobs(batch), stepped);
    await backend.load(ckpt);
    assert.equal(backend.step, 1);
    assert.equal(backend.weightVersion, 1);
    assert.deepEqual(await backend.computeLogprobs(batch), stepped);
    // a backend created from the checkpoint starts where it stood
    const again = await TorchBackend.create({ checkpoint: ckpt, device: "cpu" });
    try {
      assert.equal(again.step, 1);
      assert.equal(again.weightVersion, 1);
      assert.deepEqual(await again.computeLogprobs(batch), stepped);
      // resuming (create from the latest step, then load it) keeps the run's KL reference: the
      // model it started from, not the step it resumed at
      await again.load(ckpt);
      const kl = LossSpecSchema.parse({ kind: "importance_sampling", kl: { coef: 0.5 } });
      const a = await again.forwardBackward(batch, kl);
      const b = await backend.forwardBackward(batch, kl);
      assert.ok(a.metrics["loss/kl_mean"]! > 0);
      assert.equal(a.metrics["loss/kl_mean"], b.metrics["loss/kl_mean"]);
      assert.equal(a.loss, b.loss);
      await again.optimStep({ lr: 0 });
      const resaved = join(tmp, "resaved");
      await again.save(resaved);
      assert.equal((await readTorchManifest(resaved)).reference.model, model);
    } finally {
      await again.close();
    }
    await assert.rejects(
      TorchBackend.create({ checkpoint: ckpt, lora: { rank: 2 }, device: "cpu" }),
      /backend\.lora .* differs from checkpoint .*full fine-tuning/,
    );
  });
});

describe("faults", () => {
  test("a bad model directory is an init error naming it", async () => {
    const bad = join(tmp, "not-a-model");
    mkdirSync(bad, { recursive: true });
    writeFileSync(join(bad, "config.json"), "{}");
    await assert.rejects(
      TorchBackend.create({ model: bad, device: "cpu" }),
      (e: Error) =>
        e.message.startsWith(`init: ValueError: Unrecognized model in ${bad}`) &&
        e.message.includes("Traceback (most recent call last)"),
    );
  });

  test("a worker killed mid-call rejects the call and every later one; the checkpoint stays", async () => {
    const backend = await TorchBackend.create({ model: models().full, device: "cpu" });
    const ckpt = join(tmp, "before-kill");
    await backend.save(ckpt);
    const pid = (backend as unknown as { trainer: WorkerProcess }).trainer.pid!;
    const call = backend.computeLogprobs(datums([200, 200, 200, 200], 512, 5));
    process.kill(-pid, "SIGKILL");
    await assert.rejects(call, /compute_logprobs: the torch trainer worker was killed by SIGKILL/);
    await assert.rejects(backend.optimStep({ lr: 1 }), /was killed by SIGKILL/);
    await backend.close();
    assert.equal((await readTorchManifest(ckpt)).step, 0);
  });
});

describe("sampling: a LoRA fine-tune of a tiny Qwen3 with Qwen3's tokenizer", () => {
  let model: string;
  let backend: TorchBackend;
  let client: OpenAI;
  let baseURL: string;
  before(async () => {
    model = models().lora;
    backend = await TorchBackend.create({
      model,
      device: "cpu",
      lora: { rank: 4 },
      sampler: { lanes: 2 },
    });
    const s = await backend.sampler();
    assert.equal(s.kind, "vllm");
    baseURL = s.baseURL;
    client = new OpenAI({ baseURL, apiKey: "x" });
  });
  after(() => backend?.close());

  const chat = { model: "rllm-torch", messages: [{ role: "user", content: "hi" }] };
  type Body = {
    prompt_token_ids: number[];
    choices: {
      message: { content: string };
      token_ids: number[];
      logprobs: { content: { logprob: number }[] };
      finish_reason: string;
      stop_reason: unknown;
    }[];
  };

  test("token ids and logprobs come back, and the logprobs are the trainer's", async () => {
    const r = await post<Body>(`${baseURL}/chat/completions`, {
      ...chat,
      max_tokens: 8,
      seed: 3,
      logprobs: true,
      return_token_ids: true,
    });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.headers.get("x-rllm-weight-version"), "0");
    const c = r.body.choices[0]!;
    assert.ok(c.token_ids.length > 0);
    const sampled = c.logprobs.content.map((t) => t.logprob);
    assert.equal(sampled.length, c.token_ids.length);
    const [trainer] = await backend.computeLogprobs([
      { tokens: [...r.body.prompt_token_ids, ...c.token_ids] },
    ]);
    const tail = trainer!.slice(r.body.prompt_token_ids.length);
    const diff = Math.max(...tail.map((x, i) => Math.abs(x - sampled[i]!)));
    assert.ok(diff <= 1e-4, `sampler vs trainer logprobs differ by ${diff}`);
  });

  test("seeded requests repeat; n > 1 samples differ; a stop string; streaming", async () => {
    const req = { ...chat, max_tokens: 12, seed: 7, n: 3, return_token_ids: true };
    const a = await post<Body>(`${baseURL}/chat/completions`, req);
    const b = await post<Body>(`${baseURL}/chat/completions`, req);
    assert.equal(a.body.choices.length, 3);
    assert.deepEqual(
      b.body.choices.map((c) => c.token_ids),
      a.body.choices.map((c) => c.token_ids),
    );
    const ids = a.body.choices.map((c) => JSON.stringify(c.token_ids));
    assert.ok(new Set(ids).size > 1, "each sample draws from its own seed");
    // stop at the second character the first sample printed
    const text = (
      await client.completions.create({
        model: "rllm-torch",
        prompt: "hello",
        max_tokens: 12,
        seed: 1,
      })
    ).choices[0]!.text;
    const stop = text.slice(2, 4);
    assert.ok(stop.length > 0, `sampled text ${JSON.stringify(text)}`);
    const stopped = await client.completions.create({
      model: "rllm-torch",
      prompt: "hello",
      max_tokens: 12,
      seed: 1,
      stop: [stop],
    });
    const c = stopped.choices[0] as unknown as {
      finish_reason: string;
      stop_reason: unknown;
      text: string;
    };
    assert.equal(c.finish_reason, "stop");
    assert.equal(c.stop_reason, stop);
    assert.ok(text.startsWith(c.text) && c.text.length < text.length);
    let streamed = "";
    for await (const chunk of await client.completions.create({
      model: "rllm-torch",
      prompt: "hello",
      max_tokens: 12,
      seed: 1,
      stream: true,
    }))
      streamed += chunk.choices[0]?.text ?? "";
    assert.equal(streamed, text);
  });

  test("saveForSampler after a step advances the weight-version header; the checkpoint serves", async () => {
    const batch = datums([6, 8], 1000, 3);
    await backend.forwardBackward(batch, LossSpecSchema.parse({ kind: "importance_sampling" }));
    await backend.optimStep({ lr: 0.5 });
    assert.deepEqual(await backend.saveForSampler(), { weightVersion: 1 });
    const r = await post<Body>(`${baseURL}/chat/completions`, {
      ...chat,
      max_tokens: 4,
      seed: 3,
      logprobs: true,
      return_token_ids: true,
    });
    assert.equal(r.headers.get("x-rllm-weight-version"), "1");
    const c = r.body.choices[0]!;
    const [trainer] = await backend.computeLogprobs([
      { tokens: [...r.body.prompt_token_ids, ...c.token_ids] },
    ]);
    const tail = trainer!.slice(r.body.prompt_token_ids.length);
    const diff = Math.max(...tail.map((x, i) => Math.abs(x - c.logprobs.content[i]!.logprob)));
    assert.ok(diff <= 1e-4, `the sampler serves the trainer's new weights (differ by ${diff})`);

    const ckpt = join(tmp, "lora-ckpt");
    await backend.save(ckpt);
    assert.ok(existsSync(join(ckpt, "adapter_config.json")));
    // load() while the sampler runs: it serves the loaded weights, as the checkpoint's version
    await backend.load(ckpt);
    const reloaded = await post<Body>(`${baseURL}/chat/completions`, {
      ...chat,
      max_tokens: 4,
      seed: 3,
      return_token_ids: true,
    });
    assert.equal(reloaded.headers.get("x-rllm-weight-version"), "1");
    assert.deepEqual(reloaded.body.choices[0]!.token_ids, c.token_ids);
    const served = await torchBackend.serve!(
      ckpt,
      torchBackend.configSchema.parse({ name: "torch", device: "cpu", sampler: { port: 0 } }),
      { log: () => {} },
    );
    try {
      assert.equal(served.weightVersion, 1);
      const s = await post<Body>(`${served.baseURL}/chat/completions`, {
        ...chat,
        max_tokens: 4,
        seed: 3,
        return_token_ids: true,
      });
      assert.equal(s.headers.get("x-rllm-weight-version"), "1");
      assert.deepEqual(
        s.body.choices[0]!.token_ids,
        c.token_ids,
        "the checkpoint samples as the live sampler did",
      );
    } finally {
      await served.close();
    }
  });
});
