/**
 * Advantage estimators: from the rewards of a role's groups to one advantage per sample.
 *
 * Every estimator has the same shape, so that users can add their own:
 *
 *     (rewards: number[][], options?) => number[][]
 *
 * `rewards[g]` holds the rewards of group g (the trajectories of one role on one task, in a fixed
 * order); the result has the same shape and order. An estimator sees every group of one role in a
 * batch at once, which is what the batch-level ones (reinforce_plus_plus_baseline, prpo) need.
 *
 * Notation: group g has rewards r₁ … rₙ, mean(r) = (1/n) Σⱼ rⱼ, std(r) the sample standard
 * deviation √(Σⱼ (rⱼ − mean)² / (n − 1)) unless `std: "population"`, ε = 1e-6 unless `epsilon`.
 *
 * Degenerate cases, the same for every estimator that has a baseline:
 * - a group whose rewards are all equal has no learning signal: its advantages are exactly 0
 *   (not (r − mean)/ε, which would amplify rounding error into ±1e-11-sized noise);
 * - a group of one is the extreme case of all-equal: advantage 0. (verl and the Python rllm fall
 *   back to REINFORCE there, A = r; we do not, because that gives a lone sample an advantage on
 *   a different scale from its normalised neighbours. Choose `reinforce` to train on raw rewards.)
 * - a NaN or infinite reward is an error naming its position: a grader that failed must say so,
 *   not turn into a silent zero.
 */
import { allEqual, mean, type StdKind, std } from "./stats.js";

export interface EstimatorOptions {
  /** GRPO only: divide by the group std (default true). `false` is Dr. GRPO. */
  normStd?: boolean;
  /** Added to every std before dividing (default 1e-6, as in verl). */
  epsilon?: number;
  /** Sample (n − 1, default, as TRL and verl via torch.std) or population (n) standard deviation. */
  std?: StdKind;
  /** The role these groups belong to, for estimators that treat roles differently. */
  role?: string;
  /** Anything a custom estimator needs (from the config's `estimatorOptions`). */
  [key: string]: unknown;
}

export type AdvantageEstimator = (rewards: number[][], options?: EstimatorOptions) => number[][];

export const DEFAULT_EPSILON = 1e-6;

/** Throws on the first reward that is not a finite number, naming where it is. */
export function assertFiniteRewards(name: string, rewards: number[][]): void {
  rewards.forEach((group, g) => {
    group.forEach((r, i) => {
      if (typeof r !== "number" || !Number.isFinite(r)) {
        throw new RangeError(
          `advantage estimator "${name}": reward ${i} of group ${g} is ${String(r)}; every reward must be a finite number (check the evaluator: a failed grade should be 0, not NaN)`,
        );
      }
    });
  });
}

const zeros = (n: number): number[] => new Array<number>(n).fill(0);

/**
 * GRPO (Shao et al. 2024, DeepSeekMath §4.1.2, "outcome supervision"):
 *
 *     Âᵢ = (rᵢ − mean(r)) / (std(r) + ε)
 *
 * With `normStd: false` the division is skipped: Âᵢ = rᵢ − mean(r) (that is Dr. GRPO).
 */
export const grpo: AdvantageEstimator = (rewards, options = {}) => {
  assertFiniteRewards("grpo", rewards);
  const eps = options.epsilon ?? DEFAULT_EPSILON;
  const normStd = options.normStd ?? true;
  return rewards.map((r) => {
    if (allEqual(r)) return zeros(r.length);
    const mu = mean(r);
    const sigma = std(r, options.std);
    return r.map((ri) => (normStd ? (ri - mu) / (sigma + eps) : ri - mu));
  });
};

/**
 * Dr. GRPO (Liu et al. 2025, "Understanding R1-Zero-Like Training"): the group mean baseline
 * without the std division, which biases updates towards questions that are too easy or too hard:
 *
 *     Âᵢ = rᵢ − mean(r)
 *
 * The paper's other fix — not dividing a sequence's loss by its own length — is the loss's job
 * (aggregation `seq-mean-token-sum`, see loss.ts).
 */
export const drGrpo: AdvantageEstimator = (rewards, options = {}) => {
  assertFiniteRewards("dr_grpo", rewards);
  return grpo(rewards, { ...options, normStd: false });
};

/**
 * RLOO (Kool et al. 2019; Ahmadian et al. 2024, "Back to Basics"): each sample's baseline is the
 * mean of the other n − 1 samples of its group, so the baseline is independent of the sample:
 *
 *     Âᵢ = rᵢ − (1/(n − 1)) Σ_{j≠i} rⱼ            (= n/(n − 1) · (rᵢ − mean(r)))
 *
 * A group of one has no other sample to form a baseline from: advantage 0 (see the header).
 */
export const rloo: AdvantageEstimator = (rewards) => {
  assertFiniteRewards("rloo", rewards);
  return rewards.map((r) => {
    const n = r.length;
    if (n < 2 || allEqual(r)) return zeros(n);
    let sum = 0;
    for (const rj of r) sum += rj;
    return r.map((ri) => ri - (sum - ri) / (n - 1));
  });
};

/**
 * REINFORCE (Williams 1992) with no baseline: the return is the advantage,
 *
 *     Âᵢ = rᵢ
 *
 * Here, and only here, all-equal groups and groups of one keep their rewards: without a baseline
 * they still carry a signal. (The pipeline's zero-variance filter drops such groups by default;
 * turn it off to train on them.)
 */
export const reinforce: AdvantageEstimator = (rewards) => {
  assertFiniteRewards("reinforce", rewards);
  return rewards.map((r) => [...r]);
};

/**
 * REINFORCE++ with a group baseline (Hu 2025, "REINFORCE++", the "-baseline" variant): subtract
 * the group mean, then whiten over the whole batch of this role — every group passed in this call:
 *
 *     cᵢ = rᵢ − mean_g(r)                   (0 for a group of one or an all-equal group)
 *     Âᵢ = cᵢ / (std_batch(c) + ε)
 *
 * The batch mean of c is exactly 0 (each group's cᵢ sum to 0), so whitening reduces to dividing
 * by the batch std. If every c is 0 (every group all-equal) the advantages are 0.
 */
export const reinforcePlusPlusBaseline: AdvantageEstimator = (rewards, options = {}) => {
  assertFiniteRewards("reinforce_plus_plus_baseline", rewards);
  const eps = options.epsilon ?? DEFAULT_EPSILON;
  const centered = rewards.map((r) => {
    if (allEqual(r)) return zeros(r.length);
    const mu = mean(r);
    return r.map((ri) => ri - mu);
  });
  const flat = centered.flat();
  if (flat.every((c) => c === 0)) return centered;
  const sigma = std(flat, options.std);
  return centered.map((c) => c.map((ci) => ci / (sigma + eps)));
};

/**
 * PRPO (batch-level whitening, rllm's continual-learning post): no per-group baseline; centre and
 * scale by the statistics of the whole batch of this role:
 *
 *     Âᵢ = (rᵢ − mean_batch(r)) / (std_batch(r) + ε)
 *
 * Groups still matter for filtering and metrics, but not for the baseline, so a group of one is
 * an ordinary sample here. An all-equal batch gives advantages 0.
 */
export const prpo: AdvantageEstimator = (rewards, options = {}) => {
  assertFiniteRewards("prpo", rewards);
  const eps = options.epsilon ?? DEFAULT_EPSILON;
  const flat = rewards.flat();
  if (allEqual(flat)) return rewards.map((r) => zeros(r.length));
  const mu = mean(flat);
  const sigma = std(flat, options.std);
  return rewards.map((r) => r.map((ri) => (ri - mu) / (sigma + eps)));
};

/**
 * The reserved estimator name for precomputed per-token advantages (on-policy distillation, SFT
 * as RL): each step carries its own advantages in `step.advantages`, aligned with its
 * completion ids, and they pass through unchanged. It is not a function of rewards, so it is not
 * in the registry; the pipeline handles it.
 */
export const PRECOMPUTED = "precomputed";

/** The built-in estimators, by the names the config uses. */
export const BUILTIN_ESTIMATORS = {
  grpo,
  dr_grpo: drGrpo,
  rloo,
  reinforce,
  reinforce_plus_plus_baseline: reinforcePlusPlusBaseline,
  prpo,
} as const satisfies Record<string, AdvantageEstimator>;

export type BuiltinEstimatorName = keyof typeof BUILTIN_ESTIMATORS;

/** The estimator registry: built-ins plus whatever users register. */
export class EstimatorRegistry {
  readonly #byName = new Map<string, AdvantageEstimator>();

  constructor(initial: Record<string, AdvantageEstimator> = {}) {
    for (const [name, fn] of Object.entries(initial)) this.#byName.set(name, fn);
  }

  /** The estimator called `name`; an unknown name is an error that lists the known ones. */
  get(name: string): AdvantageEstimator {
    const fn = this.#byName.get(name);
    if (!fn) {
      const hint =
        name === PRECOMPUTED
          ? ` ("${PRECOMPUTED}" is handled by the pipeline, not called as an estimator)`
          : "; add one with estimators.register(name, fn)";
      throw new Error(
        `unknown advantage estimator "${name}"; known: ${this.names().join(", ")}${hint}`,
      );
    }
    return fn;
  }

  has(name: string): boolean {
    return this.#byName.has(name) || name === PRECOMPUTED;
  }

  /**
   * Adds an estimator. Registering a name that exists is an error unless `replace: true`, so that
   * a typo cannot silently shadow a built-in.
   */
  register(name: string, fn: AdvantageEstimator, opts: { replace?: boolean } = {}): void {
    if (!name) throw new Error("an estimator needs a non-empty name");
    if (name === PRECOMPUTED) throw new Error(`"${PRECOMPUTED}" is a reserved estimator name`);
    if (typeof fn !== "function") throw new TypeError(`estimator "${name}" must be a function`);
    if (this.#byName.has(name) && !opts.replace) {
      throw new Error(
        `an advantage estimator called "${name}" is already registered; pass { replace: true } to replace it`,
      );
    }
    this.#byName.set(name, fn);
  }

  names(): string[] {
    return [...this.#byName.keys()];
  }
}

/** The process-wide registry the pipeline reads (public API: `estimators.get`, `.register`). */
export const estimators = new EstimatorRegistry(BUILTIN_ESTIMATORS);

/** Which estimator a role uses: its own entry in `estimatorByRole`, else the default. */
export function estimatorForRole(
  role: string,
  choice: { estimator: string; estimatorByRole?: Record<string, string> | undefined },
): string {
  return choice.estimatorByRole?.[role] ?? choice.estimator;
}

/**
 * Discounted returns of one trajectory's per-step rewards, so a step's value reflects what came
 * after it:
 *
 *     G_t = r_t + γ·G_{t+1},   G_T = r_T        (G_t = Σ_{k≥t} γ^{k−t} r_k)
 */
export function discountedReturns(stepRewards: readonly number[], gamma: number): number[] {
  if (!(gamma >= 0 && gamma <= 1)) throw new RangeError(`gamma must be in [0, 1], got ${gamma}`);
  const out = new Array<number>(stepRewards.length);
  let g = 0;
  for (let t = stepRewards.length - 1; t >= 0; t--) {
    g = stepRewards[t]! + gamma * g;
    out[t] = g;
  }
  return out;
}

/**
 * On-policy distillation (Agarwal et al. 2024, GKD; Thinking Machines' "On-Policy Distillation"):
 * the per-token advantage is the teacher's log-probability of the student's sampled token minus
 * the student's, i.e. the negative per-token reverse KL, scaled and optionally clipped:
 *
 *     Â_t = clip(coef · (log π_teacher(y_t) − log π_student(y_t)), −clip, clip)
 *
 * Store the result in `step.advantages` and choose the `precomputed` estimator for the role.
 */
export function distillationAdvantages(
  teacherLogprobs: readonly number[],
  studentLogprobs: readonly number[],
  options: { coef?: number; clip?: number } = {},
): number[] {
  if (teacherLogprobs.length !== studentLogprobs.length) {
    throw new RangeError(
      `teacher has ${teacherLogprobs.length} logprobs but the student ${studentLogprobs.length}; they must be for the same sampled tokens`,
    );
  }
  const coef = options.coef ?? 1;
  const clip = options.clip ?? Number.POSITIVE_INFINITY;
  return teacherLogprobs.map((lt, t) => {
    const a = coef * (lt - studentLogprobs[t]!);
    return Math.min(clip, Math.max(-clip, a));
  });
}
