/**
 * Does `rllm train countdown` learn? The main job end to end on this machine's cores: the recipe's
 * base model (built first if not cached, timed), `rllm eval` of it on the held-out puzzles, RL for
 * a fixed wall-clock budget, `rllm eval` of the last checkpoint, and the curve in between
 * (reward and validation pass@1 per step).
 *
 *   node --import tsx bench/learning.ts [--minutes 15] [--backend local|torch] [--home DIR]
 *                                       [--config FILE] [-- rllm train flags...]
 *
 * Prints the before/after pass@1 (the reference is the same held-out set before RL) and writes
 * bench/results/learning.json (learning-torch.json with --backend torch). Target (issue 6): +20
 * points absolute within 15 minutes on 2 cores.
 *
 * `--backend torch` runs the same job on the torch backend (issue 15): `rllm train countdown
 * --backend torch` and `rllm eval countdown --backend torch`, both through the countdown recipe for
 * torch (the local base exported as a Hugging Face directory); the evaluation before RL serves that
 * recipe's base, the one after it the last checkpoint. Without such a recipe it stops at once.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runEvalCommand } from "../src/cli/eval.js";
import {
  loadTrainConfig,
  runTrainCommand,
  type TrainFlags,
  trainFlagsToConfig,
} from "../src/cli/train.js";
import { loadConfig } from "../src/config/index.js";
import type { EvalResults } from "../src/engine/index.js";
import { ensureCountdownBase } from "../src/recipes/countdown.js";
import { recipeFor } from "../src/recipes/index.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const args = process.argv.slice(2);
const flag = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const minutes = Number(flag("--minutes") ?? 15);
const home = flag("--home");
const configFile = flag("--config");
if (home) process.env.RLLM_HOME = home;
const dash = args.indexOf("--");
const extra = dash >= 0 ? args.slice(dash + 1) : [];
const backend = flag("--backend") ?? "local";
if (backend !== "local" && backend !== "torch") {
  console.error(`--backend takes local or torch, got ${backend}`);
  process.exit(2);
}
if (extra.includes("--backend")) {
  console.error(
    "pass --backend before `--` (bench/learning's own flag), not among rllm train's flags",
  );
  process.exit(2);
}
if (
  !recipeFor({
    benchmark: "countdown",
    backend,
    model: undefined,
    agent: undefined,
    dataDir: undefined,
  })
) {
  console.error(
    `bench/learning --backend ${backend}: this tree has no countdown recipe for the ${backend} backend (rllm train countdown --backend ${backend} from the local countdown base exported as a Hugging Face directory); merge it first`,
  );
  process.exit(2);
}

const results = join(ROOT, "bench", "results");
const out = join(results, `learning-${Date.now()}`);
mkdirSync(out, { recursive: true });
const log = (l: string) => console.error(l);

/** `rllm eval countdown --backend B` of `checkpoint`, or of the recipe's base without one. */
async function evalCheckpoint(checkpoint: string | undefined, name: string): Promise<EvalResults> {
  const output = join(out, name);
  const ev = { backend, attempts: 8, output, seed: 0, ...(checkpoint ? { checkpoint } : {}) };
  await runEvalCommand(
    "countdown",
    loadConfig({ env: {}, flags: { backend: { name: backend }, eval: ev } }),
  );
  return JSON.parse(readFileSync(join(output, "results.json"), "utf8")) as EvalResults;
}

const t0 = performance.now();
const base = await ensureCountdownBase({ log });
const baseSeconds = (performance.now() - t0) / 1000;
// torch: the recipe's base (the local base exported), served by the torch backend
const before = await evalCheckpoint(backend === "local" ? base : undefined, "eval-before");

// extra flags as `--key value` pairs for trainFlagsToConfig (camelCased keys)
const parsed: Record<string, unknown> = {};
for (let i = 0; i < extra.length; i++) {
  const k = extra[i]!.replace(/^--/, "").replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
  const v = extra[i + 1];
  if (v === undefined || v.startsWith("--")) parsed[k] = true;
  else {
    parsed[k] = Number.isNaN(Number(v)) ? v : Number(v);
    i++;
  }
}
const trainOut = join(out, "train");
const flags: TrainFlags = {
  backend,
  output: trainOut,
  maxSeconds: minutes * 60,
  ...(parsed as TrainFlags),
};
const t1 = performance.now();
const r = await runTrainCommand(
  "countdown",
  loadTrainConfig("countdown", {
    ...(configFile ? { file: configFile } : {}),
    env: {},
    flags: trainFlagsToConfig(flags),
  }),
  {
    log,
  },
);
const trainSeconds = (performance.now() - t1) / 1000;
const after = await evalCheckpoint(join(r.lastCheckpoint!, "backend"), "eval-after");

const curve = readFileSync(join(trainOut, "metrics.jsonl"), "utf8")
  .trim()
  .split("\n")
  .map((l) => JSON.parse(l) as Record<string, number>);
const rows = curve.filter((m) => m["val/pass@1"] !== undefined);
// the final validation's record carries no time: that of the last step trained
const lastElapsed = (step: number) =>
  Math.max(0, ...curve.filter((c) => c.step! <= step).map((c) => c["time/elapsed_s"] ?? 0));
console.log("\n| step | elapsed s | reward (mean of last 10 steps) | val pass@1 |");
console.log("|---|---|---|---|");
for (const m of rows) {
  const recent = curve.filter(
    (c) => c.step! <= m.step! && c.step! > m.step! - 10 && c["reward/mean"] !== undefined,
  );
  const reward = recent.length
    ? recent.reduce((a, c) => a + c["reward/mean"]!, 0) / recent.length
    : NaN;
  console.log(
    `| ${m.step}${m.final ? " (final)" : ""} | ${(m["time/elapsed_s"] ?? lastElapsed(m.step!)).toFixed(0)} | ${Number.isNaN(reward) ? "–" : reward.toFixed(3)} | ${(m["val/pass@1"]! * 100).toFixed(1)}% |`,
  );
}
// the curve at whole marks of the budget: the validation nearest each (start, +5, +10, ... min)
const elapsedOf = (m: Record<string, number>) => m["time/elapsed_s"] ?? lastElapsed(m.step!);
const marks = Array.from({ length: Math.floor(minutes / 5) + 1 }, (_, i) => i * 5);
if (rows.length > 0)
  console.log(
    `\nval pass@1 at ${marks
      .map((min) => {
        const m = rows.reduce((a, b) =>
          Math.abs(elapsedOf(b) - min * 60) < Math.abs(elapsedOf(a) - min * 60) ? b : a,
        );
        return `${min} min: ${(m["val/pass@1"]! * 100).toFixed(1)}% (step ${m.step}, ${elapsedOf(m).toFixed(0)} s)`;
      })
      .join("; ")}`,
  );
const gain = ((after.score ?? 0) - (before.score ?? 0)) * 100;
console.log(
  `\nbase model: ${baseSeconds.toFixed(0)} s (0 when cached); RL: ${r.steps} steps in ${trainSeconds.toFixed(0)} s`,
);
console.log(
  `rllm eval countdown (200 held-out, 8 attempts, T=1): pass@1 ${((before.score ?? 0) * 100).toFixed(1)}% → ${((after.score ?? 0) * 100).toFixed(1)}%  (${gain >= 0 ? "+" : ""}${gain.toFixed(1)} points; target +20: ${gain >= 20 ? "PASS" : "FAIL"})`,
);
writeFileSync(
  join(results, backend === "local" ? "learning.json" : `learning-${backend}.json`),
  `${JSON.stringify({ backend, minutes, flags, baseSeconds, trainSeconds, steps: r.steps, before: before.passAtK, after: after.passAtK, gain, curve }, null, 2)}\n`,
);
