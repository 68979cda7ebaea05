/**
 * The sandbox registry as the config sees it: the `sandbox` section is a strict union on
 * `backend` (default bwrap), a knob of another backend is an unknown key, and a limit a backend
 * cannot enforce is refused before a run starts (configureSandboxes), not at the first sandbox.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { loadConfig } from "../config/index.js";
import { checkSandboxConfig, SandboxConfigSchema, sandboxBackendNames } from "./registry.js";
import { configureSandboxes } from "./shared.js";

describe("the sandbox section", () => {
  it("defaults to bwrap and lists every backend", () => {
    assert.equal(SandboxConfigSchema.parse({}).backend, "bwrap");
    assert.deepEqual(sandboxBackendNames, ["bwrap", "docker", "daytona"]);
    assert.equal(loadConfig({ env: {} }).sandbox.backend, "bwrap");
  });

  it("refuses another backend's knob, an unknown backend and a bad limit, naming them", () => {
    assert.throws(
      () => loadConfig({ env: {}, flags: { sandbox: { backend: "bwrap", image: "x" } } }),
      /sandbox.image/,
    );
    assert.throws(
      () => loadConfig({ env: {}, flags: { sandbox: { backend: "docker", limitsBy: "cgroup" } } }),
      /sandbox.limitsBy/,
    );
    assert.throws(
      () => loadConfig({ env: {}, flags: { sandbox: { backend: "podman" } } }),
      /unknown sandbox backend "podman"/,
    );
    assert.throws(
      () => loadConfig({ env: {}, flags: { sandbox: { limits: { memoryMb: 0 } } } }),
      /memoryMb/,
    );
    assert.throws(
      () => loadConfig({ env: {}, flags: { sandbox: { limits: { gpus: 1 } } } }),
      /sandbox.limits.gpus/,
    );
  });

  it("a limit the backend cannot enforce is an error at configure time", async () => {
    const daytona = SandboxConfigSchema.parse({
      backend: "daytona",
      apiKey: "k",
      limits: { pids: 10 },
    });
    assert.throws(
      () => checkSandboxConfig(daytona),
      /daytona sandbox backend cannot enforce limit pids/,
    );
    await assert.rejects(configureSandboxes(daytona), /cannot enforce limit pids/);
    checkSandboxConfig(SandboxConfigSchema.parse({ limits: { pids: 10 } }));
  });
});
