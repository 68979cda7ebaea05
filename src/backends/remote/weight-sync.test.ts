/**
 * SamplerFleet over scripted servers (no HTTP, no Python; external.test.ts runs the real ones
 * against fake vLLM/SGLang servers): the base model the servers must agree on, LoRA all or
 * nothing, adapters beyond keepVersions unloaded, an unload failure logged and tried again,
 * full weights keeping the base model's name.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { type FleetState, SamplerFleet, type WeightSync } from "./weight-sync.js";

/** A server whose calls are logged; `fail` names calls that throw (e.g. "load rllm-v3"). */
function server(
  url: string,
  model = "base",
  fail = new Set<string>(),
  held: string[] = [],
): WeightSync & { log: string[] } {
  const log: string[] = [];
  const act = async (what: string) => {
    log.push(what);
    if (fail.has(what)) throw new Error(`${url}: ${what} failed`);
  };
  return {
    engine: "vllm",
    url,
    log,
    servedModel: async () => model,
    pushLora: (_dir, name) => act(`load ${name}`),
    dropLora: (name) => act(`unload ${name}`),
    adapters: async () => held,
    pushFull: (_dir, v) => act(`full ${v}`),
    close: async () => {},
  };
}

const connect = (servers: WeightSync[], keepVersions = 2, lines: string[] = []) =>
  SamplerFleet.connect(servers, {
    keepVersions,
    version: 0,
    log: (l) => lines.push(l),
    lora: true,
  });

test("the servers must serve one base model (modelName, else the first server's)", async () => {
  const f = await connect([server("a"), server("b")]);
  assert.equal(f.baseModel, "base");
  await assert.rejects(
    connect([server("a"), server("b", "other")]),
    /the sampler servers do not all serve "base" \(a's model\): b serves "other"; start them on the same model/,
  );
  await assert.rejects(
    SamplerFleet.connect([server("a")], {
      modelName: "m",
      keepVersions: 2,
      version: 0,
      log: () => {},
    }),
    /do not all serve "m" \(backend\.sampler\.modelName\): a serves "base"/,
  );
});

test("LoRA: all servers or none; the newest keepVersions stay loaded", async () => {
  const fail = new Set(["load rllm-v3"]);
  const a = server("a");
  const b = server("b", "base", fail);
  const f = await connect([a, b]);
  const state = (): FleetState => f.state;
  assert.deepEqual(await f.pushLora("/d1", 1), []);
  assert.deepEqual(await f.pushLora("/d2", 2), []);
  assert.deepEqual(state(), { model: "rllm-v2", version: 2 });
  await assert.rejects(
    f.pushLora("/d3", 3),
    /pushing LoRA weight version 3 .*b: load rllm-v3 failed/,
  );
  assert.deepEqual(state(), { model: "rllm-v2", version: 2 });
  assert.deepEqual(a.log.slice(-2), ["load rllm-v3", "unload rllm-v3"]); // rolled back where it loaded
  fail.clear();
  assert.deepEqual(await f.pushLora("/d3", 3), ["/d1"]);
  assert.deepEqual(b.log, [
    "load rllm-v1",
    "load rllm-v2",
    "load rllm-v3",
    "load rllm-v3",
    "unload rllm-v1",
  ]);
  assert.deepEqual(state(), { model: "rllm-v3", version: 3 });
});

test("an unload that fails is logged, not the push's failure, and is tried again next time", async () => {
  const fail = new Set(["unload rllm-v1"]);
  const a = server("a", "base", fail);
  const lines: string[] = [];
  const f = await connect([a], 1, lines);
  await f.pushLora("/d1", 1);
  assert.deepEqual(await f.pushLora("/d2", 2), []);
  assert.match(
    lines[0]!,
    /unloading LoRA weight version 1 .*failed.*tried again after the next push/,
  );
  fail.clear();
  assert.deepEqual(await f.pushLora("/d3", 3), ["/d1", "/d2"]);
  assert.deepEqual(a.log, [
    "load rllm-v1",
    "load rllm-v2",
    "unload rllm-v1",
    "load rllm-v3",
    "unload rllm-v1",
    "unload rllm-v2",
  ]);
});

test("full weights keep the base model's name; a failure keeps the state", async () => {
  const fail = new Set(["full 2"]);
  const f = await connect([server("a"), server("b", "base", fail)]);
  await f.pushFull("/d1", 1);
  assert.deepEqual(f.state, { model: "base", version: 1 });
  await assert.rejects(f.pushFull("/d2", 2), /full weight version 2 .*b: full 2 failed/);
  assert.deepEqual(f.state, { model: "base", version: 1 });
});

test("LoRA: connecting unloads the rllm-v<N> adapters an earlier run left, nothing else", async () => {
  const a = server("a", "base", new Set(), ["rllm-v7", "theirs", "rllm-v8-r2", "rllm-vx"]);
  const b = server("b");
  const lines: string[] = [];
  const f = await connect([a, b], 2, lines);
  assert.deepEqual(a.log, ["unload rllm-v7", "unload rllm-v8-r2"]);
  assert.deepEqual(b.log, []);
  assert.deepEqual(lines, [
    "a holds adapters of an earlier run (rllm-v7, rllm-v8-r2); unloading them",
  ]);
  assert.deepEqual(f.state, { model: "base", version: 0 });
  // a full-weight run leaves adapters alone (its servers may not even have LoRA routes)
  const c = server("c", "base", new Set(), ["rllm-v7"]);
  await SamplerFleet.connect([c], { keepVersions: 2, version: 0, log: () => {} });
  assert.deepEqual(c.log, []);
});

test("LoRA: a version pushed again loads under a fresh name, then the replaced one goes; a failure keeps it", async () => {
  const fail = new Set(["load rllm-v2-r1"]);
  const a = server("a", "base", fail);
  const f = await connect([a]);
  await f.pushLora("/d1", 1);
  await f.pushLora("/d2", 2);
  await assert.rejects(f.pushLora("/d2b", 2), /load rllm-v2-r1 failed/);
  assert.deepEqual(f.state, { model: "rllm-v2", version: 2 }); // still served, never unloaded
  fail.clear();
  assert.deepEqual(await f.pushLora("/d2c", 2), ["/d2"]);
  assert.deepEqual(f.state, { model: "rllm-v2-r2", version: 2 });
  assert.deepEqual(a.log, [
    "load rllm-v1",
    "load rllm-v2",
    "load rllm-v2-r1",
    "load rllm-v2-r2",
    "unload rllm-v2",
  ]);
  assert.deepEqual(await f.pushLora("/d3", 3), ["/d1"]); // keepVersions 2: rllm-v2-r2 and rllm-v3
  assert.deepEqual(await f.pushLora("/d4", 4), ["/d2c"]);
});
