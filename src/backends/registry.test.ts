import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { z } from "zod";
import { loadConfig } from "../config/index.js";
import {
  BACKENDS,
  BackendConfigSchema,
  backendConfigSchema,
  backendDefinition,
  backendNames,
} from "./registry.js";
import { type BackendDefinition, checkLossSupported } from "./spi.js";

/** A backend registered only here, through the same API as the real ones. */
const FakeSchema = z.strictObject({
  name: z.literal("fake"),
  checkpoint: z.string().optional(),
  apiKey: z.string().optional(),
});
const fake: BackendDefinition<typeof FakeSchema> = {
  name: "fake",
  configSchema: FakeSchema,
  capabilities: {
    lossKinds: ["importance_sampling"],
    kl: false,
    entropyBonus: false,
    tisCap: false,
    aggregations: ["token-mean"],
  },
  create: () => Promise.reject(new Error("not in this test")),
};

function issues(r: { success: boolean; error?: z.ZodError }): string {
  assert.equal(r.success, false);
  return r.error!.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
}

test("the registry lists the local backend first: the default", () => {
  assert.equal(backendNames()[0], "local");
  assert.deepEqual(
    backendNames(),
    BACKENDS.map((b) => b.name),
  );
  assert.equal(backendDefinition("local").name, "local");
  assert.throws(
    () => backendDefinition("tinker"),
    /unknown backend "tinker"; the backends are local, torch/,
  );
  const c = BackendConfigSchema.parse({ trainWorkers: 1 });
  assert.equal(c.name, "local", "name defaults to the first backend");
  assert.equal(c.trainWorkers, 1);
});

test("an unknown backend name is an error naming it and the backends there are", () => {
  const msg = issues(BackendConfigSchema.safeParse({ name: "tinker" }));
  assert.match(msg, /unknown backend "tinker"; the backends are local, torch/);
  assert.throws(
    () => loadConfig({ env: {}, flags: { backend: { name: "tinker" } } }),
    /backend\.name: unknown backend "tinker"; the backends are local, torch/,
  );
});

test("the torch section parses with its defaults; each backend refuses the other's knobs", () => {
  const c = BackendConfigSchema.parse({ name: "torch", model: "Qwen/Qwen3-0.6B" });
  assert.deepEqual(c, {
    name: "torch",
    model: "Qwen/Qwen3-0.6B",
    device: "auto",
    dtype: "auto",
    gradientCheckpointing: false,
    microBatchTokens: 2048,
    logprobChunkTokens: 1024,
    seed: 0,
    nproc: 1,
    nnodes: 1,
    timeouts: { startupS: 600, callS: 1800, collectiveS: 600 },
    sampler: {
      engine: "torch",
      maxBatch: 64,
      batchWindowMs: 2,
      host: "127.0.0.1",
      port: 0,
      modelName: "rllm-torch",
      lanes: 4,
    },
  });
  const lora = BackendConfigSchema.parse({ name: "torch", model: "m", lora: { rank: 8 } });
  assert.deepEqual(lora.name === "torch" && lora.lora, {
    rank: 8,
    alpha: 16,
    dropout: 0,
    targetModules: "all-linear",
  });
  assert.match(
    issues(BackendConfigSchema.safeParse({ name: "torch", model: "m", trainWorkers: 2 })),
    /Unrecognized key: "trainWorkers"/,
  );
  assert.match(
    issues(BackendConfigSchema.safeParse({ name: "local", lora: { rank: 8 } })),
    /Unrecognized key: "lora"/,
  );
  assert.match(
    issues(BackendConfigSchema.safeParse({ name: "torch", lora: { rank: 0 } })),
    /lora\.rank/,
  );
  assert.match(
    issues(BackendConfigSchema.safeParse({ name: "torch", sampler: { workers: 2 } })),
    /Unrecognized key: "workers"/,
  );
  assert.match(issues(BackendConfigSchema.safeParse({ name: "torch", device: "tpu" })), /device/);
  assert.throws(
    () => loadConfig({ env: {}, flags: { backend: { name: "torch", kernel: "js" } } }),
    /unknown config key "backend\.kernel"/,
  );
  assert.equal(backendDefinition("torch").capabilities.lossKinds.length, 4);
});

test("a backend registered through the same API is accepted; another backend's knob is refused", () => {
  const schema = backendConfigSchema([...BACKENDS, fake]);
  assert.deepEqual(schema.parse({ name: "fake", apiKey: "k" }), { name: "fake", apiKey: "k" });
  assert.equal(schema.parse({}).name, "local");
  // the local backend's knob on the fake one, and the fake one's on local
  assert.match(issues(schema.safeParse({ name: "fake", trainWorkers: 1 })), /trainWorkers/);
  assert.match(issues(schema.safeParse({ name: "local", apiKey: "k" })), /apiKey/);
  assert.match(
    issues(schema.safeParse({ name: "tinker" })),
    /unknown backend "tinker"; the backends are local, torch, fake/,
  );
  assert.throws(() => backendConfigSchema([fake, fake]), /backend "fake" is registered twice/);
  // through the config loader, the knob is named with its path
  assert.throws(
    () => loadConfig({ env: {}, flags: { backend: { trainWorkers: 1, apiKey: "k" } } }),
    /unknown config key "backend\.apiKey"/,
  );
});

test("a created backend carries its definition's capabilities; the loss is checked against them", async () => {
  const local = backendDefinition("local");
  const backend = await local.create(
    BackendConfigSchema.parse({
      model: { dModel: 16, nLayers: 1, nHeads: 2, maxSeqLen: 16 },
      trainWorkers: 1,
      kernel: "js",
    }),
    { log: () => {} },
  );
  try {
    assert.equal(backend.name, "local");
    assert.deepEqual(backend.capabilities, local.capabilities);
    checkLossSupported(backend.name, backend.capabilities, { kind: "cispo" } as never);
  } finally {
    await backend.close();
  }
  assert.throws(
    () => checkLossSupported(fake.name, fake.capabilities, { kind: "ppo" } as never),
    /backend "fake" does not support loss.kind "ppo"/,
  );
});

test("loading the config loads the backends' definitions, not their implementations", async () => {
  // a module hook that lists every file of ours the config's import graph resolves
  const dir = mkdtempSync(join(tmpdir(), "rllm-registry-"));
  try {
    const hook = join(dir, "hook.mjs");
    writeFileSync(
      hook,
      `export async function resolve(s, c, next) {
        const r = await next(s, c);
        if (r.url.includes("/src/backends/")) process.stderr.write("LOADED " + r.url + "\\n");
        return r;
      }`,
    );
    const register = join(dir, "register.mjs");
    writeFileSync(
      register,
      `import { register } from "node:module"; register(${JSON.stringify(pathToFileURL(hook).href)});`,
    );
    const config = pathToFileURL(join(import.meta.dirname, "..", "config", "index.ts")).href;
    const { stderr } = await promisify(execFile)(process.execPath, [
      "--import",
      "tsx",
      "--import",
      register,
      "-e",
      `await import(${JSON.stringify(config)})`,
    ]);
    const loaded = [...new Set(stderr.match(/(?<=\/src\/backends\/)\S+/g))].sort();
    assert.deepEqual(loaded, [
      "local/config.ts",
      "local/index.ts",
      "registry.ts",
      "spi.ts", // ALL_LOSS_CAPABILITIES: the spec, derived from algorithms/loss.ts
      "torch/config.ts",
      "torch/index.ts",
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
