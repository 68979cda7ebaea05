/**
 * The Hugging Face Hub side of dataset loading: where a split is cached, and how it gets there.
 *
 * Cache layout: `$RLLM_HOME/datasets/<hfDataset>/<config>/<split>.<ext>` (or a `<split>/` folder
 * when the Hub splits it into several Parquet shards). A split is downloaded once, into a temporary
 * name that is renamed into place when complete, so an interrupted download never looks cached;
 * nor does one that ended early without the transport noticing (a body closed before its end with
 * no Content-Length) or a page that is not the data (a proxy's sign-in page answered with 200):
 * a Parquet file must begin and end with its magic `PAR1`, and no file may be empty.
 *
 * A dataset published as one config per subject or language (C-Eval, MMLU-ProX...) can be cached
 * whole: `<hfDataset>/all-configs/<split>/<config>.<nnnnn>.parquet`, every config that has the
 * split, as the Hub's Parquet listing (`/api/datasets/<id>/parquet`) names them. The file names
 * carry the config (configOfFile), so rows can be told apart after loading.
 */
import { existsSync, statSync } from "node:fs";
import { mkdir, readdir, rename, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { rllmHome } from "../home.js";

/** File endings rllm reads, in the order a lookup tries them. */
export const DATA_EXTENSIONS = [".jsonl", ".jsonl.gz", ".parquet", ".json"] as const;

export const DEFAULT_HF_ENDPOINT = "https://huggingface.co";

/** The Hub base URL: RLLM_HF_ENDPOINT, else HF_ENDPOINT (huggingface_hub's variable), else the Hub. */
export function hfEndpoint(env: NodeJS.ProcessEnv = process.env): string {
  return (env.RLLM_HF_ENDPOINT || env.HF_ENDPOINT || DEFAULT_HF_ENDPOINT).replace(/\/+$/, "");
}

/** The folder that holds a dataset config's cached splits. */
export function hubCacheDir(
  hfDataset: string,
  config: string | undefined,
  cacheDir: string = join(rllmHome(), "datasets"),
): string {
  return join(cacheDir, ...hfDataset.split("/"), config ?? "default");
}

/** The paths a split may be stored under inside `dir`: `<split>.<ext>` for each ending, then `<split>/`. */
export function splitCandidates(dir: string, split: string): string[] {
  return [...DATA_EXTENSIONS.map((ext) => join(dir, `${split}${ext}`)), join(dir, split)];
}

/** The first candidate that exists (a file, or a non-empty folder), else undefined. */
export async function findSplitFile(dir: string, split: string): Promise<string | undefined> {
  for (const candidate of splitCandidates(dir, split)) {
    if (!existsSync(candidate)) continue;
    const stats = statSync(candidate);
    if (stats.isFile()) return candidate;
    if (stats.isDirectory() && (await readdir(candidate)).length > 0) return candidate;
  }
  return undefined;
}

/** Why a download failed; `url` is the address that failed. */
export class HubDownloadError extends Error {
  readonly url: string;
  constructor(url: string, reason: string) {
    super(`${url}: ${reason}`);
    this.name = "HubDownloadError";
    this.url = url;
  }
}

/** One report on a file being downloaded: `received` of `total` bytes (total when the Hub sent it). */
export interface DownloadProgress {
  url: string;
  /** The cache file it is written to. */
  file: string;
  received: number;
  total?: number;
  done: boolean;
}

export interface HubFetchOptions {
  endpoint?: string;
  /** Called as each file's bytes arrive (at its start, per chunk, and at its end). */
  onProgress?: (progress: DownloadProgress) => void;
  /** Bearer token for gated or private datasets; default $HF_TOKEN. */
  token?: string;
  /** Per-request time limit in milliseconds (default 120 s). */
  timeoutMs?: number;
  fetch?: typeof globalThis.fetch;
}

async function get(url: string, options: HubFetchOptions): Promise<Response> {
  const token = options.token ?? process.env.HF_TOKEN;
  const doFetch = options.fetch ?? globalThis.fetch;
  let response: Response;
  try {
    response = await doFetch(url, {
      headers: token ? { authorization: `Bearer ${token}` } : {},
      signal: AbortSignal.timeout(options.timeoutMs ?? 120_000),
      redirect: "follow",
    });
  } catch (error) {
    // undici hides the socket error (ECONNREFUSED, ENOTFOUND...) in `cause`; it is the useful part.
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : "";
    const message = error instanceof Error ? error.message : String(error);
    throw new HubDownloadError(url, cause ? `${message} (${cause})` : message);
  }
  if (!response.ok) {
    const hint =
      response.status === 401 || response.status === 403
        ? " (a gated or private dataset: set HF_TOKEN)"
        : "";
    throw new HubDownloadError(url, `HTTP ${response.status} ${response.statusText}${hint}`);
  }
  return response;
}

function extensionOf(path: string): string {
  const ext = DATA_EXTENSIONS.find((e) => path.endsWith(e));
  if (!ext) {
    throw new Error(`${path}: rllm reads ${DATA_EXTENSIONS.join(", ")} files only`);
  }
  return ext;
}

/** Writes bytes under a temporary name and renames them into place. */
async function writeAtomically(path: string, bytes: Uint8Array): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const partial = `${path}.partial-${process.pid}`;
  await writeFile(partial, bytes);
  await rename(partial, path);
}

const PARQUET_MAGIC = Buffer.from("PAR1");

/** The module comment's completeness check of a downloaded file; a HubDownloadError when it fails. */
function checkWhole(url: string, file: string, bytes: Uint8Array): Uint8Array {
  if (bytes.byteLength === 0) throw new HubDownloadError(url, "the download is empty");
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (
    file.endsWith(".parquet") &&
    (b.length < 8 ||
      !b.subarray(0, 4).equals(PARQUET_MAGIC) ||
      !b.subarray(-4).equals(PARQUET_MAGIC))
  )
    throw new HubDownloadError(
      url,
      `not a whole Parquet file (${b.length} bytes, without PAR1 at both ends: cut short, or not the data); nothing was cached`,
    );
  return bytes;
}

/**
 * A file's bytes, reported to onProgress as they arrive; a connection lost midway, or bytes that
 * are not a whole file (checkWhole), is a HubDownloadError.
 */
async function download(url: string, file: string, options: HubFetchOptions): Promise<Uint8Array> {
  return checkWhole(url, file, await receive(url, file, options));
}

async function receive(url: string, file: string, options: HubFetchOptions): Promise<Uint8Array> {
  const response = await get(url, options);
  const length = Number(response.headers.get("content-length"));
  // A compressed body's Content-Length counts the compressed bytes; fetch hands over the
  // decompressed ones, so that length is no total for `received`.
  const encoding = response.headers.get("content-encoding");
  const plain = !encoding || encoding === "identity";
  const total = plain && Number.isFinite(length) && length > 0 ? length : undefined;
  const report = options.onProgress;
  try {
    if (!report || !response.body) return new Uint8Array(await response.arrayBuffer());
    const chunks: Uint8Array[] = [];
    let received = 0;
    report({ url, file, received, total, done: false });
    const reader = response.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      received += value.byteLength;
      report({ url, file, received, total, done: false });
    }
    report({ url, file, received, total, done: true });
    return new Uint8Array(Buffer.concat(chunks));
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new HubDownloadError(url, `the download broke off (${message})`);
  }
}

/** Downloads one file of a dataset repo's main branch to `target` (atomically) and returns `target`. */
export async function downloadRepoFile(
  hfDataset: string,
  file: string,
  target: string,
  options: HubFetchOptions = {},
): Promise<string> {
  const endpoint = (options.endpoint ?? hfEndpoint()).replace(/\/+$/, "");
  await writeAtomically(
    target,
    await download(hubFileUrl(endpoint, hfDataset, "main", file), target, options),
  );
  return target;
}

export interface HubSplitRequest {
  hfDataset: string;
  config?: string;
  /** The split's name on the Hub. */
  hfSplit: string;
  /** Our name for the split: the cache file's name. */
  split: string;
  /** The split's file in the repo's main branch, when known. */
  file?: string;
  /** Every config's rows of the split (the module comment); `config` and `file` are then unused. */
  allConfigs?: { exclude?: readonly string[] };
  cacheDir?: string;
}

/** The config name a whole-dataset cache uses (hubCacheDir's `config`). */
export const ALL_CONFIGS = "all-configs";

/**
 * The config a file of an all-configs split holds: its name less the extension and a trailing
 * shard number (`accountant.00000.parquet`, `accountant.jsonl` → "accountant").
 */
export function configOfFile(fileName: string): string {
  const ext = DATA_EXTENSIONS.find((e) => fileName.endsWith(e)) ?? "";
  return fileName.slice(0, fileName.length - ext.length).replace(/\.\d+$/, "");
}

/** The URL of a file in a dataset repo at a revision. */
export function hubFileUrl(
  endpoint: string,
  hfDataset: string,
  revision: string,
  path: string,
): string {
  return `${endpoint}/datasets/${hfDataset}/resolve/${encodeURIComponent(revision)}/${path}`;
}

/**
 * The URLs of the Hub's Parquet conversion of a split. The Hub API lists them
 * (`/api/datasets/<id>/parquet/<config>/<split>`); when that listing is unavailable, the first
 * shard's conventional path on the refs/convert/parquet branch is tried.
 */
async function parquetShardUrls(
  endpoint: string,
  request: HubSplitRequest,
  options: HubFetchOptions,
): Promise<string[]> {
  const config = request.config ?? "default";
  const listing = `${endpoint}/api/datasets/${request.hfDataset}/parquet/${encodeURIComponent(config)}/${encodeURIComponent(request.hfSplit)}`;
  try {
    const body: unknown = await (await get(listing, options)).json();
    if (Array.isArray(body) && body.length > 0 && body.every((u) => typeof u === "string")) {
      return body as string[];
    }
  } catch (error) {
    // A network failure will fail the fallback too; report the listing's error, which is first.
    if (error instanceof HubDownloadError && !/HTTP \d/.test(error.message)) throw error;
  }
  return [
    hubFileUrl(
      endpoint,
      request.hfDataset,
      "refs/convert/parquet",
      `${config}/${request.hfSplit}/0000.parquet`,
    ),
  ];
}

/**
 * Downloads a split into the cache and returns its path: the repo's own file when `file` is given,
 * else the Hub's Parquet conversion (one file, or a folder of shards).
 */
export async function downloadSplit(
  request: HubSplitRequest,
  options: HubFetchOptions = {},
): Promise<string> {
  const endpoint = (options.endpoint ?? hfEndpoint()).replace(/\/+$/, "");
  if (request.allConfigs) {
    const dir = hubCacheDir(request.hfDataset, ALL_CONFIGS, request.cacheDir);
    const files = await allConfigFiles(
      endpoint,
      request,
      request.allConfigs.exclude ?? [],
      options,
    );
    return downloadFolder(join(dir, request.split), files, options);
  }
  const dir = hubCacheDir(request.hfDataset, request.config, request.cacheDir);
  if (request.file) {
    const target = join(dir, `${request.split}${extensionOf(request.file)}`);
    const url = hubFileUrl(endpoint, request.hfDataset, "main", request.file);
    await writeAtomically(target, await download(url, target, options));
    return target;
  }
  const urls = await parquetShardUrls(endpoint, request, options);
  if (urls.length === 1) {
    const target = join(dir, `${request.split}.parquet`);
    await writeAtomically(target, await download(urls[0]!, target, options));
    return target;
  }
  const shard = (i: number) => `${String(i).padStart(5, "0")}.parquet`;
  const files = urls.map((url, i) => ({ url, name: shard(i) }));
  return downloadFolder(join(dir, request.split), files, options);
}

/**
 * Several files: fill a temporary folder, then rename it into place whole. When another process
 * pulling the same split renamed its folder first (the rename finds the target not empty), that
 * folder is as whole as ours — a target only ever appears by such a rename — and is kept.
 */
async function downloadFolder(
  target: string,
  files: readonly { url: string; name: string }[],
  options: HubFetchOptions,
): Promise<string> {
  const partial = `${target}.partial-${process.pid}`;
  await rm(partial, { recursive: true, force: true });
  await mkdir(partial, { recursive: true });
  try {
    for (const { url, name } of files) {
      await writeFile(join(partial, name), await download(url, join(target, name), options));
    }
    await rename(partial, target);
  } catch (error) {
    await rm(partial, { recursive: true, force: true });
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOTEMPTY" || code === "EEXIST") return target;
    throw error;
  }
  return target;
}

/** Every config's Parquet files of the split, from the Hub's listing `{config: {split: [url]}}`, configs in name order. */
async function allConfigFiles(
  endpoint: string,
  request: HubSplitRequest,
  exclude: readonly string[],
  options: HubFetchOptions,
): Promise<{ url: string; name: string }[]> {
  const listing = `${endpoint}/api/datasets/${request.hfDataset}/parquet`;
  const body: unknown = await (await get(listing, options)).json().catch(() => undefined);
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    throw new HubDownloadError(listing, "is not the Hub's {config: {split: [urls]}} listing");
  }
  const files: { url: string; name: string }[] = [];
  for (const config of Object.keys(body).sort()) {
    if (exclude.includes(config)) continue;
    const urls = (body as Record<string, Record<string, unknown> | undefined>)[config]?.[
      request.hfSplit
    ];
    if (!Array.isArray(urls)) continue;
    for (const [i, url] of urls.entries()) {
      if (typeof url !== "string") {
        throw new HubDownloadError(listing, `config "${config}" lists a non-string URL`);
      }
      files.push({ url, name: `${config}.${String(i).padStart(5, "0")}.parquet` });
    }
  }
  if (files.length === 0) {
    throw new HubDownloadError(listing, `lists no config with a "${request.hfSplit}" split`);
  }
  return files;
}
