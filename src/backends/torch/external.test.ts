/**
 * The torch backend with vLLM and SGLang servers as its samplers (`backend.sampler.engine`),
 * against fake servers that answer the weight-update routes as the real ones do and check every
 * directory they are given in Python (rllm_worker.inspect_weights: the adapter loads in peft on
 * the base model, full weights in transformers): the calls each server gets and their order, the
 * model name per version, old adapters unloaded, failures retried, a failure that persists
 * rejecting with the server's message and leaving the version as it was, and a request through
 * the gateway reaching the server under the current version's adapter name.
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { loadConfig } from "../../config/index.js";
import { InProcessGateway } from "../../engine/gateway.js";
import { chatAgent, evaluator, finalResponse } from "../../sdk/index.js";
import { Store } from "../../store/sqlite.js";
import { type FakeUpstream, startFakeUpstream } from "../../testing/fake-upstream.js";
import { post } from "../../testing/harness.js";
import { writeTinyModels } from "../../testing/tiny-models.js";
import { AgentTrainer } from "../../trainer/trainer.js";
import type { Episode, Task } from "../../types/index.js";
import { TorchBackend } from "./backend.js";
import { TorchBackendConfigSchema } from "./config.js";
import { serveTorchModel } from "./serve.js";

const tmp = mkdtempSync(join(tmpdir(), "rllm-torch-external-"));
after(() => rmSync(tmp, { recursive: true, force: true }));
let made: string | undefined;
const model = () => {
  made ??= writeTinyModels([{ dir: join(tmp, "model"), vocabSize: 512 }])[0]!;
  return made;
};

const routes = (f: FakeUpstream) => f.weights!.calls.map((c) => `${c.route} ${c.status}`);
const fake = (kind: "vllm" | "sglang") =>
  startFakeUpstream({ kind, weightSync: { baseModel: model() } });

describe("LoRA on two vLLM servers", () => {
  let a: FakeUpstream;
  let b: FakeUpstream;
  let backend: TorchBackend;
  before(async () => {
    [a, b] = await Promise.all([fake("vllm"), fake("vllm")]);
    backend = await TorchBackend.create({
      model: model(),
      device: "cpu",
      dtype: "float32",
      lora: { rank: 4 },
      sampler: { engine: "vllm", urls: [a.url, `${b.url}/v1/`], retries: 1, keepVersions: 2 },
    });
  });
  after(async () => {
    await backend?.close();
    await Promise.all([a?.close(), b?.close()]);
  });

  test("each version is loaded on every server as rllm-v<N>, the oldest unloaded; the model name follows", async () => {
    const s0 = await backend.sampler();
    assert.equal(s0.model, "fake-model"); // the base, read from GET /v1/models
    assert.equal(s0.weightVersion, 0);
    assert.equal(s0.keepVersions, 2);
    assert.deepEqual(
      s0.upstreams?.map((u) => [u.url, u.kind, u.model]),
      [
        [a.url, "vllm", "fake-model"],
        [b.url, "vllm", "fake-model"],
      ],
    );
    for (let v = 1; v <= 3; v++) {
      assert.deepEqual(await backend.saveForSampler(), { weightVersion: v });
      assert.equal((await backend.sampler()).model, `rllm-v${v}`);
    }
    for (const f of [a, b]) {
      assert.deepEqual(routes(f), [
        "/v1/load_lora_adapter 200",
        "/v1/load_lora_adapter 200",
        "/v1/load_lora_adapter 200",
        "/v1/unload_lora_adapter 200",
      ]);
      assert.deepEqual([...f.weights!.adapters.keys()], ["rllm-v2", "rllm-v3"]);
      assert.deepEqual(
        f.weights!.calls.map((c) => (c.body as { lora_name: string }).lora_name),
        ["rllm-v1", "rllm-v2", "rllm-v3", "rllm-v1"],
      );
    }
    // the unloaded version's files are gone, the loaded ones' stay (vLLM may re-read them)
    const dirs = [...a.weights!.adapters.values()];
    assert.ok(dirs.every((d) => existsSync(join(d, "adapter_config.json"))));
    const v1 = (a.weights!.calls[0]!.body as { lora_path: string }).lora_path;
    assert.ok(!existsSync(v1));
    // the servers list the adapters and refuse the unloaded one, as vLLM does
    const models = (await (await fetch(`${a.url}/v1/models`)).json()) as { data: { id: string }[] };
    assert.deepEqual(
      models.data.map((m) => m.id),
      ["fake-model", "rllm-v2", "rllm-v3"],
    );
    const gone = await post(`${a.url}/v1/chat/completions`, {
      model: "rllm-v1",
      messages: [{ role: "user", content: "hi" }],
    });
    assert.equal(gone.status, 404);
  });

  test("a failed load is retried; one that keeps failing rejects with the server's message and changes nothing", async () => {
    a.weights!.failNext("/v1/load_lora_adapter", 1, "CUDA out of memory while loading");
    assert.deepEqual(await backend.saveForSampler(), { weightVersion: 4 });
    assert.deepEqual(routes(a).slice(4, 6), [
      "/v1/load_lora_adapter 400",
      "/v1/load_lora_adapter 200",
    ]);

    b.weights!.failNext("/v1/load_lora_adapter", 2, "LoRA rank 4 is greater than max_lora_rank 2");
    await assert.rejects(backend.saveForSampler(), (e: Error) =>
      e.message.includes(
        `POST ${b.url}/v1/load_lora_adapter answered 400: LoRA rank 4 is greater than max_lora_rank 2 (2 tries)`,
      ),
    );
    assert.equal(backend.weightVersion, 4);
    const s = await backend.sampler();
    assert.equal(s.model, "rllm-v4");
    assert.equal(s.weightVersion, 4);
    // the server that took version 5 unloaded it again: every server holds the same adapters
    assert.deepEqual([...a.weights!.adapters.keys()], ["rllm-v3", "rllm-v4"]);
    assert.deepEqual([...b.weights!.adapters.keys()], ["rllm-v3", "rllm-v4"]);
    // and the next push is version 5 again, cleanly — also where a server still holds that name
    // (as after a trainer restart): it is unloaded and loaded from the new files
    a.weights!.adapters.set("rllm-v5", "/stale/rllm-v5");
    assert.deepEqual(await backend.saveForSampler(), { weightVersion: 5 });
    assert.deepEqual([...b.weights!.adapters.keys()], ["rllm-v4", "rllm-v5"]);
    assert.notEqual(a.weights!.adapters.get("rllm-v5"), "/stale/rllm-v5");
    // every push exported into a directory of its own (none overwritten while a server reads it)
    const loads = a.weights!.calls.filter((c) => c.route === "/v1/load_lora_adapter");
    const v5 = loads
      .map((c) => c.body as { lora_name: string; lora_path: string })
      .filter((b) => b.lora_name === "rllm-v5");
    assert.equal(new Set(v5.map((b) => b.lora_path)).size, 2); // the failed push's, and this one's
  });

  test("the fake refuses a directory that does not load, with the reason", async () => {
    const r = await post(`${a.url}/v1/load_lora_adapter`, { lora_name: "x", lora_path: tmp });
    assert.equal(r.status, 400);
    assert.match(
      JSON.stringify(r.body),
      /Loading lora x failed: .*adapter_config\.json does not exist/,
    );
  });

  test("the gateway sends the current version's adapter name upstream", async () => {
    const s = await backend.sampler();
    const gw = await InProcessGateway.start({ upstreams: s.upstreams, model: "fake-model" });
    try {
      await gw.setWeightVersion(s.weightVersion, s.model);
      const session = await gw.createSession({ id: "ext:1" });
      const r = await post(
        `${session.url}/v1/chat/completions`,
        { model: "anything", messages: [{ role: "user", content: "hi" }], max_tokens: 4 },
        session.token,
      );
      assert.equal(r.status, 200, r.text);
      const sent = [...a.requests, ...b.requests].filter((q) => q.path === "/v1/chat/completions");
      assert.equal((sent.at(-1)!.body as { model: string }).model, "rllm-v5");
      assert.equal((r.body as { model: string }).model, "rllm-v5"); // vLLM answers under it too
      const [trace] = await gw.traces("ext:1");
      assert.equal(trace!.weightVersion, 5);
    } finally {
      await gw.close();
    }
  });
});

test("LoRA on SGLang restarted against running servers: the earlier run's adapters are unloaded, so --max-loaded-loras does not refuse", async () => {
  const c = await startFakeUpstream({
    kind: "sglang",
    weightSync: { baseModel: model(), maxLoadedAdapters: 3 }, // keepVersions + 1, as launched
  });
  // what a killed run left: three adapters, the server full
  for (const v of [7, 8, 9]) c.weights!.adapters.set(`rllm-v${v}`, `/gone/rllm-v${v}`);
  const lines: string[] = [];
  const backend = await TorchBackend.create(
    {
      model: model(),
      device: "cpu",
      dtype: "float32",
      lora: { rank: 4 },
      sampler: { engine: "sglang", urls: [c.url], retries: 0, keepVersions: 2 },
    },
    { log: (l) => lines.push(l) },
  );
  try {
    assert.equal((await backend.sampler()).model, "fake-model"); // the base until the first push
    assert.deepEqual([...c.weights!.adapters.keys()], []);
    assert.ok(
      lines.includes(
        `${c.url} holds adapters of an earlier run (rllm-v7, rllm-v8, rllm-v9); unloading them`,
      ),
      lines.join("\n"),
    );
    // the sync directory, once: the trainer's exchange dir, and what that asks of the servers
    const sync = lines.filter((l) => l.startsWith("sampler weights are written to "));
    assert.equal(sync.length, 1);
    assert.match(
      sync[0]!,
      /rllm-sync-\w+ for the sglang servers to read \(the trainer's exchange directory, in RAM under \/dev\/shm where it exists: the servers must run as the same user on this machine; backend\.sampler\.syncDir moves it\)/,
    );
    for (let v = 1; v <= 3; v++)
      assert.deepEqual(await backend.saveForSampler(), { weightVersion: v });
    assert.deepEqual([...c.weights!.adapters.keys()], ["rllm-v2", "rllm-v3"]);
    assert.deepEqual(routes(c).slice(0, 4), [
      "/unload_lora_adapter 400", // the listing: an unknown name, answered with loaded_adapters
      "/unload_lora_adapter 200",
      "/unload_lora_adapter 200",
      "/unload_lora_adapter 200",
    ]);
  } finally {
    await backend.close();
    await c.close();
  }
});

describe("full weights", () => {
  test("SGLang: update from disk with the version (it drains by itself), checked; a failure keeps the version", async () => {
    const c = await fake("sglang");
    const backend = await TorchBackend.create({
      model: model(),
      device: "cpu",
      dtype: "float32",
      sampler: {
        engine: "sglang",
        urls: [c.url],
        retries: 1,
        syncDir: join(tmp, "shared"),
        apiKey: "sk-sampler",
      },
    });
    try {
      const s0 = await backend.sampler();
      assert.equal(s0.kind, "sglang");
      assert.equal(s0.tokenizer, model()); // the gateway renders SGLang's token-in/token-out chats
      assert.equal(s0.keepVersions, undefined);
      assert.deepEqual(await backend.saveForSampler(), { weightVersion: 1 });
      assert.deepEqual(routes(c), ["/update_weights_from_disk 200", "/get_weight_version 200"]);
      const body = c.weights!.calls[0]!.body as { model_path: string; weight_version: string };
      assert.equal(body.weight_version, "1");
      // a complete model directory, under syncDir: the exported weights beside the model's config
      assert.ok(body.model_path.startsWith(join(tmp, "shared", "rllm-sync-")), body.model_path);
      assert.ok(existsSync(join(body.model_path, "config.json")));
      assert.ok(c.requests.every((q) => q.headers.authorization === "Bearer sk-sampler"));
      assert.equal(s0.upstreams?.[0]?.apiKey, "sk-sampler"); // and the gateway sends it too
      assert.equal(c.weights!.modelPath, body.model_path);
      assert.equal(c.config.weightVersion, "1");
      assert.equal((await backend.sampler()).model, "fake-model"); // full weights keep the name

      c.weights!.failNext("/update_weights_from_disk", 2, "Failed to get weights iterator");
      await assert.rejects(
        backend.saveForSampler(),
        /POST http:\/\/127\.0\.0\.1:\d+\/update_weights_from_disk answered 400: Failed to get weights iterator \(2 tries\)/,
      );
      assert.equal(backend.weightVersion, 1);
      assert.equal(c.config.weightVersion, "1");
      assert.ok(existsSync(body.model_path)); // the live version's files stay
    } finally {
      await backend.close();
      await c.close();
    }
  });

  test("vLLM: pause → (init) → start → update {path} → finish {version} → reset → resume, resumed when the update fails", async () => {
    const d = await fake("vllm");
    const backend = await TorchBackend.create({
      model: model(),
      device: "cpu",
      dtype: "float32",
      sampler: { engine: "vllm", urls: [d.url], retries: 0 },
    });
    try {
      assert.deepEqual(await backend.saveForSampler(), { weightVersion: 1 });
      assert.deepEqual(routes(d), [
        "/pause 200",
        "/init_weight_transfer_engine 200",
        "/start_weight_update 200",
        "/update_weights 200",
        "/finish_weight_update 200",
        "/reset_prefix_cache 200",
        "/resume 200",
      ]);
      assert.equal(d.weights!.calls[0]!.query.mode, "wait");
      const update = d.weights!.calls[3]!.body as { update_info: { path: string } };
      // an absolute, complete model directory (the fake loaded it in transformers)
      assert.ok(existsSync(join(update.update_info.path, "model.safetensors")));
      assert.ok(existsSync(join(update.update_info.path, "config.json")));
      assert.equal(d.weights!.modelPath, update.update_info.path);
      assert.deepEqual(d.weights!.calls[4]!.body, { weight_version: "1" });
      assert.equal(d.config.weightVersion, "1");

      d.weights!.failNext("/update_weights", 1, "CUDA error: an illegal memory access");
      await assert.rejects(backend.saveForSampler(), /update_weights answered 500: CUDA error/);
      assert.deepEqual(routes(d).slice(7), [
        "/pause 200",
        "/start_weight_update 200",
        "/update_weights 500",
        "/finish_weight_update 500", // closing the update: vLLM had closed it already
        "/resume 200",
      ]);
      assert.equal(d.weights!.paused, false);
      assert.equal(backend.weightVersion, 1);
      assert.equal(d.config.weightVersion, "1");
      assert.ok(existsSync(update.update_info.path)); // the live version's files stay
    } finally {
      await backend.close();
      await d.close();
    }
  });
});

test("config: an external engine takes its own knobs only; a section without engine is the in-process sampler", async () => {
  const parse = (sampler: unknown) => TorchBackendConfigSchema.safeParse({ model: "m", sampler });
  const ok = parse({ engine: "sglang", urls: ["http://h:30000/v1/"] });
  assert.ok(ok.success);
  assert.deepEqual(ok.data.sampler, {
    engine: "sglang",
    urls: ["http://h:30000"],
    retries: 2,
    timeoutS: 600,
    keepVersions: 2,
  });
  const torch = parse({ port: 8001 });
  assert.ok(torch.success && torch.data.sampler.engine === "torch");
  const vllm = parse({ engine: "vllm", urls: ["http://h:8000"] });
  assert.ok(vllm.success && vllm.data.sampler.engine === "vllm");
  assert.equal(vllm.data.sampler.fullWeights, "transfer"); // the weight-transfer API by default
  const reload = parse({ engine: "vllm", urls: ["http://h:8000"], fullWeights: "reload" });
  assert.ok(reload.success && reload.data.sampler.engine === "vllm");
  assert.equal(reload.data.sampler.fullWeights, "reload");
  assert.ok(!parse({ engine: "vllm", urls: ["http://h:8000"], fullWeights: "nccl" }).success);
  // vLLM's knob only: SGLang has one way to load full weights
  const sg = parse({ engine: "sglang", urls: ["http://h:30000"], fullWeights: "reload" });
  assert.ok(!sg.success);
  assert.match(JSON.stringify(sg.error.issues), /Unrecognized key: \\"fullWeights\\"/);
  const foreign = parse({ engine: "vllm", urls: ["http://h:8000"], maxBatch: 8 });
  assert.ok(!foreign.success);
  assert.match(JSON.stringify(foreign.error.issues), /Unrecognized key: \\"maxBatch\\"/);
  assert.ok(!parse({ engine: "vllm", urls: [] }).success);
  assert.ok(!parse({ engine: "vllm", urls: ["ftp://h"] }).success);
  assert.ok(!parse({ engine: "tgi", urls: ["http://h"] }).success);
  // serving weights in process (rllm eval, rllm model serve) refuses an external engine at once
  await assert.rejects(
    serveTorchModel(tmp, TorchBackendConfigSchema.parse({ sampler: ok.data.sampler }), {
      log: () => {},
    }),
    /backend\.sampler\.engine is "sglang", but this command serves the weights itself/,
  );
});

describe("the RL loop on two vLLM servers", () => {
  const tasks: Task[] = Array.from({ length: 4 }, (_, i) => ({
    id: `t${i}`,
    data: { q: `q${i}` },
  }));
  const parity = evaluator<Episode>((_t, ep) => {
    const reward = (finalResponse(ep) ?? "").length % 2;
    return { reward, isCorrect: reward === 1 };
  });
  const config = (trainer: Record<string, unknown>) =>
    loadConfig({
      env: {},
      flags: {
        trainer: {
          groupSize: 2,
          batchSize: 2,
          maxSteps: 2,
          valFreq: 0,
          samplingParams: { temperature: 1, max_tokens: 4 },
          ...trainer,
        },
        algorithm: { loss: { kind: "ppo" }, dropZeroVarianceGroups: false },
      },
    });

  test("2 steps: each step samples under its version's adapter, the traces carry the version", async () => {
    const [a, b] = await Promise.all([fake("vllm"), fake("vllm")]);
    const backend = await TorchBackend.create({
      model: model(),
      device: "cpu",
      dtype: "float32",
      lora: { rank: 4 },
      sampler: { engine: "vllm", urls: [a.url, b.url] },
    });
    const output = join(tmp, "run");
    try {
      const r = await new AgentTrainer({
        rollout: chatAgent({ name: "q", userPrompt: (t) => String(t.data.q) }),
        evaluator: parity,
        trainDataset: tasks,
        backend,
        config: config({}),
        output,
        log: () => {},
      }).train();
      assert.equal(r.weightVersion, 2);
      const store = new Store({ path: join(output, "traces.db") });
      try {
        const traces = store.queryTraces({ limit: 1000 }).map((t) => t.trace);
        assert.deepEqual([...new Set(traces.map((t) => t.weightVersion))].sort(), [0, 1]);
      } finally {
        store.close();
      }
      // version 0 is the base model; version 1's groups asked for its adapter
      const asked = [...a.requests, ...b.requests]
        .filter((q) => q.path === "/v1/chat/completions")
        .map((q) => (q.body as { model: string }).model);
      assert.deepEqual([...new Set(asked)].sort(), ["fake-model", "rllm-v1"]);
      assert.ok(
        a.requests.some((q) => q.path === "/v1/chat/completions"),
        "both servers used",
      );
      assert.ok(
        b.requests.some((q) => q.path === "/v1/chat/completions"),
        "both servers used",
      );
      assert.deepEqual([...a.weights!.adapters.keys()], ["rllm-v1", "rllm-v2"]);

      // an async run that would sample 2 versions back needs 3 adapters loaded, and has 2
      await assert.rejects(
        new AgentTrainer({
          rollout: chatAgent({ name: "q", userPrompt: (t) => String(t.data.q) }),
          evaluator: parity,
          trainDataset: tasks,
          backend,
          config: config({ async: true, staleness: 2 }),
          output: join(tmp, "run-async"),
          log: () => {},
        }).train(),
        /trainer\.staleness 2 .* they keep 2 \(backend\.sampler\.keepVersions\): raise backend\.sampler\.keepVersions to 3, or lower trainer\.staleness/,
      );
    } finally {
      await backend.close();
      await Promise.all([a.close(), b.close()]);
    }
  });
});
