/**
 * What a catalog entry is: where a benchmark's rows come from, how a row becomes a Task, and how
 * it is graded and prompted. Its own module, below catalog.ts, so that entries defined in their
 * own files (code.ts, livecodebench.ts) and catalog.ts, which lists them, import it without a
 * cycle.
 */
import type { GraderName } from "../rewards/index.js";
import type { ChatMessage, Task } from "../types/index.js";
import type { Row, RowContext } from "./fields.js";
import type { ZipArchive } from "./zip.js";

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
   * For a dataset published as one Hub config per subject, language or part (C-Eval, MMLU-ProX,
   * hendrycks_math...): a split is every config's rows together, in config-name order, as rLLM's
   * `aggregate_configs` pulls it (`config` is then unused); the configs are those the Hub's Parquet
   * listing names for the split, less `exclude` (MMMLU's "default", which repeats the others).
   * `column`, when given, is where each row that lacks it gets its config's name (rows that carry
   * their subject already, as hendrycks_math's `type`, need none). The Hub cache and a `--data-dir`
   * folder hold such a split as a folder `<split>/` of one file per config (`<config>.jsonl`,
   * `<config>.00000.parquet`; hub.ts configOfFile); a single `<split>.<ext>` file is read as it is.
   */
  allConfigs?: { column?: string; exclude?: readonly string[] };
  /**
   * A second file per split joined onto its rows by a key (BFCL keeps each category's possible
   * answers in possible_answer/<file>): `files` names each split's file in the repo; every row gets
   * the companion row whose `key` equals its own under `field` (absent when none has). In a
   * `--data-dir` folder and in the cache it is `<split>.<field>.<ext>` beside the split's file.
   */
  companion?: { files: Record<string, string>; key: string; field: string };
  /**
   * A zip file of the repo whose members the rows refer to (AA-LCR's document texts): `file` is its
   * path in the repo; it is cached beside the splits as `<name>.zip`, which is also its name in a
   * `--data-dir` folder. `attach` returns the row with what it needs from the archive, before
   * `toTask`; a row the archive cannot serve is a BenchmarkRowError.
   */
  archive?: {
    file: string;
    name: string;
    attach(row: Row, archive: ZipArchive, ctx: RowContext): Row;
  };
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
   * Rows the benchmark leaves out, decided once for every source (Hub, cache, --data-dir): `keep`
   * says whether a row is used, `reason` says in the catalog why the others are not (HLE's image
   * questions, WMT24++'s bad sources). Row positions then count the kept rows only.
   */
  rowFilter?: { reason: string; keep(row: Record<string, unknown>): boolean };
  /**
   * The built-in grader that scores it, by name (`graders` in rewards/index.ts); the evaluator looks
   * it up. "verifier": the episode's own verifier result (harbor.ts's verifierEvaluator).
   */
  grader: GraderName | "verifier";
  /** The system prompt; "" when the benchmark sends none (IFEval's prompts stand alone). */
  systemPrompt: string;
  userPrompt(task: Task): string;
  /**
   * The whole conversation the default agent sends, when it is not `systemPrompt` then
   * `userPrompt(task)`: a multi-turn history whose last message is the user's (MultiChallenge), or
   * a system prompt made per task (BFCL's function docs, HLE's format by answer type).
   * `benchmarkMessages` uses it when present.
   */
  messages?(task: Task): ChatMessage[];
  /** "single-turn": defaultRollout's one chat call; "tool-agent": the built-in tool agent (agents/), which the CLI makes. */
  defaultAgent: "single-turn" | "tool-agent";
  /** Present for benchmarks whose tasks are generated rather than downloaded. */
  generator?: BenchmarkGenerator;
}
