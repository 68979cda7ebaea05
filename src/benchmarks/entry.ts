/**
 * What a catalog entry is: where a benchmark's rows come from, how a row becomes a Task, and how
 * it is graded and prompted. Its own module, below catalog.ts, so that entries defined in their
 * own files (code.ts, livecodebench.ts) and catalog.ts, which lists them, import it without a
 * cycle.
 */
import type { GraderName } from "../rewards/index.js";
import type { Task } from "../types/index.js";

export interface BenchmarkSource {
  /** Hugging Face Hub dataset id. Absent for generated benchmarks. */
  hfDataset?: string;
  /** Hub config (subset) name; "default" when absent. */
  config?: string;
  /** Splits rllm knows for this benchmark, in its own names. */
  splits: string[];
  defaultSplit: string;
  /**
   * A split's file inside the dataset repo (main branch), when the repo holds plain data files. For
   * splits not listed here the Hub's own Parquet conversion (refs/convert/parquet) is used.
   */
  files?: Record<string, string>;
  /** The Hub's name for a split where it differs from ours (AIME's only Hub split is "train"). */
  hfSplits?: Record<string, string>;
  /**
   * For a dataset published as one Hub config per subject or language (C-Eval, MMLU-ProX...): a
   * split is every config's rows together, in config-name order, as rLLM's `aggregate_configs`
   * pulls it (`config` is then unused). Each row that lacks `column` gets its config's name there.
   * The Hub cache and a `--data-dir` folder hold such a split as a folder `<split>/` of one file
   * per config (`<config>.jsonl`, `<config>.00000.parquet`; hub.ts configOfFile); a single
   * `<split>.<ext>` file is read as it is. `exclude`: configs left out (MMMLU's "default", which
   * repeats the others).
   */
  allConfigs?: { column: string; exclude?: readonly string[] };
  /**
   * For a dataset also published as one file of every split (MBPP's mbpp.jsonl): in a
   * `--data-dir` folder, `<name>.<ext>` serves any split that has no file of its own, and
   * `splitOf` says which split a row belongs to (throwing a BenchmarkRowError for a row it cannot
   * place). Row positions are then counted within the split.
   */
  oneFile?: {
    name: string;
    splitOf(row: Record<string, unknown>, index: number): string | undefined;
  };
}

export interface BenchmarkGenerator {
  description: string;
  /** Default number of tasks per split. */
  counts: Record<string, number>;
  /** The first `count` tasks of a split (default: counts[split]); deterministic. */
  generate(split: string, count?: number): Task[];
}

export interface BenchmarkEntry {
  name: string;
  description: string;
  source: BenchmarkSource;
  /**
   * Turns one dataset row into a Task, checking it: a row missing a field throws a
   * BenchmarkRowError naming the benchmark, the row index and the field.
   */
  toTask(row: Record<string, unknown>, index: number, split: string): Task;
  /**
   * The built-in grader that scores it, by name (`graders` in rewards/index.ts); the evaluator looks
   * it up. "verifier": the episode's own verifier result (harbor.ts's verifierEvaluator).
   */
  grader: GraderName | "verifier";
  systemPrompt: string;
  userPrompt(task: Task): string;
  /** "single-turn": defaultRollout's one chat call; "tool-agent": the built-in tool agent (agents/), which the CLI makes. */
  defaultAgent: "single-turn" | "tool-agent";
  /** Present for benchmarks whose tasks are generated rather than downloaded. */
  generator?: BenchmarkGenerator;
}
