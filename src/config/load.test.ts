import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { ConfigError, closest, envLayer, loadConfig, logLevel, progressEnabled } from "./index.js";

const dir = mkdtempSync(join(tmpdir(), "rllm-config-"));

test("defaults apply when nothing is given", () => {
  const c = loadConfig({ env: {} });
  assert.equal(c.gateway.port, 8089);
  assert.equal(c.gateway.host, "127.0.0.1");
  assert.equal(c.store.path, undefined); // each command decides (rllm gateway: a file in RLLM_HOME)
  assert.deepEqual(c.gateway.upstreams, []);
});

test("load order: defaults <- file <- env <- flags", () => {
  const file = join(dir, "c.yaml");
  writeFileSync(
    file,
    "gateway:\n  port: 9000\n  host: 0.0.0.0\n  model: from-file\nstore:\n  path: /tmp/x.db\n",
  );
  const c = loadConfig({
    file,
    env: { RLLM_GATEWAY_PORT: "9001", RLLM_GATEWAY_MODEL: "from-env", RLLM_HOME: "/ignored" },
    flags: { gateway: { model: "from-flags", port: undefined } },
  });
  assert.equal(c.gateway.host, "0.0.0.0"); // file
  assert.equal(c.gateway.port, 9001); // env over file
  assert.equal(c.gateway.model, "from-flags"); // flags over env
  assert.equal(c.store.path, "/tmp/x.db");
});

test("JSON config files are read too", () => {
  const file = join(dir, "c.json");
  writeFileSync(
    file,
    JSON.stringify({ gateway: { upstreams: [{ url: "http://127.0.0.1:8000" }] } }),
  );
  const c = loadConfig({ file, env: {} });
  assert.equal(c.gateway.upstreams[0]?.kind, "vllm");
});

test("an unknown key names itself, its source and the closest known key", () => {
  const file = join(dir, "typo.yaml");
  writeFileSync(file, "gateway:\n  prot: 9000\n");
  assert.throws(
    () => loadConfig({ file, env: {} }),
    (e: unknown) =>
      e instanceof ConfigError &&
      e.message.includes('"gateway.prot"') &&
      e.message.includes(file) &&
      e.message.includes('did you mean "gateway.port"'),
  );
  assert.throws(
    () => loadConfig({ env: {}, flags: { gatway: {} } }),
    /unknown config key "gatway" in command-line flags — did you mean "gateway"/,
  );
  assert.throws(
    () => loadConfig({ env: { RLLM_GATEWAY_ADMN_KEY: "x" } }),
    /unknown config key "gateway.admnKey" in environment — did you mean "gateway.adminKey"/,
  );
  assert.throws(
    () => loadConfig({ env: { RLLM_GATWAY_PORT: "1" } }),
    /names no config section \(did you mean RLLM_GATEWAY_/,
  );
});

test("bad values are errors naming the key", () => {
  assert.throws(() => loadConfig({ env: { RLLM_GATEWAY_PORT: "99999" } }), /gateway\.port/);
  assert.throws(
    () => loadConfig({ env: {}, flags: { gateway: { upstreams: [{ url: "ftp://x" }] } } }),
    /gateway\.upstreams\.0\.url: must be an http\(s\) URL/,
  );
  assert.throws(
    () =>
      loadConfig({
        env: {},
        flags: { gateway: { upstreams: [{ url: "http://x", kind: "tgi" }] } },
      }),
    /gateway\.upstreams\.0\.kind/,
  );
  assert.throws(
    () =>
      loadConfig({
        env: {},
        flags: { gateway: { upstreams: [{ url: "http://x", apiKey: "k\r\nx-evil: 1" }] } },
      }),
    /gateway\.upstreams\.0\.apiKey: must be one line/,
  );
  const bad = join(dir, "bad.yaml");
  writeFileSync(bad, "gateway: [1, 2\n");
  assert.throws(() => loadConfig({ file: bad, env: {} }), /is not valid YAML/);
  writeFileSync(bad, "- 1\n- 2\n");
  assert.throws(() => loadConfig({ file: bad, env: {} }), /must hold a mapping/);
  assert.throws(
    () => loadConfig({ file: join(dir, "missing.yaml"), env: {} }),
    /cannot read config file/,
  );
});

test("env values: JSON when parseable, else strings; snake case to camel case", () => {
  assert.deepEqual(
    envLayer({
      RLLM_GATEWAY_EXPOSE_TOKEN_IDS: "true",
      RLLM_GATEWAY_ADMIN_KEY: "abc def",
      PATH: "/bin",
    }),
    {
      gateway: { exposeTokenIds: true, adminKey: "abc def" },
    },
  );
});

test("closest suggests only near misses", () => {
  assert.equal(closest("prot", ["port", "host"]), "port");
  assert.equal(closest("zzzzzzzz", ["port", "host"]), undefined);
});

test("the backend section: one strict schema per backend name, local by default", () => {
  const c = loadConfig({ env: {}, flags: { backend: { trainWorkers: 1, checkpoint: "ck" } } });
  assert.equal(c.backend.name, "local");
  assert.equal(c.backend.trainWorkers, 1);
  assert.equal(c.backend.sampler.workers, 1);
  assert.throws(
    () => loadConfig({ env: {}, flags: { backend: { sampler: { worker: 2 } } } }),
    /unknown config key "backend\.sampler\.worker" .*did you mean "backend\.sampler\.workers"/,
  );
  assert.throws(
    () => loadConfig({ env: {}, flags: { backend: { name: "tinker" } } }),
    /backend\.name/,
  );
  assert.throws(
    () => loadConfig({ env: {}, flags: { backend: { model: { dModel: 30, nHeads: 4 } } } }),
    /dModel 30 must be a multiple of nHeads 4/,
  );
});

test("RLLM_LOG_LEVEL and RLLM_NO_PROGRESS are read, and a bad log level is refused by name", () => {
  assert.equal(logLevel({}), "info");
  assert.equal(logLevel({ RLLM_LOG_LEVEL: "WARN" }), "warn");
  assert.throws(
    () => loadConfig({ env: { RLLM_LOG_LEVEL: "verbose" } }),
    /RLLM_LOG_LEVEL=verbose: use one of debug, info, warn, error/,
  );
  assert.equal(progressEnabled({}), true);
  assert.equal(progressEnabled({ RLLM_NO_PROGRESS: "0" }), true);
  assert.equal(progressEnabled({ RLLM_NO_PROGRESS: "1" }), false);
  // neither is a config key
  assert.doesNotThrow(() =>
    loadConfig({ env: { RLLM_LOG_LEVEL: "error", RLLM_NO_PROGRESS: "1" } }),
  );
});
