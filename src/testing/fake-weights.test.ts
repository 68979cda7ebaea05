/**
 * The fake servers' weight-update state without Python (directories that do not exist are refused
 * before any check runs): a paused vLLM holds generation until /resume; SGLang's update from disk
 * waits for running requests and holds new ones; a request naming an adapter that is not loaded
 * gets each server's error; routes of the other engine are 404. And the weights inspector's own
 * failure (a python that does not start) fails a check without being remembered.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { inspect } from "./fake-upstream/inspect.js";
import { startFakeUpstream } from "./fake-upstream.js";
import { post } from "./harness.js";

const chat = (url: string, model = "fake-model") =>
  post(`${url}/v1/chat/completions`, {
    model,
    messages: [{ role: "user", content: "hi" }],
    max_tokens: 2,
  });

test("vLLM: generation waits while paused; unknown adapters are 404; SGLang's routes are not there", async () => {
  const f = await startFakeUpstream({ kind: "vllm", weightSync: {} });
  try {
    const paused = await post(`${f.url}/pause?mode=keep`, {});
    assert.deepEqual(paused.body, { status: "paused" });
    const done: string[] = [];
    const held = chat(f.url).then((r) => {
      done.push("chat");
      return r;
    });
    await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(done, []);
    assert.deepEqual((await (await fetch(`${f.url}/is_paused`)).json()) as unknown, {
      is_paused: true,
    });
    await post(`${f.url}/resume`, {});
    assert.equal((await held).status, 200);
    assert.equal((await post(`${f.url}/pause?mode=bogus`, {})).status, 400);
    const missing = await chat(f.url, "rllm-v9");
    assert.equal(missing.status, 404);
    assert.match(JSON.stringify(missing.body), /The model `rllm-v9` does not exist/);
    const nope = await post(`${f.url}/v1/load_lora_adapter`, {
      lora_name: "rllm-v1",
      lora_path: "/does/not/exist",
    });
    assert.equal(nope.status, 404);
    assert.match(JSON.stringify(nope.body), /No adapter found for \/does\/not\/exist/);
    assert.equal((await post(`${f.url}/update_weights_from_disk`, {})).status, 404);
    assert.deepEqual(
      f.weights!.calls.map((c) => `${c.route} ${c.status}`),
      ["/pause 200", "/is_paused 200", "/resume 200", "/pause 400", "/v1/load_lora_adapter 404"],
    );
  } finally {
    await f.close();
  }
});

test("SGLang: an update from disk waits for running requests and holds new ones", async () => {
  const f = await startFakeUpstream({ kind: "sglang", weightSync: {}, latencyMs: 150 });
  try {
    const order: string[] = [];
    const running = chat(f.url).then(() => order.push("running"));
    await new Promise((r) => setTimeout(r, 30));
    const update = post(`${f.url}/update_weights_from_disk`, {
      model_path: "/nope",
      weight_version: "3",
    }).then((r) => {
      order.push("update");
      return r;
    });
    await new Promise((r) => setTimeout(r, 30));
    const later = chat(f.url).then(() => order.push("later"));
    const u = await update;
    await Promise.all([running, later]);
    assert.deepEqual(order, ["running", "update", "later"]);
    assert.equal(u.status, 400);
    assert.deepEqual(u.body, {
      success: false,
      message: "Failed to get weights iterator: /nope does not exist",
      num_paused_requests: 0,
    });
    assert.equal(f.config.weightVersion, "default"); // unchanged by a failed update
    const gen = await post(`${f.url}/generate`, { text: "hi", lora_path: "rllm-v1" });
    assert.equal(gen.status, 400);
    assert.match(JSON.stringify(gen.body), /LoRA adapter rllm-v1 is not loaded/);
    f.weights!.failNext("/unload_lora_adapter", 1, "injected");
    const unload = await post(`${f.url}/unload_lora_adapter`, { lora_name: "x" });
    assert.equal(unload.status, 400);
    assert.equal((unload.body as { error_message: string }).error_message, "injected");
  } finally {
    await f.close();
  }
});

test("a python that does not start fails the check, not the test process, and is not remembered", async () => {
  const dir = mkdtempSync(join(tmpdir(), "rllm-inspect-"));
  const python = process.env.RLLM_PYTHON;
  try {
    process.env.RLLM_PYTHON = join(dir, "no-python");
    assert.match(
      (await inspect(dir, "lora", undefined)) ?? "",
      /the weights inspector exited .*ENOENT/,
    );
    if (python === undefined) delete process.env.RLLM_PYTHON;
    else process.env.RLLM_PYTHON = python;
    // asked again, in a python that runs: now the inspector's own answer
    assert.match((await inspect(dir, "lora", undefined)) ?? "", /--kind lora needs --base/);
  } finally {
    if (python === undefined) delete process.env.RLLM_PYTHON;
    else process.env.RLLM_PYTHON = python;
    rmSync(dir, { recursive: true, force: true });
  }
});
