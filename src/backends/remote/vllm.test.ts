/**
 * VllmWeightSync's full-weight pushes against the fake vLLM server (no trainer; the directories
 * are a tiny model's, checked in transformers by the fake): the weight-transfer API with the disk
 * backend (init once per server, again after a restart; start → update {path} → finish
 * {weight_version}; a server without the disk backend named with the knob and the flag), the
 * reload through /collective_rpc, and the fake's own refusals (bodies, order, paths).
 * external.test.ts runs the transfer path through the torch backend.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { type FakeUpstream, startFakeUpstream } from "../../testing/fake-upstream.js";
import { post } from "../../testing/harness.js";
import { writeTinyModels } from "../../testing/tiny-models.js";
import { VllmWeightSync } from "./vllm.js";

const tmp = mkdtempSync(join(tmpdir(), "rllm-vllm-sync-"));
after(() => rmSync(tmp, { recursive: true, force: true }));
let model = "";
before(() => {
  model = writeTinyModels([{ dir: join(tmp, "model"), vocabSize: 64 }])[0]!;
});

const routes = (f: FakeUpstream) => f.weights!.calls.map((c) => `${c.route} ${c.status}`);
const o = { retries: 1, timeoutMs: 60_000, retryDelayMs: 10 };
const TRANSFER = [
  "/pause 200",
  "/start_weight_update 200",
  "/update_weights 200",
  "/finish_weight_update 200",
  "/reset_prefix_cache 200",
  "/resume 200",
];

describe("transfer (the default)", () => {
  let f: FakeUpstream;
  let sync: VllmWeightSync;
  before(async () => {
    f = await startFakeUpstream({ kind: "vllm", weightSync: { baseModel: model } });
    sync = new VllmWeightSync(f.url, o);
  });
  after(async () => {
    await sync.close();
    await f.close();
  });

  test("init once, then pause → start → update {path} → finish {version} → reset → resume", async () => {
    await sync.pushFull(model, 1);
    assert.deepEqual(routes(f), [
      "/pause 200",
      "/init_weight_transfer_engine 200",
      ...TRANSFER.slice(1),
    ]);
    const [pause, init, , update, finish] = f.weights!.calls;
    assert.equal(pause!.query.mode, "wait");
    assert.deepEqual(init!.body, { init_info: {} });
    assert.deepEqual(update!.body, { update_info: { path: model } });
    assert.deepEqual(finish!.body, { weight_version: "1" });
    assert.equal(f.weights!.modelPath, model);
    const info = await (await fetch(`${f.url}/weight_info`)).json();
    assert.deepEqual(info, { weight_version: "1" });
    assert.equal(f.weights!.paused, false);

    await sync.pushFull(model, 2); // no second init (the fake logs the GET above too)
    assert.deepEqual(routes(f).slice(8), TRANSFER);
    assert.equal(f.config.weightVersion, "2");
  });

  test("after a server restart (its engine not initialised) the client initialises again", async () => {
    f.weights!.calls.length = 0;
    f.weights!.transfer.initialized = false;
    await sync.pushFull(model, 3);
    assert.deepEqual(routes(f), [
      "/pause 200",
      "/start_weight_update 500", // "not initialized": not retried
      "/init_weight_transfer_engine 200",
      ...TRANSFER.slice(1),
    ]);
    assert.equal(f.config.weightVersion, "3");
  });

  test("a failed update is not retried (the server ended it), rejects, resumes; the next push works", async () => {
    f.weights!.calls.length = 0;
    f.weights!.failNext("/update_weights", 1, "CUDA error: out of memory");
    await assert.rejects(
      sync.pushFull(model, 4),
      /POST http:\/\/127\.0\.0\.1:\d+\/update_weights answered 500: CUDA error: out of memory \(1 try\)/,
    );
    assert.deepEqual(routes(f), [
      "/pause 200",
      "/start_weight_update 200",
      "/update_weights 500",
      "/finish_weight_update 500", // closing: already closed ("must be called before")
      "/resume 200",
    ]);
    assert.equal(f.weights!.paused, false);
    assert.equal(f.config.weightVersion, "3");
    await sync.pushFull(model, 4);
    assert.equal(f.config.weightVersion, "4");
  });

  test("a failed finish leaves vLLM's update open: the client closes it, the next push works", async () => {
    f.weights!.calls.length = 0;
    f.weights!.failNext("/finish_weight_update", 1, "finalize failed");
    await assert.rejects(
      sync.pushFull(model, 5),
      /finish_weight_update answered 500: finalize failed/,
    );
    assert.deepEqual(routes(f), [
      "/pause 200",
      "/start_weight_update 200",
      "/update_weights 200",
      "/finish_weight_update 500",
      "/finish_weight_update 500", // "No shared-disk weight update is active": the worker's is open
      "/update_weights 500", // refused without an engine session: the worker closes its update
      "/finish_weight_update 500",
      "/resume 200",
    ]);
    assert.equal(f.weights!.transfer.active, false);
    f.weights!.calls.length = 0;
    await sync.pushFull(model, 5);
    assert.deepEqual(routes(f), TRANSFER);
    assert.equal(f.config.weightVersion, "5");
  });

  test("an update left open (a trainer killed after start) answers 'already active': closed, started again", async () => {
    f.weights!.calls.length = 0;
    Object.assign(f.weights!.transfer, { active: true, session: { path: null } });
    await sync.pushFull(model, 6);
    assert.deepEqual(routes(f), [
      "/pause 200",
      "/start_weight_update 500", // already active: not retried
      "/finish_weight_update 500", // no checkpoint: the engine aborts, the worker's stays open
      "/update_weights 500",
      "/finish_weight_update 500",
      ...TRANSFER.slice(1),
    ]);
    assert.equal(f.config.weightVersion, "6");
  });

  test("a timed-out update is not tried again; the next push closes what it left open", async () => {
    f.weights!.slowNext("/update_weights", 1000);
    const hasty = new VllmWeightSync(f.url, { ...o, timeoutMs: 300 });
    f.weights!.calls.length = 0;
    try {
      await assert.rejects(
        hasty.pushFull(model, 7),
        /update_weights: no answer within 0\.3 s \(backend\.sampler\.timeoutS\) \(1 try\)/,
      );
    } finally {
      await hasty.close();
    }
    const updates = () => f.weights!.calls.filter((c) => c.route === "/update_weights");
    while (updates().length === 0) await new Promise((r) => setTimeout(r, 50));
    assert.equal(updates().length, 1); // the server's answer came after the client gave up
    assert.equal(f.weights!.transfer.active, true);
    f.weights!.calls.length = 0;
    await sync.pushFull(model, 7);
    assert.deepEqual(routes(f), [
      "/pause 200",
      "/start_weight_update 500",
      "/finish_weight_update 200", // the timed-out update had loaded: closing applies it
      ...TRANSFER.slice(1),
    ]);
    assert.equal(f.weights!.modelPath, model);
    assert.equal(f.config.weightVersion, "7");
  });
});

test("a server without the disk backend: the error names the knob and the flag, at once", async () => {
  const f = await startFakeUpstream({
    kind: "vllm",
    weightSync: { baseModel: model, weightTransfer: false },
  });
  const sync = new VllmWeightSync(f.url, o);
  try {
    await assert.rejects(sync.pushFull(model, 1), (e: Error) => {
      assert.match(
        e.message,
        /init_weight_transfer_engine answered 500: Weight transfer not configured/,
      );
      assert.match(e.message, /\(1 try\)/);
      assert.match(
        e.message,
        /backend\.sampler\.fullWeights "transfer" needs vLLM started with VLLM_SERVER_DEV_MODE=1 and --weight-transfer-config '\{"backend":"disk"\}'/,
      );
      assert.match(e.message, /set backend\.sampler\.fullWeights to "reload"/);
      return true;
    });
    assert.deepEqual(routes(f), ["/pause 200", "/init_weight_transfer_engine 500", "/resume 200"]);
  } finally {
    await sync.close();
    await f.close();
  }
});

test("reload: pause → collective_rpc reload_weights → reset → resume; never init", async () => {
  const f = await startFakeUpstream({
    kind: "vllm",
    weightSync: { baseModel: model, weightTransfer: false },
  });
  const sync = new VllmWeightSync(f.url, o, "reload");
  try {
    await sync.pushFull(model, 1);
    assert.deepEqual(routes(f), [
      "/pause 200",
      "/collective_rpc 200",
      "/reset_prefix_cache 200",
      "/resume 200",
    ]);
    assert.deepEqual(f.weights!.calls[1]!.body, {
      method: "reload_weights",
      kwargs: { weights_path: model, is_checkpoint_format: true },
    });
    assert.equal(f.weights!.modelPath, model);
  } finally {
    await sync.close();
    await f.close();
  }
});

test("a server without dev mode: 404, and the error says which flags", async () => {
  const f = await startFakeUpstream({ kind: "vllm" });
  const sync = new VllmWeightSync(f.url, { ...o, retries: 0 });
  try {
    await assert.rejects(
      sync.pushFull(model, 1),
      /\/pause answered 404: Not Found — the route is missing: start vLLM with VLLM_SERVER_DEV_MODE=1/,
    );
  } finally {
    await sync.close();
    await f.close();
  }
});

test("the fake refuses what vLLM refuses: bodies, order, paths", async () => {
  const f = await startFakeUpstream({ kind: "vllm", weightSync: { baseModel: model } });
  const call = async (route: string, body: unknown): Promise<[number, string]> => {
    const r = await post(`${f.url}${route}`, body);
    return [r.status, JSON.stringify(r.body)];
  };
  const engine = (m: string) => new RegExp(`"error":\\{"message":"${m}`);
  try {
    const [s1, b1] = await call("/init_weight_transfer_engine", {});
    assert.equal(s1, 400);
    assert.equal(b1, '{"detail":"Missing \'init_info\' in request body"}');
    assert.match(
      (await call("/start_weight_update", {}))[1],
      engine("Disk weight transfer not initialized"),
    );
    assert.deepEqual(await call("/init_weight_transfer_engine", { init_info: {} }), [
      200,
      '{"message":"Weight transfer initialized"}',
    ]);
    assert.match(
      (await call("/update_weights", { update_info: { path: model } }))[1],
      engine("start_weight_update must be called before update_weights"),
    );
    assert.match(
      (await call("/finish_weight_update", {}))[1],
      engine("start_weight_update must be called before finish_weight_update"),
    );
    const [s2, b2] = await call("/update_weights", {});
    assert.equal(s2, 400);
    assert.equal(b2, '{"detail":"Missing \'update_info\' in request body"}');
    const empty = join(tmp, "empty");
    mkdirSync(empty, { recursive: true });
    for (const [path, why] of [
      ["model", "`path` must be an absolute local directory"],
      [join(tmp, "nowhere"), "Shared-disk checkpoint path must be a local directory"],
      [empty, "Shared-disk checkpoint directory contains no safetensors files"],
    ] as const) {
      assert.equal((await call("/start_weight_update", {}))[0], 200);
      const [s, b] = await call("/update_weights", { update_info: { path } });
      assert.equal(s, 500);
      assert.match(b, engine(why));
    }
    assert.equal((await call("/start_weight_update", {}))[0], 200);
    assert.match(
      (await call("/start_weight_update", {}))[1],
      engine("start_weight_update called while a weight update is already active"),
    );
    assert.match((await call("/finish_weight_update", {}))[1], engine("No checkpoint was loaded"));
    assert.equal(f.weights!.transfer.session, null);
    // the worker's update stays open until an update call fails
    assert.match(
      (await call("/start_weight_update", {}))[1],
      engine("start_weight_update called while a weight update is already active"),
    );
    assert.match(
      (await call("/finish_weight_update", {}))[1],
      engine("No shared-disk weight update is active"),
    );
    assert.match(
      (await call("/update_weights", { update_info: { path: model } }))[1],
      engine("start_weight_update must be called before loading a checkpoint"),
    );
    assert.equal(f.weights!.transfer.active, false);
    assert.equal(f.weights!.modelPath, null);
  } finally {
    await f.close();
  }
});

test("adapters(): the /v1/models cards that have a parent", async () => {
  const f = await startFakeUpstream({ kind: "vllm", weightSync: {} });
  const sync = new VllmWeightSync(f.url, o);
  try {
    assert.deepEqual(await sync.adapters(), []);
    f.weights!.adapters.set("rllm-v3", "/x/rllm-v3");
    f.weights!.adapters.set("other", "/x/other");
    assert.deepEqual(await sync.adapters(), ["rllm-v3", "other"]);
  } finally {
    await sync.close();
    await f.close();
  }
});
