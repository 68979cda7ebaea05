/**
 * `rllm dataset`: the catalog's data.
 *   list                    every row: Hub source, splits (and which are cached), grader, agent
 *   pull NAME               download splits into the Hub cache ($RLLM_HOME/datasets), with progress
 *   show NAME               a row's metadata and its first tasks as the grader and the model see them
 *   from-eval RUN           an eval run's good episodes as SFT rows for `rllm sft` (engine/curate.ts)
 * `rllm eval --list` prints the same table as `list` (catalogTable).
 */
import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { Command, Option } from "commander";
import {
  type BenchmarkEntry,
  benchmarkMessages,
  cachedSplit,
  type DownloadProgress,
  getBenchmark,
  HubDownloadError,
  hfEndpoint,
  listBenchmarks,
  loadBenchmark,
  pullSplit,
} from "../benchmarks/index.js";
import { ConfigError } from "../config/index.js";
import { episodeSftRows, parseFilter } from "../engine/curate.js";
import { Store } from "../store/sqlite.js";
import { type Episode, EpisodeSchema, type Tool, ToolSchema } from "../types/index.js";

/** Where a row's data comes from, in one cell. */
function sourceCell(entry: BenchmarkEntry): string {
  const { hfDataset, config, allConfigs } = entry.source;
  if (!hfDataset) return "generated";
  if (allConfigs) return `${hfDataset} (every config)`;
  return config ? `${hfDataset} (${config})` : hfDataset;
}

/** The catalog as a table, each split marked when it is in the Hub cache (`dataset list`, `eval --list`). */
export async function catalogTable(cacheDir?: string): Promise<string> {
  const header = ["name", "source", "grader", "agent", "splits (* cached)"];
  const rows: string[][] = [];
  for (const entry of listBenchmarks()) {
    const splits: string[] = [];
    for (const split of entry.source.splits) {
      const cached = await cachedSplit(entry, split, cacheDir);
      splits.push(cached ? `${split}*` : split);
    }
    const generated = entry.generator ? " (generated)" : "";
    rows.push([
      entry.name,
      sourceCell(entry),
      entry.grader,
      entry.defaultAgent,
      splits.join(", ") + generated,
    ]);
  }
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c]!.length)));
  const line = (cells: string[]) =>
    cells.map((cell, c) => (c === cells.length - 1 ? cell : cell.padEnd(widths[c]!))).join("  ");
  return [line(header), ...rows.map(line)].join("\n");
}

function humanBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 ** 2) return `${(n / 1024).toFixed(1)} KiB`;
  if (n < 1024 ** 3) return `${(n / 1024 ** 2).toFixed(1)} MiB`;
  return `${(n / 1024 ** 3).toFixed(2)} GiB`;
}

/** Progress on stderr: rewritten in place on a terminal, one line per finished file otherwise. */
function progressPrinter(): (p: DownloadProgress) => void {
  const tty = process.stderr.isTTY === true;
  let last = 0;
  return (p) => {
    const of = p.total !== undefined ? ` / ${humanBytes(p.total)}` : "";
    const text = `  ${p.file}: ${humanBytes(p.received)}${of}`;
    if (tty) {
      const now = Date.now();
      if (!p.done && now - last < 100) return;
      last = now;
      process.stderr.write(`\r\x1b[K${text}${p.done ? "\n" : ""}`);
    } else if (p.done) {
      process.stderr.write(
        `${text} (${p.received}${p.total !== undefined ? `/${p.total}` : ""} bytes)\n`,
      );
    }
  };
}

async function pull(name: string, flags: { split?: string[]; allSplits?: boolean }) {
  const entry = getBenchmark(name);
  if (flags.split && flags.allSplits)
    throw new ConfigError("pass --split S or --all-splits, not both");
  const splits = flags.allSplits
    ? entry.source.splits
    : (flags.split ?? [entry.source.defaultSplit]);
  for (const split of splits) {
    if (!entry.source.splits.includes(split))
      throw new ConfigError(
        `${entry.name} has no split "${split}"; its splits are: ${entry.source.splits.join(", ")}`,
      );
  }
  if (!entry.source.hfDataset) {
    console.log(`${entry.name} is generated (${entry.generator?.description}); nothing to pull`);
    return;
  }
  for (const split of splits) {
    let result: { path: string; cached: boolean };
    try {
      process.stderr.write(`pulling ${entry.name} split "${split}" from ${hfEndpoint()}\n`);
      result = await pullSplit(entry, split, { onProgress: progressPrinter() });
    } catch (error) {
      const download = error instanceof Error ? error.cause : undefined;
      if (!(download instanceof HubDownloadError)) throw error;
      throw new Error(
        `cannot pull ${entry.name} split "${split}" from ${entry.source.hfDataset}: ${download.message}. ` +
          `Check the network; RLLM_HF_ENDPOINT (or HF_ENDPOINT) sets the Hub's address (now ${hfEndpoint()}), ` +
          "and HF_TOKEN the token a gated dataset needs.",
        { cause: error },
      );
    }
    console.log(
      result.cached
        ? `${entry.name} ${split}: already cached at ${result.path}`
        : `${entry.name} ${split}: cached at ${result.path}`,
    );
  }
}

/** A string field of task data, cut for the terminal (LongBench documents run to megabytes). */
function clip(text: string, max: number): string {
  return text.length <= max
    ? text
    : `${text.slice(0, max)}… (${text.length - max} more characters)`;
}

function clipData(value: unknown): unknown {
  if (typeof value === "string") return clip(value, 300);
  if (Array.isArray(value)) return value.map(clipData);
  if (value !== null && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, clipData(v)]));
  return value;
}

async function show(name: string, flags: { split?: string; n: string; dataDir?: string }) {
  const entry = getBenchmark(name);
  const count = Number(flags.n);
  if (!Number.isInteger(count) || count < 0)
    throw new ConfigError(`-n ${flags.n}: must be a non-negative integer`);
  const split = flags.split ?? entry.source.defaultSplit;
  if (!entry.source.splits.includes(split))
    throw new ConfigError(
      `${entry.name} has no split "${split}"; its splits are: ${entry.source.splits.join(", ")}`,
    );
  if (!flags.dataDir && entry.source.hfDataset && !(await cachedSplit(entry, split)))
    throw new ConfigError(
      `${entry.name} split "${split}" is not cached: run rllm dataset pull ${entry.name} --split ${split}, or pass --data-dir DIR`,
    );
  const tasks = await loadBenchmark(entry.name, {
    split,
    maxExamples: count,
    offline: true,
    ...(flags.dataDir ? { dataDir: flags.dataDir } : {}),
  });
  const out: string[] = [
    `${entry.name}: ${entry.description}`,
    `  source: ${sourceCell(entry)}; splits: ${entry.source.splits.join(", ")} (default ${entry.source.defaultSplit})`,
    `  grader: ${entry.grader}; agent: ${entry.defaultAgent}`,
    `  system prompt: ${entry.systemPrompt}`,
  ];
  for (const task of tasks) {
    out.push("", `── ${task.id}`, `data: ${JSON.stringify(clipData(task.data), null, 2)}`);
    const user = benchmarkMessages(entry, task).find((m) => m.role === "user");
    out.push("prompt:", clip(String(user?.content ?? ""), 4000));
  }
  console.log(out.join("\n"));
}

/** The episodes an eval run wrote (`<run>/episodes/*.json`, engine/eval.ts), in file-name order. */
function readEpisodes(run: string): Episode[] {
  const dir = join(run, "episodes");
  let names: string[];
  try {
    names = readdirSync(dir)
      .filter((n) => n.endsWith(".json"))
      .sort();
  } catch {
    throw new ConfigError(
      `${run} is not an eval run: it has no episodes/ folder (rllm eval --output)`,
    );
  }
  return names.map((n) => {
    const path = join(dir, n);
    let json: unknown;
    try {
      json = JSON.parse(readFileSync(path, "utf8"));
    } catch (err) {
      throw new Error(`${path}: not JSON (${(err as Error).message}); remove or repair the file`);
    }
    const parsed = EpisodeSchema.safeParse(json);
    if (!parsed.success)
      throw new Error(`${path}: not an episode (${parsed.error.issues[0]?.message ?? "invalid"})`);
    return parsed.data;
  });
}

/**
 * The tools each traced call offered the model, from the run's traces.db (the gateway's record of
 * the request); nothing when the run has no traces.db.
 */
function withTraceTools<T>(
  run: string,
  use: (toolsOf: (traceId: string) => Tool[] | undefined) => T,
): T {
  const path = join(run, "traces.db");
  if (!existsSync(path)) return use(() => undefined);
  const store = new Store({ path, checkpoints: "sqlite" });
  try {
    return use((traceId) => {
      const tools = store.getTrace(traceId)?.trace.request.tools;
      const parsed = ToolSchema.array().safeParse(tools);
      return parsed.success ? parsed.data : undefined;
    });
  } finally {
    store.close();
  }
}

function fromEval(run: string, flags: { filter: string; output: string }) {
  const keep = parseFilter(flags.filter);
  const episodes = readEpisodes(resolve(run));
  const kept = episodes.filter(keep);
  const rows = withTraceTools(resolve(run), (toolsOf) =>
    kept.flatMap((episode) => episodeSftRows(episode, toolsOf)),
  );
  if (rows.length === 0)
    throw new Error(
      `no SFT rows: ${kept.length} of ${episodes.length} episodes pass --filter "${flags.filter}"${kept.length > 0 ? ", and none has a final response" : ""}`,
    );
  const output = resolve(flags.output);
  const partial = `${output}.partial-${process.pid}`;
  writeFileSync(partial, rows.map((r) => `${JSON.stringify(r)}\n`).join(""));
  renameSync(partial, output);
  console.log(
    `${kept.length} of ${episodes.length} episodes pass "${flags.filter}"; ${rows.length} SFT rows written to ${output}`,
  );
}

export function datasetCommand(): Command {
  const cmd = new Command("dataset").description(
    "The benchmark catalog's data: list, pull from the Hub, show tasks, curate eval runs into SFT rows.",
  );
  cmd
    .command("list")
    .description("every catalog row: Hub source, grader, default agent, splits (* cached)")
    .action(async () => console.log(await catalogTable()));
  cmd
    .command("pull")
    .description("download a benchmark's splits into $RLLM_HOME/datasets (the Hub cache)")
    .argument("<name>", "a catalog benchmark")
    .addOption(
      new Option(
        "--split <split>",
        "a split to pull (again for more; default: the default split)",
      ).argParser((v: string, prev: string[] | undefined) => [...(prev ?? []), v]),
    )
    .option("--all-splits", "pull every split")
    .action(pull);
  cmd
    .command("show")
    .description(
      "a benchmark's metadata and its first tasks: the task data and the rendered prompt",
    )
    .argument("<name>", "a catalog benchmark")
    .option("--split <split>", "the split (default: the benchmark's)")
    .option("-n <count>", "how many tasks", "3")
    .option("--data-dir <dir>", "read <dir>/<name>/<split>.* instead of the Hub cache")
    .action(show);
  cmd
    .command("from-eval")
    .description("an eval run's episodes that pass --filter, as {messages} JSONL for rllm sft")
    .argument("<run>", "an rllm eval output folder (it holds episodes/)")
    .option(
      "--filter <expr>",
      'which episodes: comparisons over reward, isCorrect, terminationReason, steps, ... joined by &&, ||, !, ( ) (e.g. "reward >= 1 && steps <= 3")',
      "isCorrect",
    )
    .requiredOption("--output <file>", "the JSONL file to write")
    .action(fromEval);
  return cmd;
}
