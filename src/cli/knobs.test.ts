/**
 * No silent knobs: every key `rllm eval`, `rllm train` and `rllm gateway` accept is honoured or
 * refused with an error naming it. Which is which is shown here, key by key.
 */
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import {
  ConfigError,
  GatewayConfigSchema,
  loadConfig,
  parseConfig,
  StoreConfigSchema,
} from "../config/index.js";
import { InProcessGateway, inProcessGatewayConfig } from "../engine/gateway.js";
import { runEvalCommand } from "./eval.js";
import { flagsToConfig as gatewayFlags, gatewayStorePath } from "./gateway.js";
import { runTrainCommand } from "./train.js";

/** A value for each key of the gateway and store sections, unlike its default. */
const SET = {
  gateway: {
    host: "127.0.0.1",
    port: 9999,
    upstreams: [{ url: "http://127.0.0.1:8000" }],
    model: "m",
    adminKey: "an-admin-key",
    tokenizer: "tok",
    maxBodyBytes: 1024,
    upstreamTimeoutMs: 1234,
    upstreamConnections: 7,
    connectRetries: 0,
    healthCheckIntervalMs: 100,
    defaultSamplingParams: { temperature: 0.3 },
    exposeTokenIds: true,
  },
  store: { path: "x.db", synchronous: "full" },
} as const;

const HONOURED = {
  "rllm eval": {
    gateway: [
      "host",
      "adminKey",
      "tokenizer",
      "maxBodyBytes",
      "upstreamTimeoutMs",
      "upstreamConnections",
      "connectRetries",
      "healthCheckIntervalMs",
      "exposeTokenIds",
    ],
    store: ["synchronous"],
  },
  "rllm train": {
    gateway: [
      "host",
      "adminKey",
      "maxBodyBytes",
      "upstreamTimeoutMs",
      "upstreamConnections",
      "connectRetries",
      "healthCheckIntervalMs",
      "exposeTokenIds",
    ],
    store: ["synchronous"],
  },
} as const;

describe("no silent knobs", () => {
  it("the in-process gateway of eval and train: each gateway and store key honoured or refused", () => {
    // every key of both sections is covered here
    assert.deepEqual(
      Object.keys(SET.gateway).sort(),
      Object.keys(GatewayConfigSchema.shape).sort(),
    );
    assert.deepEqual(Object.keys(SET.store).sort(), Object.keys(StoreConfigSchema.shape).sort());
    for (const command of ["rllm eval", "rllm train"] as const) {
      for (const section of ["gateway", "store"] as const) {
        for (const [key, value] of Object.entries(SET[section])) {
          const config = loadConfig({ env: {}, flags: { [section]: { [key]: value } } });
          const honoured = (HONOURED[command][section] as readonly string[]).includes(key);
          if (honoured) {
            const s = inProcessGatewayConfig(config, command);
            if (section === "gateway")
              assert.deepEqual(s.config[key as "host"], value, `${command} passes ${key}`);
            else assert.equal(s.storeSynchronous, value);
          } else
            assert.throws(
              () => inProcessGatewayConfig(config, command),
              (e: unknown) =>
                e instanceof ConfigError && e.message.startsWith(`${section}.${key}: `),
              `${command} refuses ${section}.${key}`,
            );
        }
      }
    }
    // nothing set: the defaults, health probing off (the one upstream is the run's own)
    const none = inProcessGatewayConfig(loadConfig({ env: {} }), "rllm eval");
    assert.deepEqual(none, { config: { healthCheckIntervalMs: 0 }, storeSynchronous: "normal" });
    // a config built in code: what differs from the defaults counts as set
    assert.throws(
      () =>
        inProcessGatewayConfig(
          { ...parseConfig({}), gateway: GatewayConfigSchema.parse({ port: 1 }) },
          "rllm eval",
        ),
      /gateway\.port: the in-process gateway listens on a free port/,
    );
  });

  it("the reasons say what to use instead", () => {
    const refuse = (layer: Record<string, unknown>, command: "rllm eval" | "rllm train") => {
      try {
        inProcessGatewayConfig(loadConfig({ env: {}, flags: layer }), command);
      } catch (e) {
        return (e as Error).message;
      }
      return "";
    };
    assert.match(
      refuse({ gateway: { port: 1 } }, "rllm eval"),
      /run `rllm gateway` .*--gateway URL/,
    );
    assert.match(refuse({ gateway: { model: "x" } }, "rllm eval"), /--model \(model\.name\)/);
    assert.match(refuse({ store: { path: "x" } }, "rllm eval"), /OUTPUT\/traces\.db.*--output/);
    assert.match(
      refuse({ gateway: { defaultSamplingParams: { top_p: 1 } } }, "rllm train"),
      /trainer\.samplingParams/,
    );
    assert.match(refuse({ gateway: { tokenizer: "t" } }, "rllm train"), /sampler takes text/);
    assert.match(
      refuse({ engine: { gateway: "http://127.0.0.1:1" } }, "rllm train"),
      /engine\.gateway: rllm train runs its own gateway/,
    );
    assert.match(
      refuse({ engine: { gatewayAdminKey: "k" } }, "rllm eval"),
      /engine\.gatewayAdminKey: it is the admin key of a running gateway \(--gateway URL\)/,
    );
    // a remote gateway is configured where it runs: any key set here is refused
    assert.match(
      refuse(
        { engine: { gateway: "http://127.0.0.1:1" }, gateway: { tokenizer: "t" } },
        "rllm eval",
      ),
      /gateway\.tokenizer: --gateway http:\/\/127\.0\.0\.1:1 uses a running gateway/,
    );
  });

  it("the honoured keys reach the gateway that eval and train start", async () => {
    const config = loadConfig({
      env: {},
      flags: {
        gateway: { upstreamTimeoutMs: 4321, adminKey: "an-admin-key", exposeTokenIds: true },
        store: { synchronous: "full" },
      },
    });
    const s = inProcessGatewayConfig(config, "rllm eval");
    const gw = await InProcessGateway.start(
      { ...s.config, upstreams: [{ url: "http://127.0.0.1:9", kind: "vllm" }] },
      { storeSynchronous: s.storeSynchronous },
    );
    try {
      assert.equal(gw.gateway.config.upstreamTimeoutMs, 4321);
      assert.equal(gw.gateway.config.adminKey, "an-admin-key");
      assert.equal(gw.gateway.config.exposeTokenIds, true);
      assert.equal(gw.gateway.config.healthCheckIntervalMs, 0);
      assert.notEqual(gw.gateway.config.port, 8089);
    } finally {
      await gw.close();
    }
  });

  it("rllm eval and rllm train refuse such a key before doing any work", async () => {
    await assert.rejects(
      runEvalCommand(
        "countdown",
        loadConfig({
          env: {},
          flags: {
            gateway: { port: 9000 },
            eval: { backend: "local", checkpoint: "/nonexistent" },
          },
        }),
      ),
      /gateway\.port: /,
    );
    await assert.rejects(
      runTrainCommand("countdown", loadConfig({ env: {}, flags: { store: { path: "x.db" } } }), {
        log: () => {},
      }),
      /store\.path: rllm train keeps the run's traces in OUTPUT\/traces\.db/,
    );
  });

  it("rllm gateway keeps its store under RLLM_HOME with or without a config file", () => {
    const dir = mkdtempSync(join(tmpdir(), "rllm-knobs-"));
    const env = { RLLM_HOME: join(dir, "home") };
    const home = join(dir, "home", "gateway", "traces.db");
    const file = join(dir, "gateway.yaml");
    writeFileSync(file, "gateway:\n  port: 9100\n"); // no store section
    const path = (
      flags: Parameters<typeof gatewayFlags>[0],
      o: { file?: string; env?: object } = {},
    ) =>
      gatewayStorePath(
        loadConfig({ file: o.file, env: { ...env, ...o.env }, flags: gatewayFlags(flags) }),
        env,
      );
    assert.equal(path({}), home);
    assert.equal(path({}, { file }), home);
    // any layer may say otherwise
    assert.equal(path({ store: "memory" }, { file }), "memory");
    assert.equal(path({ db: join(dir, "g.db") }), join(dir, "g.db"));
    assert.equal(path({}, { env: { RLLM_STORE_PATH: "memory" } }), "memory");
    writeFileSync(file, `store:\n  path: ${join(dir, "f.db")}\n`);
    assert.equal(path({}, { file }), join(dir, "f.db"));
  });
});
