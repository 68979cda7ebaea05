/**
 * The local model of two checkouts, timed in one process: a training step (zeroGrad +
 * lossAndGrad, cross-entropy) at B32×T32 and B8×T256 and a generate call (prompt 16, 64 new
 * tokens) at batch 1 and 32, on DEFAULT_GPT_CONFIG. The two sides alternate round by round (and
 * which goes first), so the machine's speed swings, which move a number by up to 2× here from
 * one minute to the next, hit both alike; the ratio after/before is taken per round.
 *
 *   node --import tsx bench/lib/model-ab.ts --before DIR [--after DIR] [--rounds 16] [--reps 4]
 *
 * DIR is a checkout of this repository (e.g. `git worktree add ../before <commit>`, with
 * node_modules linked); --after defaults to this one. Use it when a change to
 * src/backends/local/ must not cost speed. Prints, per case, each side's best and median round
 * and the median after/before ratio with its range.
 */
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { mulberry32 } from "../../src/random.js";

const args = process.argv.slice(2);
const arg = (name: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const before = arg("before");
if (!before) {
  console.error(
    "usage: node --import tsx bench/lib/model-ab.ts --before DIR [--after DIR] [--rounds N] [--reps N]",
  );
  process.exit(2);
}
const after = arg("after") ?? fileURLToPath(new URL("../..", import.meta.url));
const ROUNDS = Number(arg("rounds") ?? 16);
const REPS = Number(arg("reps") ?? 4);

interface LocalModel {
  // biome-ignore lint/suspicious/noExplicitAny: two checkouts' classes, typed by neither
  Gpt: any;
  cfg: { vocabSize: number };
  generate: (model: unknown, o: object) => unknown;
  lossAndGrad: (model: unknown, datums: object[], spec: object) => unknown;
}

/** A checkout's local model (lossAndGrad lives in loss-and-grad.ts since issue 14, model.ts before). */
async function load(dir: string): Promise<LocalModel> {
  const root = join(resolve(dir), "src/backends/local");
  const model = await import(join(root, "model.ts"));
  const gen = await import(join(root, "generate.ts"));
  const glue = existsSync(join(root, "loss-and-grad.ts"))
    ? await import(join(root, "loss-and-grad.ts"))
    : model;
  return {
    Gpt: model.Gpt,
    cfg: model.DEFAULT_GPT_CONFIG,
    generate: gen.generate,
    lossAndGrad: glue.lossAndGrad,
  };
}

const sides = { before: await load(before), after: await load(after) };
type Side = keyof typeof sides;

const cases: { name: string; make: (s: LocalModel) => () => void }[] = [
  ...[
    [32, 32],
    [8, 256],
  ].map(([B, T]) => ({
    name: `train B${B}×T${T}`,
    make: (s: LocalModel) => {
      const m = new s.Gpt(s.cfg, { seed: 0 });
      const rand = mulberry32(1);
      const datums = Array.from({ length: B! }, () => {
        const tokens = Array.from({ length: T! }, () => Math.floor(rand() * s.cfg.vocabSize));
        const zeros = tokens.map(() => 0);
        const lossMask = tokens.map((_, t) => (t === 0 ? 0 : 1));
        return { tokens, lossMask, advantages: zeros, samplingLogprobs: zeros };
      });
      return () => {
        m.zeroGrad();
        s.lossAndGrad(m, datums, { kind: "cross_entropy" });
      };
    },
  })),
  ...[1, 32].map((batch) => ({
    name: `generate batch ${batch}`,
    make: (s: LocalModel) => {
      const m = new s.Gpt(s.cfg, { seed: 0 });
      const rand = mulberry32(2);
      const prompts = Array.from({ length: batch }, () =>
        Array.from({ length: 16 }, () => Math.floor(rand() * s.cfg.vocabSize)),
      );
      let seed = 100;
      return () => void s.generate(m, { prompts, maxTokens: 64, temperature: 1, seed: seed++ });
    },
  })),
];

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(
  `before ${resolve(before)}\nafter  ${resolve(after)}\n${ROUNDS} rounds × ${REPS} reps\n`,
);
console.log(
  "| case | before: best / median round (ms) | after: best / median round (ms) | after/before per round: median [range] |",
);
console.log("|---|---|---|---|");
for (const c of cases) {
  const fns = { before: c.make(sides.before), after: c.make(sides.after) };
  for (const f of Object.values(fns)) for (let i = 0; i < 3; i++) f();
  const rounds: Record<Side, number[]> = { before: [], after: [] };
  const ratios: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const order: Side[] = r % 2 ? ["after", "before"] : ["before", "after"];
    for (const side of order) {
      const ts: number[] = [];
      for (let i = 0; i < REPS; i++) {
        const t0 = performance.now();
        fns[side]();
        ts.push(performance.now() - t0);
      }
      rounds[side].push(median(ts));
    }
    ratios.push(rounds.after[r]! / rounds.before[r]!);
  }
  const side = (s: Side) =>
    `${Math.min(...rounds[s]).toFixed(2)} / ${median(rounds[s]).toFixed(2)}`;
  console.log(
    `| ${c.name} | ${side("before")} | ${side("after")} | ${median(ratios).toFixed(3)} [${Math.min(...ratios).toFixed(3)}–${Math.max(...ratios).toFixed(3)}] |`,
  );
}
