/**
 * The seeded pair generator: every reference answer paired with rewritings of it that are
 * equivalent or not by construction (rules.ts, structures.ts and expressions.ts say why each one
 * is). The one place pairs are made; the same seed gives the same pairs, byte for byte.
 *
 * Per reference: every rule that applies proposes a rewriting; duplicates (same response) are
 * dropped; then a seeded draw keeps up to `PER_SIDE[dataset]` equivalent and as many
 * non-equivalent ones, so GSM8K's 1,319 integers do not drown MATH-500's variety. Each response a
 * checker sees is the rule's own (response rules) or `The final answer is $\boxed{pred}$.`
 */
import { mixSeed, seededPermutation } from "../../src/random.js";
import { expressionRules } from "./expressions.js";
import type { Dataset, Reference } from "./references.js";
import {
  type Gold,
  numericRules,
  presentationRules,
  type Rewrite,
  type RuleFamily,
  revisedResponse,
  wrapResponse,
} from "./rules.js";
import { structureRules } from "./structures.js";

export interface Pair {
  id: string;
  dataset: Dataset;
  gold: string;
  pred: string;
  /** The text both checkers grade: the model's response around `pred`. */
  response: string;
  equivalent: boolean;
  rule: string;
}

/** Rewritings kept per reference and side (equivalent, non-equivalent). */
const PER_SIDE: Record<Dataset, number> = { math500: 12, gsm8k: 2, aime_2024: 10, aime_2025: 10 };

const FAMILIES: RuleFamily[] = [presentationRules, numericRules, structureRules, expressionRules];

/** Every rewriting of one reference, deduplicated, before the draw. */
export function rewritesOf(gold: Gold): Rewrite[] {
  const all = FAMILIES.flatMap((family) => family(gold));
  // The revised answer is a plain wrong value where there is one (not, say, a changed unit).
  const wrong = all.find((r) => r.rule === "off-by-one") ?? all.find((r) => !r.equivalent);
  if (wrong) all.push(revisedResponse(gold.answer, wrong.pred));
  const seen = new Set<string>();
  return all.filter((r) => {
    const key = r.response ?? wrapResponse(r.pred);
    if (seen.has(key) || (r.response === undefined && r.pred.trim() === gold.answer.trim()))
      return false;
    seen.add(key);
    return true;
  });
}

function draw<T>(items: T[], k: number, seed: number): T[] {
  if (items.length <= k) return items;
  return seededPermutation(items.length, seed)
    .slice(0, k)
    .sort((a, b) => a - b)
    .map((i) => items[i]!);
}

/**
 * The pairs of every reference, in reference order. Reference i draws with seeds
 * mixSeed(seed, 2i) and mixSeed(seed, 2i + 1), so a rule added for one kind of answer changes only
 * the pairs of those answers.
 */
export function generatePairs(refs: readonly Reference[], seed: number): Pair[] {
  const pairs: Pair[] = [];
  refs.forEach((ref, i) => {
    const rewrites = rewritesOf(ref);
    const k = PER_SIDE[ref.dataset];
    const equal = rewrites.filter((r) => r.equivalent);
    const differ = rewrites.filter((r) => !r.equivalent);
    const kept = [
      ...draw(equal, k, mixSeed(seed, 2 * i)),
      ...draw(differ, k, mixSeed(seed, 2 * i + 1)),
    ];
    const ids = new Set<string>();
    for (const r of kept) {
      let id = `${ref.id}/${r.rule}`;
      for (let n = 2; ids.has(id); n++) id = `${ref.id}/${r.rule}#${n}`;
      ids.add(id);
      pairs.push({
        id,
        dataset: ref.dataset,
        gold: ref.answer,
        pred: r.pred,
        response: r.response ?? wrapResponse(r.pred),
        equivalent: r.equivalent,
        rule: r.rule,
      });
    }
  });
  return pairs;
}
