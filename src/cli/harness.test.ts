/**
 * `rllm harness install|list` and `--harness` on eval/train: names checked, exclusions, the list's
 * states; and `rllm eval harbor:DIR --harness claude-code` end to end (the real CLI, installed).
 */
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { harnessNames } from "../agents/harness/registry.js";
import { loadConfig } from "../config/index.js";
import { startFakeUpstream } from "../testing/fake-upstream.js";
import type { Episode } from "../types/index.js";
import { evalFlagsToConfig, runEvalCommand } from "./eval.js";
import { EVAL_FLAGS, TRAIN_FLAGS } from "./flag-tables.js";
import { flagLayer } from "./flags.js";
import { harnessList, harnessRollout, installNames } from "./harness.js";
import { runTrainCommand } from "./train.js";

const home = mkdtempSync(join(tmpdir(), "rllm-harness-cli-"));
const FIXTURES = fileURLToPath(new URL("../benchmarks/fixtures/harbor", import.meta.url));
after(() => rmSync(home, { recursive: true, force: true }));

test("install names: given, --all, or an error listing them", () => {
  assert.deepEqual(installNames(["opencode"], false), ["opencode"]);
  const all = harnessNames();
  assert.deepEqual(installNames([], true), all);
  for (const name of ["claude-code", "opencode", "qwen-code"]) assert.ok(all.includes(name));
  assert.throws(
    () => installNames([], false),
    new RegExp(`name the harnesses \\(${all.join(", ")}\\) or pass --all`),
  );
  assert.throws(() => installNames(["opencode"], true), /names or --all, not both/);
  assert.throws(
    () => installNames(["claude"], false),
    /unknown harness "claude"; the harnesses are claude-code/,
  );
});

test("list: each harness with its pinned package and where it is (not) installed", () => {
  const lines = harnessList({ RLLM_HOME: home });
  assert.equal(lines.length, harnessNames().length);
  assert.match(
    lines[0]!,
    /^claude-code +@anthropic-ai\/claude-code@2\.1\.328 +not installed \(rllm harness install claude-code\)$/,
  );
});

test("--harness: a config key of eval and trainer, an unknown name refused, excluding --agent/--agent-cmd", async () => {
  const ev = loadConfig({ env: {}, flags: flagLayer(EVAL_FLAGS, { harness: "opencode" }) });
  assert.equal(ev.eval.harness, "opencode");
  const tr = loadConfig({ env: {}, flags: flagLayer(TRAIN_FLAGS, { harness: "qwen-code" }) });
  assert.equal(tr.trainer.harness, "qwen-code");
  assert.throws(
    () => harnessRollout("claude", 600),
    new RegExp(
      `--harness claude: unknown harness; the harnesses are ${harnessNames().join(", ")}$`,
    ),
  );
  for (const extra of [{ agent: "a.js" }, { agentCmd: "echo" }]) {
    const config = loadConfig({
      env: {},
      flags: evalFlagsToConfig({ model: "m", harness: "opencode", ...extra }),
    });
    await assert.rejects(
      runEvalCommand("gsm8k", config),
      /--agent, --agent-cmd and --harness exclude each other/,
    );
  }
  const train = loadConfig({
    env: {},
    flags: flagLayer(TRAIN_FLAGS, { harness: "opencode", agent: "a.js" }),
  });
  await assert.rejects(
    runTrainCommand("countdown", train),
    /--agent and --harness exclude each other/,
  );
});

test("rllm eval harbor:DIR --harness claude-code: the CLI on every fixture, its calls traced with token ids", async () => {
  const up = await startFakeUpstream({ kind: "vllm" });
  const output = mkdtempSync(join(tmpdir(), "rllm-eval-harness-"));
  try {
    const config = loadConfig({
      env: {},
      flags: evalFlagsToConfig({
        output,
        baseUrl: `${up.url}/v1`,
        upstreamKind: "vllm",
        model: "fake-model",
        harness: "claude-code",
      }),
    });
    assert.equal(await runEvalCommand(`harbor:${FIXTURES}`, config), 0);
    const results = JSON.parse(readFileSync(join(output, "results.json"), "utf8")) as {
      config: { agent: string };
      items: unknown[];
    };
    assert.equal(results.config.agent, "harness:claude-code");
    const episodes = readdirSync(join(output, "episodes")).map(
      (f) => JSON.parse(readFileSync(join(output, "episodes", f), "utf8")) as Episode,
    );
    assert.equal(episodes.length, 3, "the three Harbor fixtures");
    for (const ep of episodes) {
      // the echo model answers in text: no tool runs, so the verifier gives 0 — but it ran
      assert.equal(ep.info?.error ?? null, null);
      assert.equal((ep.info!.harness as { exitCode: number }).exitCode, 0);
      assert.equal((ep.info!.verifier as { reward: number }).reward, 0);
      assert.equal(ep.reward, 0);
      assert.match(ep.info?.answer as string, /^Echo: /);
      const steps = ep.trajectories[0]!.steps;
      assert.ok(steps.length >= 1);
      assert.ok(steps.every((st) => st.promptIds.length > 0 && st.completionIds.length > 0));
    }
  } finally {
    await up.close();
    rmSync(output, { recursive: true, force: true });
  }
});
