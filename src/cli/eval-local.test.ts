import assert from "node:assert/strict";
import { cpSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { type AddressInfo, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { LocalBackend } from "../backends/local/backend.js";
import { loadConfig } from "../config/index.js";
import type { EvalResults } from "../engine/index.js";
import { finalResponse } from "../sdk/index.js";
import { TRAINER_STATE_FORMAT, type TrainerState, writeCheckpoint } from "../trainer/state.js";
import type { Episode } from "../types/index.js";
import { evalFlagsToConfig, runEvalCommand } from "./eval.js";

describe("rllm eval --backend local --checkpoint", () => {
  const dir = mkdtempSync(join(tmpdir(), "rllm-eval-local-"));
  const ckpt = join(dir, "ckpt");
  before(async () => {
    const b = await LocalBackend.create({
      model: { dModel: 32, nLayers: 1, nHeads: 2, maxSeqLen: 96 },
      trainWorkers: 1,
    });
    await b.saveForSampler();
    await b.save(ckpt);
    await b.close();
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it("serves the checkpoint in process and evaluates the countdown recipe's held-out tasks", async () => {
    const output = join(dir, "out");
    const code = await runEvalCommand(
      "countdown",
      loadConfig({
        env: {},
        flags: evalFlagsToConfig({
          backend: "local",
          checkpoint: ckpt,
          maxExamples: 4,
          attempts: 2,
          output,
        }),
      }),
    );
    assert.equal(code, 0);
    const r = JSON.parse(readFileSync(join(output, "results.json"), "utf8")) as EvalResults;
    assert.equal(r.total, 8);
    assert.equal(r.infraFailed, 0);
    assert.equal(r.agent, "countdown-local");
    assert.ok(r.items.every((i) => i.taskId.startsWith("countdown/test/")));
    assert.deepEqual(r.config.samplingParams, { max_tokens: 40 });
    assert.equal(typeof r.passAtK["2"], "number");
  });

  it("--checkpoint also takes a training step's directory and a run directory", async () => {
    const run = join(dir, "run");
    const state: TrainerState = {
      format: TRAINER_STATE_FORMAT,
      version: 1,
      step: 3,
      weightVersion: 1,
      loader: { frontier: 0, beyond: [] },
      seed: 0,
      elapsedSeconds: 0,
      savedAt: new Date(0).toISOString(),
    };
    await writeCheckpoint(run, state, async (d) => cpSync(ckpt, d, { recursive: true }));
    const served = join(run, "checkpoints", "step-3", "backend");
    for (const [name, checkpoint] of [
      ["step", join(run, "checkpoints", "step-3")],
      ["run", run],
    ] as const) {
      const output = join(dir, `from-${name}`);
      const flags = { backend: "local", checkpoint, maxExamples: 2, output };
      const config = loadConfig({ env: {}, flags: evalFlagsToConfig(flags) });
      assert.equal(await runEvalCommand("countdown", config), 0, name);
      const r = JSON.parse(readFileSync(join(output, "results.json"), "utf8")) as EvalResults;
      assert.equal(r.total, 2, name);
      assert.equal(r.config.checkpoint, served, name);
    }
    // without --checkpoint, the backend section's checkpoint (a config file's, RLLM_BACKEND_CHECKPOINT)
    const output = join(dir, "from-backend-section");
    const config = loadConfig({
      env: { RLLM_BACKEND_CHECKPOINT: run },
      flags: evalFlagsToConfig({ backend: "local", maxExamples: 2, output }),
    });
    assert.equal(await runEvalCommand("countdown", config), 0);
    const r = JSON.parse(readFileSync(join(output, "results.json"), "utf8")) as EvalResults;
    assert.equal(r.config.checkpoint, served);
  });

  it("--seed: a rerun gives the same answer at every (task, attempt); unseeded runs do not", async () => {
    const answers = async (name: string, seed?: number) => {
      const output = join(dir, name);
      const flags = { backend: "local", checkpoint: ckpt, maxExamples: 4, attempts: 3, output };
      const config = loadConfig({ env: {}, flags: evalFlagsToConfig({ ...flags, seed }) });
      assert.equal(await runEvalCommand("countdown", config), 0);
      const r = JSON.parse(readFileSync(join(output, "results.json"), "utf8")) as EvalResults;
      assert.equal(r.config.seed, seed ?? null, "results.json records the seed");
      const eps = join(output, "episodes");
      return readdirSync(eps)
        .sort()
        .map((f) => finalResponse(JSON.parse(readFileSync(join(eps, f), "utf8")) as Episode));
    };
    const a = await answers("seeded-a", 5);
    assert.equal(a.length, 12);
    assert.ok(new Set(a).size > 4, "the attempts at a task differ from each other");
    assert.deepEqual(await answers("seeded-b", 5), a);
    assert.notDeepEqual(await answers("seeded-c", 6), a);
    assert.notDeepEqual(await answers("unseeded"), a);
    await assert.rejects(
      runEvalCommand(
        "countdown",
        loadConfig({
          env: {},
          flags: evalFlagsToConfig({ checkpoint: ckpt, seed: 1, samplingParams: "seed=2" }),
        }),
      ),
      /--seed seeds every \(task, attempt\) apart/,
    );
  });

  it("serves on backend.sampler.host/port when the config sets them", async () => {
    const port = await new Promise<number>((res) => {
      const srv = createServer().listen(0, "127.0.0.1", () => {
        const p = (srv.address() as AddressInfo).port;
        srv.close(() => res(p));
      });
    });
    const output = join(dir, "sampler-port");
    const config = loadConfig({
      env: {},
      flags: {
        ...evalFlagsToConfig({ checkpoint: ckpt, maxExamples: 1, attempts: 1, output }),
        backend: { sampler: { host: "127.0.0.1", port } },
      },
    });
    assert.equal(await runEvalCommand("countdown", config), 0);
    const r = JSON.parse(readFileSync(join(output, "results.json"), "utf8")) as EvalResults;
    assert.equal(r.config.baseURL, `http://127.0.0.1:${port}/v1`);
  });

  it("RLLM_LOG_LEVEL=warn drops the log lines and RLLM_NO_PROGRESS the progress; the summary stays", async () => {
    const run = async (name: string, env: Record<string, string>) => {
      const saved = { ...process.env };
      Object.assign(process.env, env);
      const out: string[] = [];
      const { write } = process.stderr;
      const { error, log } = console;
      process.stderr.write = ((chunk: string | Uint8Array) => {
        out.push(String(chunk));
        return true;
      }) as typeof process.stderr.write;
      console.error = (...a: unknown[]) => void out.push(`${a.join(" ")}\n`);
      console.log = (...a: unknown[]) => void out.push(`stdout: ${a.join(" ")}\n`);
      try {
        const output = join(dir, name);
        const flags = evalFlagsToConfig({ checkpoint: ckpt, maxExamples: 2, attempts: 1, output });
        assert.equal(await runEvalCommand("countdown", loadConfig({ env: {}, flags })), 0);
      } finally {
        process.stderr.write = write;
        Object.assign(console, { error, log });
        for (const k of Object.keys(env)) delete process.env[k];
        Object.assign(process.env, saved);
      }
      return out.join("");
    };
    const loud = await run("log-info", {});
    assert.match(loud, /rllm eval: serving/);
    assert.match(loud, /rllm eval countdown\/test: 2 tasks/);
    assert.match(loud, /rollouts: 2 to run/);
    const quiet = await run("log-warn", { RLLM_LOG_LEVEL: "warn", RLLM_NO_PROGRESS: "1" });
    assert.doesNotMatch(quiet, /rllm eval|rollouts: |\/2 rollouts/);
    assert.match(quiet, /stdout: .*countdown/, "the results are output, not log lines");
  });

  it("refuses --backend local without a checkpoint off the recipe, and with --base-url", async () => {
    await assert.rejects(
      runEvalCommand(
        "gsm8k",
        loadConfig({ env: {}, flags: evalFlagsToConfig({ backend: "local" }) }),
      ),
      /--backend local needs --checkpoint DIR/,
    );
    await assert.rejects(
      runEvalCommand(
        "countdown",
        loadConfig({
          env: {},
          flags: evalFlagsToConfig({
            backend: "local",
            checkpoint: ckpt,
            baseUrl: "http://x:1/v1",
          }),
        }),
      ),
      /drop --base-url/,
    );
    await assert.rejects(
      runEvalCommand(
        "countdown",
        loadConfig({ env: {}, flags: evalFlagsToConfig({ checkpoint: join(dir, "nope") }) }),
      ),
      /no checkpoint at .*nope/,
    );
  });
});
