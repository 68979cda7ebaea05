/** `rllm harness install|list` and `--harness` on eval/train: names checked, exclusions, the list's states. */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { loadConfig } from "../config/index.js";
import { evalFlagsToConfig, runEvalCommand } from "./eval.js";
import { EVAL_FLAGS, TRAIN_FLAGS } from "./flag-tables.js";
import { flagLayer } from "./flags.js";
import { harnessList, harnessRollout, installNames } from "./harness.js";
import { runTrainCommand } from "./train.js";

const home = mkdtempSync(join(tmpdir(), "rllm-harness-cli-"));
after(() => rmSync(home, { recursive: true, force: true }));

test("install names: given, --all, or an error listing them", () => {
  assert.deepEqual(installNames(["opencode"], false), ["opencode"]);
  assert.deepEqual(installNames([], true), [
    "claude-code",
    "codex",
    "gemini-cli",
    "opencode",
    "qwen-code",
  ]);
  assert.throws(
    () => installNames([], false),
    /name the harnesses \(claude-code, codex, gemini-cli, opencode, qwen-code\) or pass --all/,
  );
  assert.throws(() => installNames(["opencode"], true), /names or --all, not both/);
  assert.throws(
    () => installNames(["claude"], false),
    /unknown harness "claude"; the harnesses are claude-code/,
  );
});

test("list: each harness with its pinned package and where it is (not) installed", () => {
  const lines = harnessList({ RLLM_HOME: home });
  assert.equal(lines.length, 5);
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
    /--harness claude: unknown harness; the harnesses are claude-code, codex, gemini-cli, opencode, qwen-code/,
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
