/**
 * bench/sampler — a training step's generation on the local model (generate.ts, one thread): the
 * countdown recipe's batch shape, G attempts at each of P tasks in one batched call, the way the
 * local sampler receives a step's requests (the same prompt once per request).
 *
 *   node --import tsx bench/sampler.ts [--tasks 64] [--group 4] [--reps 7] [--checkpoint DIR]
 *
 * Reference, in the same process: the same number of sequences with every prompt distinct (P·G
 * different puzzles), which share nothing — so the ratio is what sharing a group's prefill saves.
 * Both use the recipe's model (d128, 2 layers, maxSeqLen 96; the base checkpoint when
 * `--checkpoint` is given, else a fresh init), its prompts (`3 7 12 -> 25` in the chat format) and
 * its sampling (T = 1, 40 tokens at most, stop at <|im_end|>). Printed: ms per call (median),
 * tokens sampled, and the phase profile (Gpt.profile, profile.ts) of each, so the decode step's
 * attention shows apart from the linear layers.
 */
import { renderChat } from "../src/backends/local/chat-format.js";
import { generate } from "../src/backends/local/generate.js";
import {
  DEFAULT_GPT_CONFIG,
  Gpt,
  type GptConfig,
  type PhaseProfile,
} from "../src/backends/local/model.js";
import { EOS_TOKEN_IDS } from "../src/backends/local/tokenizer.js";
import { loadLocalCheckpoint } from "../src/backends/local/weights.js";
import {
  COUNTDOWN_RECIPE,
  countdownPrompt,
  countdownRecipeTasks,
} from "../src/recipes/countdown.js";
import { markdownTable } from "./lib/stats.js";

const argv = process.argv.slice(2);
function arg(name: string, dflt: number): number {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? Number(argv[i + 1]) : dflt;
}
const ci = argv.indexOf("--checkpoint");
const checkpoint = ci >= 0 ? argv[ci + 1] : undefined;
const P = arg("tasks", 64);
const G = arg("group", 4);
const REPS = arg("reps", 7);

const config: GptConfig = { ...DEFAULT_GPT_CONFIG, ...COUNTDOWN_RECIPE.model };
const model = new Gpt(config, { seed: COUNTDOWN_RECIPE.initSeed });
if (checkpoint) model.paramData.set((await loadLocalCheckpoint(checkpoint)).params);

const promptOf = (t: Parameters<typeof countdownPrompt>[0]) =>
  renderChat([{ role: "user", content: countdownPrompt(t) }], { addGenerationPrompt: true });
const tasks = countdownRecipeTasks("train", P * G);
const grouped = tasks.slice(0, P).flatMap((t) => Array.from({ length: G }, () => promptOf(t)));
const distinct = tasks.map(promptOf);

interface Result {
  ms: number;
  tokens: number;
  phases: Record<string, number>;
}

function measure(prompts: number[][]): Result {
  const run = (seed: number) =>
    generate(model, {
      prompts,
      maxTokens: COUNTDOWN_RECIPE.maxTokens,
      temperature: 1,
      stopTokenIds: [...EOS_TOKEN_IDS],
      seed,
    });
  run(0);
  const times: number[] = [];
  let tokens = 0;
  for (let i = 0; i < REPS; i++) {
    const t0 = performance.now();
    tokens += run(1 + i).reduce((a, s) => a + s.tokenIds.length, 0);
    times.push(performance.now() - t0);
  }
  const prof: PhaseProfile = { ms: {} };
  model.profile = prof;
  const t0 = performance.now();
  run(1000);
  const total = performance.now() - t0;
  model.profile = undefined;
  const inModel = Object.values(prof.ms).reduce((a, b) => a + b, 0);
  const ms = times.sort((a, b) => a - b)[times.length >> 1]!;
  return { ms, tokens: tokens / REPS, phases: { ...prof.ms, "sampling + rest": total - inModel } };
}

// alternate the two, twice, and keep each one's better round (the machine is shared)
const rounds = [0, 1].map(() => ({ grouped: measure(grouped), distinct: measure(distinct) }));
const best = (k: "grouped" | "distinct") => rounds.map((r) => r[k]).sort((a, b) => a.ms - b.ms)[0]!;
const g = best("grouped");
const d = best("distinct");
console.log(
  `\n## A training step's generation: ${P} tasks × ${G} attempts (${P * G} sequences, one thread${checkpoint ? `, ${checkpoint}` : ", fresh init"})\n`,
);
console.log(
  markdownTable(
    ["batch", "ms per call (median)", "tokens sampled", "tokens/s", "vs distinct prompts"],
    [
      [
        `${P} prompts × ${G} (shared prefill)`,
        g.ms.toFixed(0),
        g.tokens.toFixed(0),
        ((g.tokens / g.ms) * 1000).toFixed(0),
        `${(d.ms / g.ms).toFixed(2)}× faster`,
      ],
      [
        `${P * G} distinct prompts`,
        d.ms.toFixed(0),
        d.tokens.toFixed(0),
        ((d.tokens / d.ms) * 1000).toFixed(0),
        "1.00",
      ],
    ],
  ),
);
const keys = [...new Set([...Object.keys(g.phases), ...Object.keys(d.phases)])].sort();
console.log("\nWhere the time goes (ms, one profiled call each):\n");
console.log(
  markdownTable(
    ["phase", "shared prefill", "distinct prompts"],
    keys.map((k) => [k, (g.phases[k] ?? 0).toFixed(1), (d.phases[k] ?? 0).toFixed(1)]),
  ),
);
