/**
 * Episodes → Datums: the training rows a backend's forwardBackward consumes.
 *
 * A trajectory is a list of LLM calls (steps), each with the prompt ids it was given, the
 * completion ids it sampled and their sampling logprobs. Training on each step separately would
 * repeat the whole conversation once per turn. Instead, steps are merged into one row while each
 * step's prompt begins *exactly* with the row so far (the previous prompt + completion, plus any
 * observations merged already) — the only case where one forward pass sees precisely what the
 * sampler saw at every turn:
 *
 *     row  = prompt₁ ⧺ completion₁ ⧺ obs₂ ⧺ completion₂ ⧺ obs₃ ⧺ completion₃ …
 *     mask =    0…0  ⧺     1…1     ⧺ 0…0  ⧺     1…1     ⧺ 0…0  ⧺     1…1
 *
 * where obsₖ = promptₖ[|row|:] — tool results, user turns and chat-template tokens. Where the
 * prefix breaks (a thinking model whose template drops earlier reasoning, a summarising agent, a
 * sub-agent with its own system prompt), the row is closed and a new one begins with that step's
 * full prompt; every sampled token still lands in exactly one row with mask 1.
 *
 * Alignment (the Datum contract): `lossMask[i]`, `advantages[i]` and `samplingLogprobs[i]` describe
 * `tokens[i]`; advantages and logprobs are 0 where the mask is 0. The backend shifts by one when
 * it predicts token i from tokens < i.
 *
 * Length limits are explicit and counted, never silent. A row's prompt part is its first step's
 * prompt, its response part everything after:
 * - a merge that would make the response part longer than `maxResponseLength` starts a new row
 *   instead (counted as a length split), so later turns are not lost;
 * - a single completion longer than `maxResponseLength` is cut at the limit (counted: rows and
 *   tokens truncated), and its row is closed;
 * - a prompt longer than `maxPromptLength` cannot be cut without changing what the model was
 *   conditioned on, so that step's row is dropped (counted, with the sampled tokens lost) — or,
 *   with `onPromptOverflow: "error"`, it is an error.
 */
import { type Datum, hasPrefix, type Step } from "../types/index.js";

export interface DatumOptions {
  /** Longest prompt part of a row, in tokens (no limit by default). */
  maxPromptLength?: number | undefined;
  /** Longest response part of a row (everything after the first prompt), in tokens. */
  maxResponseLength?: number | undefined;
  /** What to do with a row whose prompt is over `maxPromptLength` (default "drop", counted). */
  onPromptOverflow?: "drop" | "error" | undefined;
  /** Merge steps by prefix (default true); false gives one row per step. */
  mergeSteps?: boolean | undefined;
  /**
   * A step with completion ids but no logprobs is an error (default); with false its logprobs are
   * 0 and counted in `missingLogprobTokens` — only sound for losses that ignore them
   * (cross_entropy).
   */
  requireLogprobs?: boolean | undefined;
}

/** One trajectory to turn into rows: its steps and, per step, one advantage per completion token. */
export interface RowSource {
  groupId: string;
  steps: readonly Step[];
  advantages: readonly (readonly number[])[];
  /** Names the trajectory in error messages, e.g. `episode e1, trajectory "solver"`. */
  label?: string;
}

/** What the row builder did, summed over trajectories. */
export interface DatumStats {
  trajectories: number;
  trajectoriesWithRows: number;
  steps: number;
  /** Steps merged into rows (steps that were dropped or had no tokens are not counted). */
  stepsInRows: number;
  stepsWithoutTokens: number;
  rows: number;
  tokens: number;
  sampledTokens: number;
  /** Tokens the same steps would take as one row each: Σ (|prompt| + |completion kept|). */
  unmergedTokens: number;
  /** Steps whose prompt did not extend the open row, so a new row began. */
  prefixBreaks: number;
  /** Merges refused because the row would exceed maxResponseLength. */
  lengthSplits: number;
  truncatedRows: number;
  truncatedTokens: number;
  /** Rows dropped because their prompt exceeded maxPromptLength, and the sampled tokens lost. */
  droppedRows: number;
  droppedSampledTokens: number;
  missingLogprobTokens: number;
}

export function emptyDatumStats(): DatumStats {
  return {
    trajectories: 0,
    trajectoriesWithRows: 0,
    steps: 0,
    stepsInRows: 0,
    stepsWithoutTokens: 0,
    rows: 0,
    tokens: 0,
    sampledTokens: 0,
    unmergedTokens: 0,
    prefixBreaks: 0,
    lengthSplits: 0,
    truncatedRows: 0,
    truncatedTokens: 0,
    droppedRows: 0,
    droppedSampledTokens: 0,
    missingLogprobTokens: 0,
  };
}

/** Whether `seq` begins with `prefix` (types/tokens.ts, shared with the engine's per-step check). */
export { hasPrefix };

/** The same advantage on every completion token of every step (outcome reward, "broadcast"). */
export function broadcastAdvantage(steps: readonly Step[], advantage: number): number[][] {
  return steps.map((s) => new Array<number>(s.completionIds.length).fill(advantage));
}

/** One advantage per step, repeated over that step's completion tokens (per-step returns). */
export function perStepAdvantages(
  steps: readonly Step[],
  advantages: readonly number[],
): number[][] {
  return steps.map((s, k) => new Array<number>(s.completionIds.length).fill(advantages[k] ?? 0));
}

interface OpenRow {
  tokens: number[];
  lossMask: (0 | 1)[];
  advantages: number[];
  samplingLogprobs: number[];
  /** |prompt| of the row's first step: where its response part begins. */
  promptLength: number;
  weightVersion: number | undefined;
}

/**
 * The rows of one trajectory. `stats` is updated in place (pass one object across trajectories
 * to sum them).
 *
 * A merged row's `weightVersion` is the oldest of its steps' versions: the staleness of a row is
 * that of its stalest token (per-token sampling logprobs keep the importance ratios exact
 * regardless). A row none of whose steps recorded a version gets 0.
 */
export function trajectoryToDatums(
  source: RowSource,
  options: DatumOptions = {},
  stats: DatumStats = emptyDatumStats(),
): Datum[] {
  const merge = options.mergeSteps ?? true;
  const requireLogprobs = options.requireLogprobs ?? true;
  const maxPrompt = options.maxPromptLength;
  const maxResponse = options.maxResponseLength;
  const where = source.label ?? `a trajectory of group ${source.groupId}`;
  const rows: Datum[] = [];
  let cur: OpenRow | null = null;

  const close = () => {
    if (!cur) return;
    rows.push({
      tokens: cur.tokens,
      lossMask: cur.lossMask,
      advantages: cur.advantages,
      samplingLogprobs: cur.samplingLogprobs,
      weightVersion: cur.weightVersion ?? 0,
      groupId: source.groupId,
    });
    stats.rows++;
    stats.tokens += cur.tokens.length;
    for (const m of cur.lossMask) stats.sampledTokens += m;
    cur = null;
  };
  const context = (row: OpenRow, ids: readonly number[]) => {
    for (const id of ids) {
      row.tokens.push(id);
      row.lossMask.push(0);
      row.advantages.push(0);
      row.samplingLogprobs.push(0);
    }
  };
  const sampled = (row: OpenRow, ids: readonly number[], adv: readonly number[], lp: number[]) => {
    ids.forEach((id, t) => {
      row.tokens.push(id);
      row.lossMask.push(1);
      row.advantages.push(adv[t]!);
      row.samplingLogprobs.push(lp[t]!);
    });
  };
  const version = (a: number | undefined, b: number | undefined) =>
    a === undefined ? b : b === undefined ? a : Math.min(a, b);

  stats.trajectories++;
  source.steps.forEach((step, k) => {
    stats.steps++;
    const prompt = step.promptIds;
    const completion = step.completionIds;
    if (completion.length === 0) {
      // A call with no token ids (a text-only hosted API) or an empty completion: nothing to train.
      stats.stepsWithoutTokens++;
      return;
    }
    if (prompt.length === 0) {
      throw new Error(
        `${where}: step ${k} has ${completion.length} completion ids but no prompt ids; a row needs the prompt the tokens were sampled from (is the upstream returning prompt token ids?)`,
      );
    }
    const adv = source.advantages[k] ?? [];
    if (adv.length !== completion.length) {
      throw new Error(
        `${where}: step ${k} has ${completion.length} completion ids but ${adv.length} advantages; they must align`,
      );
    }
    let logprobs = step.logprobs;
    if (logprobs.length !== completion.length) {
      if (logprobs.length === 0 && !requireLogprobs) {
        logprobs = new Array<number>(completion.length).fill(0);
        stats.missingLogprobTokens += completion.length;
      } else {
        throw new Error(
          `${where}: step ${k} has ${completion.length} completion ids but ${logprobs.length} logprobs; the sampler must return a logprob per sampled token (vLLM/SGLang do when asked for logprobs)`,
        );
      }
    }

    // 1. Extend the open row if this prompt begins with it exactly.
    if (cur && merge && hasPrefix(prompt, cur.tokens)) {
      const open: OpenRow = cur;
      const responseAfter = prompt.length + completion.length - open.promptLength;
      if (maxResponse === undefined || responseAfter <= maxResponse) {
        context(open, prompt.slice(open.tokens.length));
        sampled(open, completion, adv, logprobs);
        open.weightVersion = version(open.weightVersion, step.weightVersion);
        stats.stepsInRows++;
        stats.unmergedTokens += prompt.length + completion.length;
        return;
      }
      stats.lengthSplits++;
      close();
    } else if (cur) {
      if (merge) stats.prefixBreaks++;
      close();
    }

    // 2. Otherwise start a new row with this step's full prompt.
    if (maxPrompt !== undefined && prompt.length > maxPrompt) {
      if (options.onPromptOverflow === "error") {
        throw new Error(
          `${where}: step ${k} has a ${prompt.length}-token prompt, over maxPromptLength ${maxPrompt}; raise the limit or use onPromptOverflow "drop"`,
        );
      }
      stats.droppedRows++;
      stats.droppedSampledTokens += completion.length;
      return;
    }
    let keep = completion.length;
    if (maxResponse !== undefined && keep > maxResponse) keep = maxResponse;
    const row: OpenRow = {
      tokens: [],
      lossMask: [],
      advantages: [],
      samplingLogprobs: [],
      promptLength: prompt.length,
      weightVersion: step.weightVersion,
    };
    context(row, prompt);
    sampled(row, completion.slice(0, keep), adv, logprobs);
    stats.stepsInRows++;
    stats.unmergedTokens += prompt.length + keep;
    cur = row;
    if (keep < completion.length) {
      // The next prompt would extend the untruncated completion, not this row: close it.
      stats.truncatedRows++;
      stats.truncatedTokens += completion.length - keep;
      close();
    }
  });
  close();
  if (rows.length > 0) stats.trajectoriesWithRows++;
  return rows;
}

/** Rows for many trajectories, with the summed stats. */
export function buildDatums(
  sources: readonly RowSource[],
  options: DatumOptions = {},
): { datums: Datum[]; stats: DatumStats } {
  const stats = emptyDatumStats();
  const datums: Datum[] = [];
  for (const s of sources) datums.push(...trajectoryToDatums(s, options, stats));
  return { datums, stats };
}

/**
 * The row builder's metrics. `compression_ratio` = unmerged tokens / row tokens (how much prefix
 * merging saved: 1 means nothing merged); `steps_per_row` = steps in rows / rows.
 */
export function datumMetrics(stats: DatumStats): Record<string, number> {
  const ratio = (a: number, b: number) => (b > 0 ? a / b : 0);
  return {
    "datums/rows": stats.rows,
    "datums/tokens": stats.tokens,
    "datums/sampled_tokens": stats.sampledTokens,
    "datums/rows_per_trajectory": ratio(stats.rows, stats.trajectoriesWithRows),
    "datums/steps_per_row": ratio(stats.stepsInRows, stats.rows),
    "datums/compression_ratio": ratio(stats.unmergedTokens, stats.tokens),
    "datums/prefix_breaks": stats.prefixBreaks,
    "datums/length_splits": stats.lengthSplits,
    "datums/truncated_rows": stats.truncatedRows,
    "datums/truncated_tokens": stats.truncatedTokens,
    "datums/dropped_rows": stats.droppedRows,
    "datums/dropped_sampled_tokens": stats.droppedSampledTokens,
    "datums/steps_without_tokens": stats.stepsWithoutTokens,
    "datums/missing_logprob_tokens": stats.missingLogprobTokens,
  };
}
