/**
 * The Hugging Face Hub side of dataset loading: where a split is cached, and how it gets there.
 *
 * Cache layout: `$RLLM_HOME/datasets/<hfDataset>/<config>/<split>.<ext>` (or a `<split>/` folder
 * when the Hub splits it into several Parquet shards). A split is downloaded once, into a temporary
 * name that is renamed into place when complete, so an interrupted download never looks cached.
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

export interface HubFetchOptions {
  endpoint?: string;
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

async function download(url: string, options: HubFetchOptions): Promise<Uint8Array> {
  const response = await get(url, options);
  return new Uint8Array(await response.arrayBuffer());
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
    await download(hubFileUrl(endpoint, hfDataset, "main", file), options),
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
  cacheDir?: string;
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
  const dir = hubCacheDir(request.hfDataset, request.config, request.cacheDir);
  if (request.file) {
    const target = join(dir, `${request.split}${extensionOf(request.file)}`);
    const url = hubFileUrl(endpoint, request.hfDataset, "main", request.file);
    await writeAtomically(target, await download(url, options));
    return target;
  }
  const urls = await parquetShardUrls(endpoint, request, options);
  if (urls.length === 1) {
    const target = join(dir, `${request.split}.parquet`);
    await writeAtomically(target, await download(urls[0]!, options));
    return target;
  }
  // Several shards: fill a temporary folder, then rename it into place whole.
  const target = join(dir, request.split);
  const partial = `${target}.partial-${process.pid}`;
  await rm(partial, { recursive: true, force: true });
  await mkdir(partial, { recursive: true });
  try {
    for (const [i, url] of urls.entries()) {
      await writeFile(
        join(partial, `${String(i).padStart(5, "0")}.parquet`),
        await download(url, options),
      );
    }
    await rename(partial, target);
  } catch (error) {
    await rm(partial, { recursive: true, force: true });
    throw error;
  }
  return target;
}
