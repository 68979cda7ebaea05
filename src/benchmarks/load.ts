/**
 * Loading benchmark rows and turning them into Tasks. Rows come from, in this order of preference:
 * a local folder the user names (`--data-dir`, laid out `<benchmark>/<split>.<ext>`), the Hub cache
 * under $RLLM_HOME, or a download from the Hub into that cache. Generated benchmarks (countdown)
 * are generated unless the local folder holds a file for them. What an entry's source adds (entry.ts)
 * applies to every place rows come from: a split spanning every Hub config (`allConfigs`) is their
 * rows in config-name order, a companion file is joined onto the rows by its key, and the
 * rowFilter's left-out rows never become tasks (row positions count the kept rows).
 */
import { existsSync } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import type { Task } from "../types/index.js";
import { getBenchmark } from "./catalog.js";
import type { BenchmarkEntry } from "./entry.js";
import type { Row } from "./fields.js";
import {
  ALL_CONFIGS,
  configOfFile,
  DATA_EXTENSIONS,
  type DownloadProgress,
  downloadRepoFile,
  downloadSplit,
  findSplitFile,
  HubDownloadError,
  type HubFetchOptions,
  hfEndpoint,
  hubCacheDir,
  splitCandidates,
} from "./hub.js";
import { isSupported, loadRows } from "./rows.js";
import { openZip, type ZipArchive } from "./zip.js";

export type { Row };

/**
 * Parses a task index list such as "0,3,7-9" (ranges inclusive) into [0, 3, 7, 8, 9]. Order is
 * kept and repeats dropped.
 */
export function parseTaskIndices(spec: string): number[] {
  const MAX_INDICES = 10_000_000;
  const bad = (part: string, why: string) =>
    new Error(`Invalid task indices "${spec}": ${why} in "${part}". Use a list like "0,3,7-9".`);
  if (spec.trim() === "")
    throw new Error(`Invalid task indices "${spec}": empty. Use a list like "0,3,7-9".`);
  const seen = new Set<number>();
  const out: number[] = [];
  const add = (n: number) => {
    if (seen.has(n)) return;
    seen.add(n);
    out.push(n);
    if (out.length > MAX_INDICES)
      throw new Error(`Invalid task indices "${spec}": more than ${MAX_INDICES} indices`);
  };
  for (const raw of spec.split(",")) {
    const part = raw.trim();
    if (part === "") throw bad(raw, "an empty item");
    const range = /^(\d+)\s*-\s*(\d+)$/.exec(part);
    if (range) {
      const lo = Number(range[1]);
      const hi = Number(range[2]);
      if (!Number.isSafeInteger(lo) || !Number.isSafeInteger(hi))
        throw bad(part, "a number too large");
      if (lo > hi) throw bad(part, `a range whose start ${lo} is after its end ${hi}`);
      if (hi - lo >= MAX_INDICES) throw bad(part, `a range of more than ${MAX_INDICES} indices`);
      for (let n = lo; n <= hi; n++) add(n);
      continue;
    }
    if (!/^\d+$/.test(part))
      throw bad(part, "something that is not a non-negative integer or a range a-b");
    const n = Number(part);
    if (!Number.isSafeInteger(n)) throw bad(part, "a number too large");
    add(n);
  }
  return out;
}

export interface LoadBenchmarkOptions {
  /** Split to load; default the benchmark's defaultSplit. */
  split?: string;
  /** A local folder laid out `<benchmark>/<split>.jsonl[.gz]|.parquet|.json`; skips the Hub. */
  dataDir?: string;
  /** Keep at most this many tasks (after `taskIndices`). */
  maxExamples?: number;
  /** Keep only these row positions, in this order (see parseTaskIndices). */
  taskIndices?: number[];
  /** Hub cache root; default `$RLLM_HOME/datasets`. */
  cacheDir?: string;
  /** Never touch the network; default true when HF_HUB_OFFLINE=1. */
  offline?: boolean;
  /** Hub base URL; default RLLM_HF_ENDPOINT, HF_ENDPOINT or https://huggingface.co. */
  hubEndpoint?: string;
  /** Per-request download time limit in milliseconds. */
  timeoutMs?: number;
  /** Told how each Hub download is going (`rllm dataset pull` prints it). */
  onProgress?: (progress: DownloadProgress) => void;
}

function dataDirHelp(name: string, split: string): string {
  return (
    `To use local files instead, pass --data-dir DIR (loadBenchmark option dataDir) where ` +
    `DIR/${name}/${split}.jsonl holds one JSON row per line (.jsonl.gz, .parquet and .json work too).`
  );
}

function splitCheck(entry: BenchmarkEntry, split: string): void {
  if (!entry.source.splits.includes(split)) {
    throw new Error(
      `${entry.name} has no split "${split}"; its splits are: ${entry.source.splits.join(", ")}`,
    );
  }
}

/**
 * Finds (or downloads) the file or folder holding a split, following the order in the module
 * comment; undefined for a generated benchmark with no file of its own.
 */
async function locateSplit(
  entry: BenchmarkEntry,
  split: string,
  options: LoadBenchmarkOptions,
): Promise<string | undefined> {
  if (options.dataDir) {
    const dir = join(options.dataDir, entry.name);
    const found = await findSplitFile(dir, split);
    if (found) return found;
    if (entry.generator) return undefined;
    splitCheck(entry, split);
    const whole = entry.source.oneFile && (await findSplitFile(dir, entry.source.oneFile.name));
    if (whole) return whole;
    throw await missingInDataDir(entry, split, dir, options.dataDir);
  }
  splitCheck(entry, split);
  if (!entry.source.hfDataset) return undefined;
  const { hfSplits, files, config } = entry.source;
  const part = { name: split, hfSplit: hfSplits?.[split] ?? split, file: files?.[split], config };
  return hubSplit(entry, split, part, options);
}

async function missingInDataDir(
  entry: BenchmarkEntry,
  split: string,
  dir: string,
  dataDir: string,
  name = split,
): Promise<Error> {
  const present = await readdir(dir).catch(() => [] as string[]);
  const listing = present.length > 0 ? ` That folder holds: ${present.sort().join(", ")}.` : "";
  return new Error(
    `No file for ${entry.name} split "${split}" under ${dataDir}: looked for ` +
      `${splitCandidates(dir, name).join(", ")}.${listing} ${dataDirHelp(entry.name, split)}`,
  );
}

/** How a download reaches the Hub: the endpoint, time limit and progress the caller gave. */
function hubFetch(options: LoadBenchmarkOptions): HubFetchOptions {
  return {
    endpoint: options.hubEndpoint ?? hfEndpoint(),
    timeoutMs: options.timeoutMs,
    onProgress: options.onProgress,
  };
}

/** What to fetch for a split: our cache name, the Hub's split name, the repo file, the config. */
interface HubPart {
  name: string;
  hfSplit: string;
  file: string | undefined;
  config: string | undefined;
}

/** One part of a split from the Hub: from the cache, else downloaded into it. */
async function hubSplit(
  entry: BenchmarkEntry,
  split: string,
  part: HubPart,
  options: LoadBenchmarkOptions,
): Promise<string> {
  const hfDataset = entry.source.hfDataset!;
  const allConfigs = entry.source.allConfigs;
  const cacheDir = hubCacheDir(hfDataset, allConfigs ? ALL_CONFIGS : part.config, options.cacheDir);
  const cached = await findSplitFile(cacheDir, part.name);
  if (cached) return cached;

  const at = join(cacheDir, part.name);
  const lookedFor = `${at}{${DATA_EXTENSIONS.join(",")}} or ${at}/`;
  const offline = options.offline ?? process.env.HF_HUB_OFFLINE === "1";
  if (offline) {
    throw new Error(
      `${entry.name} split "${split}" is not in the dataset cache and offline mode is on: looked for ` +
        `${lookedFor}. ${dataDirHelp(entry.name, split)}`,
    );
  }
  try {
    return await downloadSplit(
      {
        hfDataset,
        config: part.config,
        hfSplit: part.hfSplit,
        split: part.name,
        file: part.file,
        allConfigs: allConfigs && { exclude: allConfigs.exclude },
        cacheDir: options.cacheDir,
      },
      hubFetch(options),
    );
  } catch (error) {
    if (!(error instanceof HubDownloadError)) throw error;
    throw new Error(
      `Cannot load ${entry.name} split "${split}": it is not in the dataset cache (looked for ` +
        `${lookedFor}) and downloading it from the Hugging Face Hub failed: ${error.message}. ` +
        `Check the network (or set RLLM_HF_ENDPOINT / HF_ENDPOINT to a mirror). ${dataDirHelp(entry.name, split)}`,
      { cause: error },
    );
  }
}

/** The rows of a split's companion file (`source.companion`), from the same place as the split. */
async function companionRows(
  entry: BenchmarkEntry,
  split: string,
  options: LoadBenchmarkOptions,
): Promise<Row[] | undefined> {
  const companion = entry.source.companion;
  if (!companion) return undefined;
  const name = `${split}.${companion.field}`;
  if (options.dataDir) {
    const dir = join(options.dataDir, entry.name);
    const found = await findSplitFile(dir, name);
    if (!found) throw await missingInDataDir(entry, split, dir, options.dataDir, name);
    return loadRows(found);
  }
  const file = companion.files[split];
  if (!file)
    throw new Error(
      `${entry.name}: the catalog names no ${companion.field} file for split "${split}"`,
    );
  const part = { name, hfSplit: split, file, config: entry.source.config };
  return loadRows(await hubSplit(entry, split, part, options));
}

/** The entry's archive (`source.archive`), from --data-dir or the cache, downloaded when missing. */
async function archiveOf(
  entry: BenchmarkEntry,
  options: LoadBenchmarkOptions,
): Promise<ZipArchive | undefined> {
  const archive = entry.source.archive;
  if (!archive) return undefined;
  const fileName = `${archive.name}.zip`;
  const hfDataset = entry.source.hfDataset ?? "(no Hub dataset)";
  if (options.dataDir) {
    const path = join(options.dataDir, entry.name, fileName);
    if (!existsSync(path)) {
      throw new Error(
        `No ${fileName} for ${entry.name} under ${options.dataDir}: looked for ${path}. Its rows ` +
          `need it: ${archive.file} of the Hub dataset ${hfDataset}, saved under that name.`,
      );
    }
    return openZip(path);
  }
  const path = join(hubCacheDir(hfDataset, entry.source.config, options.cacheDir), fileName);
  if (existsSync(path)) return openZip(path);
  if (options.offline ?? process.env.HF_HUB_OFFLINE === "1") {
    throw new Error(
      `${entry.name}'s ${fileName} is not in the dataset cache and offline mode is on: looked for ${path}.`,
    );
  }
  try {
    await downloadRepoFile(hfDataset, archive.file, path, hubFetch(options));
  } catch (error) {
    if (!(error instanceof HubDownloadError)) throw error;
    throw new Error(
      `Cannot load ${entry.name}: its ${archive.file} is not in the dataset cache (looked for ${path}) ` +
        `and downloading it from the Hugging Face Hub failed: ${error.message}.`,
      { cause: error },
    );
  }
  return openZip(path);
}

/** Each row with its companion row (same `key`) under `field`; a key seen twice is an error. */
function joinCompanion(entry: BenchmarkEntry, rows: Row[], companion: Row[]): Row[] {
  const { key, field } = entry.source.companion!;
  const byKey = new Map<unknown, Row>();
  for (const [i, row] of companion.entries()) {
    const value = row[key];
    if (value === undefined || value === null) {
      throw new Error(`${entry.name}: ${field} row ${i} has no "${key}" to join on`);
    }
    if (byKey.has(value))
      throw new Error(`${entry.name}: ${field} rows repeat ${key} ${JSON.stringify(value)}`);
    byKey.set(value, row);
  }
  return rows.map((row) => {
    const match = byKey.get(row[key]);
    return match === undefined ? row : { ...row, [field]: match };
  });
}

/** The Hub cache file (or folder) of a split, or undefined when it is not cached. */
export async function cachedSplit(
  entry: BenchmarkEntry,
  split: string,
  cacheDir?: string,
): Promise<string | undefined> {
  const { hfDataset, allConfigs, config } = entry.source;
  if (!hfDataset) return undefined;
  return findSplitFile(hubCacheDir(hfDataset, allConfigs ? ALL_CONFIGS : config, cacheDir), split);
}

/**
 * Makes sure a split is in the Hub cache, fetching what loadBenchmark would (the split, a
 * companion file, an archive) when it is not: the split's path, and whether it was there already. A failed download is the loader's error (it names the URL and what to do).
 */
export async function pullSplit(
  entry: BenchmarkEntry,
  split: string,
  options: Omit<LoadBenchmarkOptions, "dataDir" | "split"> = {},
): Promise<{ path: string; cached: boolean }> {
  splitCheck(entry, split);
  if (!entry.source.hfDataset) {
    throw new Error(
      `${entry.name} is generated (${entry.generator?.description ?? "no Hub dataset"}); there is nothing to pull`,
    );
  }
  const cached = await cachedSplit(entry, split, options.cacheDir);
  const path = cached ?? (await locateSplit(entry, split, options))!;
  await companionRows(entry, split, options);
  await archiveOf(entry, options);
  return { path, cached: cached !== undefined };
}

/**
 * A split's rows; for an all-configs benchmark (`source.allConfigs`) with a `column`, whose split
 * is a folder of one file per config, each row lacking that column gets its file's config name there.
 */
async function readSplitRows(entry: BenchmarkEntry, path: string): Promise<Row[]> {
  const column = entry.source.allConfigs?.column;
  if (column === undefined || !(await stat(path)).isDirectory()) return loadRows(path);
  const names = (await readdir(path)).filter(isSupported).sort();
  if (names.length === 0) return loadRows(path);
  const rows: Row[] = [];
  for (const name of names) {
    const config = configOfFile(name);
    for (const row of await loadRows(join(path, name))) {
      const has = row[column] !== undefined && row[column] !== null;
      rows.push(has ? row : { ...row, [column]: config });
    }
  }
  return rows;
}

function select<T>(
  items: readonly T[],
  options: LoadBenchmarkOptions,
  what: string,
): { item: T; index: number }[] {
  let picked: { item: T; index: number }[];
  if (options.taskIndices) {
    picked = options.taskIndices.map((index) => {
      const item = items[index];
      if (!Number.isInteger(index) || index < 0 || item === undefined) {
        throw new Error(
          `Task index ${index} is out of range: ${what} has ${items.length} rows (0-${items.length - 1})`,
        );
      }
      return { item, index };
    });
  } else {
    picked = items.map((item, index) => ({ item, index }));
  }
  if (options.maxExamples !== undefined) {
    if (!Number.isInteger(options.maxExamples) || options.maxExamples < 0) {
      throw new Error(`maxExamples must be a non-negative integer, got ${options.maxExamples}`);
    }
    picked = picked.slice(0, options.maxExamples);
  }
  return picked;
}

/**
 * Loads a catalog benchmark as Tasks, each with `dataSource` = the benchmark name and `index` = its
 * row position in the split (kept under taskIndices, so runs can be reproduced).
 */
export async function loadBenchmark(
  name: string,
  options: LoadBenchmarkOptions = {},
): Promise<Task[]> {
  const entry = getBenchmark(name);
  const split = options.split ?? entry.source.defaultSplit;
  const path = await locateSplit(entry, split, options);

  if (path === undefined) {
    if (!entry.generator) {
      throw new Error(`${entry.name} has neither a Hub dataset nor a generator in the catalog`);
    }
    // Generation is prefix-stable, so a maxExamples cut can stop generating early.
    const defaultCount = entry.generator.counts[split];
    const count =
      options.maxExamples !== undefined && !options.taskIndices && defaultCount !== undefined
        ? Math.min(defaultCount, options.maxExamples)
        : defaultCount;
    const tasks = entry.generator.generate(split, count);
    return select(tasks, options, `${entry.name} split "${split}"`).map(({ item }) => item);
  }

  let rows = rowsOfSplit(entry, split, path, await readSplitRows(entry, path));
  const companion = await companionRows(entry, split, options);
  if (companion) rows = joinCompanion(entry, rows, companion);
  const kept = keptRows(entry, split, rows, path);
  const picked = select(kept, options, path);
  const archive = await archiveOf(entry, options);
  return picked.map(({ item, index }) => {
    const row = archive
      ? entry.source.archive!.attach(item, archive, { benchmark: entry.name, split, index })
      : item;
    return entry.toTask(row, index, split);
  });
}

/** The rows the entry's rowFilter keeps; a split it empties is an error that says why. */
function keptRows(entry: BenchmarkEntry, split: string, rows: Row[], from: string): Row[] {
  const filter = entry.rowFilter;
  if (!filter) return rows;
  const kept = rows.filter((row) => filter.keep(row));
  if (kept.length === 0) {
    throw new Error(
      `${from}: none of the ${rows.length} rows of ${entry.name} split "${split}" is used (${filter.reason})`,
    );
  }
  return kept;
}

/**
 * The rows of `split` when `path` is the benchmark's one file of every split (`source.oneFile`);
 * else all of them. Row positions then count within the split, as in the Hub's per-split files.
 */
function rowsOfSplit(entry: BenchmarkEntry, split: string, path: string, rows: Row[]): Row[] {
  const oneFile = entry.source.oneFile;
  if (!oneFile || !isFileOf(path, oneFile.name)) return rows;
  const picked = rows.filter((row, index) => oneFile.splitOf(row, index) === split);
  if (picked.length === 0) {
    throw new Error(`${path}: holds no rows of ${entry.name} split "${split}"`);
  }
  return picked;
}

function isFileOf(path: string, name: string): boolean {
  const base = path.split("/").pop() ?? "";
  return base === name || DATA_EXTENSIONS.some((ext) => base === `${name}${ext}`);
}
