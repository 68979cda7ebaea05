import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { loadProvider, maskKey } from "../config/index.js";

const cli = new URL("./index.ts", import.meta.url).pathname;
const rllm = (args: string[], home: string) =>
  spawnSync(process.execPath, ["--import", "tsx", cli, ...args], {
    env: { ...process.env, RLLM_HOME: home },
    encoding: "utf8",
  });

test("rllm model setup stores the provider with mode 600; show masks the key", () => {
  const home = mkdtempSync(join(tmpdir(), "rllm-home-"));
  const none = rllm(["model", "show"], home);
  assert.match(none.stdout, /no provider stored/);
  const r = rllm(
    [
      "model",
      "setup",
      "--base-url",
      "http://127.0.0.1:8000/v1",
      "--model",
      "qwen",
      "--api-key",
      "sk-secret-123456789",
      "--kind",
      "vllm",
    ],
    home,
  );
  assert.equal(r.status, 0, r.stderr);
  const path = join(home, "config.json");
  assert.equal(statSync(path).mode & 0o777, 0o600);
  assert.deepEqual(JSON.parse(readFileSync(path, "utf8")).provider, {
    baseURL: "http://127.0.0.1:8000/v1",
    model: "qwen",
    kind: "vllm",
    apiKey: "sk-secret-123456789",
  });
  const show = rllm(["model", "show"], home);
  assert.match(show.stdout, /model\s+qwen/);
  assert.doesNotMatch(show.stdout, /secret-123456789/);
  assert.match(show.stdout, /sk-\*+6789/);
  assert.deepEqual(loadProvider({ RLLM_HOME: home })?.model, "qwen");
});

test("bad provider input is an error that says what to fix", () => {
  const home = mkdtempSync(join(tmpdir(), "rllm-home-"));
  const bad = rllm(["model", "setup", "--base-url", "not-a-url", "--model", "m"], home);
  assert.notEqual(bad.status, 0);
  assert.match(bad.stderr, /baseURL: must be an http\(s\) URL/);
  const missing = rllm(["model", "setup", "--model", "m"], home);
  assert.match(missing.stderr, /needs --base-url and --model/);
  writeFileSync(join(home, "config.json"), "{oops");
  assert.throws(() => loadProvider({ RLLM_HOME: home }), /config.json is not valid JSON/);
  assert.equal(maskKey(undefined), "(none)");
  assert.equal(maskKey("short"), "*****");
});
