/**
 * The one stand-in Hugging Face Hub of the tests (the dataset loader's, `rllm dataset`'s): a server
 * on loopback that answers the paths it is given and records every request path, so a test can
 * check what was downloaded and that a second load asked nothing. A route is a function of the
 * Hub's own URL (listings point at files on the same server) that answers a body, an HTTP status
 * (a 403 for a gated dataset), or a body cut off midway (`cutAfter`: the connection drops after
 * that many bytes of a body announced whole); an unknown path is a 404, as on the Hub;
 * `unreachableHubUrl` is an address where nothing listens. `loadFromFakeHub` serves a catalog
 * entry's fixture files under the paths benchmarks/hub.ts asks for (`catalogRoutes`): the repo file
 * on main when the entry names one, else the Parquet conversion's listing (of the config, or of
 * every config for an all-configs split) and the shards it points to, plus the split's companion
 * file and the entry's archive.
 */
import { readdirSync, statSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getBenchmark } from "../benchmarks/catalog.js";
import type { BenchmarkEntry } from "../benchmarks/entry.js";
import { configOfFile } from "../benchmarks/hub.js";
import { loadBenchmark } from "../benchmarks/load.js";
import type { Task } from "../types/index.js";

export interface HubReply {
  status?: number;
  body: Buffer | string;
  /** Send only this many bytes of the body, then drop the connection. */
  cutAfter?: number;
  /** More response headers (a CDN's content-encoding), over the announced content-length. */
  headers?: Record<string, string>;
}

/** One path's answer; `hubUrl` is the fake Hub's base URL. */
export type HubRoute = (hubUrl: string) => HubReply | Promise<HubReply>;

export interface FakeHub {
  url: string;
  /** Every request's path and query, in order. */
  requests: string[];
  close(): Promise<void>;
}

export async function fakeHub(routes: Record<string, HubRoute>): Promise<FakeHub> {
  const requests: string[] = [];
  let url = "";
  const server: Server = createServer(async (req, res) => {
    requests.push(req.url ?? "");
    const route = routes[req.url ?? ""];
    if (!route) {
      res.writeHead(404).end("not found");
      return;
    }
    const { status, body, cutAfter, headers } = await route(url);
    const bytes = Buffer.from(body);
    // The length is announced, as the Hub's file server does: download progress reports a total.
    res.writeHead(status ?? 200, { "content-length": bytes.length, ...headers });
    if (cutAfter === undefined) {
      res.end(bytes);
      return;
    }
    res.write(bytes.subarray(0, cutAfter), () => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A route answering with a file's bytes. */
export const fileRoute =
  (path: string): HubRoute =>
  async () => ({ body: await readFile(path) });

/** A route answering JSON, made from the Hub's URL (a listing of files on the same server). */
export const jsonRoute =
  (value: (hubUrl: string) => unknown): HubRoute =>
  (hubUrl) => ({ body: JSON.stringify(value(hubUrl)) });

/** A loopback address with nothing listening: connecting fails at once, with no network used. */
export async function unreachableHubUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

/** Fixture files for what an entry needs beside its split: the companion file, the archive. */
export interface ExtraFixtures {
  companion?: string;
  archive?: string;
}

/**
 * The routes under which a fake Hub serves `fixture` as `entry`'s split (and `extra` as its
 * companion file and archive).
 */
function catalogRoutes(
  entry: BenchmarkEntry,
  split: string,
  fixture: string,
  extra: ExtraFixtures = {},
): Record<string, HubRoute> {
  const { hfDataset, files, hfSplits, allConfigs, config, companion, archive } = entry.source;
  if (!hfDataset) throw new Error(`${entry.name} has no Hub dataset`);
  const routes: Record<string, HubRoute> = {};
  const file = files?.[split];
  const hfSplit = hfSplits?.[split] ?? split;
  if (allConfigs) {
    Object.assign(routes, allConfigsRoutes(hfDataset, hfSplit, fixture));
  } else if (file) {
    routes[`/datasets/${hfDataset}/resolve/main/${file}`] = fileRoute(fixture);
  } else {
    const name = config ?? "default";
    const shard = `/shards/${hfDataset}/${name}/${hfSplit}/0000.parquet`;
    routes[
      `/api/datasets/${hfDataset}/parquet/${encodeURIComponent(name)}/${encodeURIComponent(hfSplit)}`
    ] = jsonRoute((hubUrl) => [`${hubUrl}${shard}`]);
    routes[shard] = fileRoute(fixture);
  }
  if (companion) {
    const companionFile = companion.files[split];
    if (!companionFile || !extra.companion)
      throw new Error(`${entry.name}: no companion for ${split}`);
    routes[`/datasets/${hfDataset}/resolve/main/${companionFile}`] = fileRoute(extra.companion);
  }
  if (archive) {
    if (!extra.archive) throw new Error(`${entry.name}: no archive fixture`);
    routes[`/datasets/${hfDataset}/resolve/main/${archive.file}`] = fileRoute(extra.archive);
  }
  return routes;
}

/**
 * The Hub's whole-dataset Parquet listing `{config: {split: [urls]}}` and the files it points to,
 * for an all-configs split: a fixture folder of `<config>.NNNNN.parquet` files (the cache's layout)
 * is one config per file, listed in reverse name order (the loader sorts); a single fixture file is
 * one config named "fixture".
 */
function allConfigsRoutes(
  hfDataset: string,
  hfSplit: string,
  fixture: string,
): Record<string, HubRoute> {
  const parts = statSync(fixture).isDirectory()
    ? readdirSync(fixture)
        .sort()
        .reverse()
        .map((name) => ({ config: configOfFile(name), path: join(fixture, name) }))
    : [{ config: "fixture", path: fixture }];
  const routes: Record<string, HubRoute> = {};
  const shards: Record<string, string> = {};
  for (const { config, path } of parts) {
    shards[config] = `/shards/${hfDataset}/${config}/${hfSplit}/0000.parquet`;
    routes[shards[config]] = fileRoute(path);
  }
  routes[`/api/datasets/${hfDataset}/parquet`] = jsonRoute((hubUrl) =>
    Object.fromEntries(
      Object.entries(shards).map(([config, shard]) => [
        config,
        { [hfSplit]: [`${hubUrl}${shard}`] },
      ]),
    ),
  );
  return routes;
}

/**
 * Loads `name`'s split the way a user without --data-dir does, from a fake Hub (RLLM_HF_ENDPOINT
 * pointed at it) serving the fixture files into an empty cache; returns the tasks and the requests.
 */
export async function loadFromFakeHub(
  name: string,
  split: string,
  fixture: string,
  extra: ExtraFixtures = {},
): Promise<{ tasks: Task[]; requests: string[] }> {
  const hub = await fakeHub(catalogRoutes(getBenchmark(name), split, fixture, extra));
  const cacheDir = await mkdtemp(join(tmpdir(), "rllm-fake-hub-"));
  const previous = process.env.RLLM_HF_ENDPOINT;
  process.env.RLLM_HF_ENDPOINT = hub.url;
  try {
    const tasks = await loadBenchmark(name, { split, cacheDir });
    return { tasks, requests: [...hub.requests] };
  } finally {
    if (previous === undefined) delete process.env.RLLM_HF_ENDPOINT;
    else process.env.RLLM_HF_ENDPOINT = previous;
    await hub.close();
    await rm(cacheDir, { recursive: true, force: true });
  }
}
