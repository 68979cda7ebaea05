/**
 * A stand-in Hugging Face Hub on loopback for the dataset loader's tests: it serves the paths it is
 * given and records every request, so a test can check what was downloaded and that a second load
 * asked nothing. `catalogRoutes` maps a catalog entry's split to the fixture files the loader will
 * ask for, the way benchmarks/hub.ts addresses the Hub: the repo file on main when the entry names
 * one, else the Parquet conversion's listing (of the config, or of every config for an all-configs
 * split) and the shards it points to, plus the split's companion file and the entry's archive.
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

export type HubRoute = () => Promise<{ status?: number; body: Buffer | string }>;

export interface FakeHub {
  url: string;
  requests: string[];
  close(): Promise<void>;
}

export async function fakeHub(routes: Record<string, HubRoute>): Promise<FakeHub> {
  const requests: string[] = [];
  const server: Server = createServer(async (req, res) => {
    requests.push(req.url ?? "");
    const route = routes[req.url ?? ""];
    if (!route) {
      res.writeHead(404).end("not found");
      return;
    }
    const { status, body } = await route();
    res.writeHead(status ?? 200).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A route answering with a file's bytes. */
const serveFile =
  (path: string): HubRoute =>
  async () => ({ body: await readFile(path) });

/** Fixture files for what an entry needs beside its split: the companion file, the archive. */
export interface ExtraFixtures {
  companion?: string;
  archive?: string;
}

/**
 * The routes under which a fake Hub at `hubUrl` serves `fixture` as `entry`'s split (and `extra`
 * as its companion file and archive), each Hub config of the split getting the same file.
 */
function catalogRoutes(
  entry: BenchmarkEntry,
  split: string,
  hubUrl: string,
  fixture: string,
  extra: ExtraFixtures = {},
): Record<string, HubRoute> {
  const { hfDataset, files, hfSplits, allConfigs, config, companion, archive } = entry.source;
  if (!hfDataset) throw new Error(`${entry.name} has no Hub dataset`);
  const routes: Record<string, HubRoute> = {};
  const file = files?.[split];
  const hfSplit = hfSplits?.[split] ?? split;
  if (allConfigs) {
    Object.assign(routes, allConfigsRoutes(hfDataset, hfSplit, hubUrl, fixture));
  } else if (file) {
    routes[`/datasets/${hfDataset}/resolve/main/${file}`] = serveFile(fixture);
  } else {
    const name = config ?? "default";
    const shard = `/shards/${hfDataset}/${name}/${hfSplit}/0000.parquet`;
    routes[
      `/api/datasets/${hfDataset}/parquet/${encodeURIComponent(name)}/${encodeURIComponent(hfSplit)}`
    ] = async () => ({ body: JSON.stringify([`${hubUrl}${shard}`]) });
    routes[shard] = serveFile(fixture);
  }
  if (companion) {
    const companionFile = companion.files[split];
    if (!companionFile || !extra.companion)
      throw new Error(`${entry.name}: no companion for ${split}`);
    routes[`/datasets/${hfDataset}/resolve/main/${companionFile}`] = serveFile(extra.companion);
  }
  if (archive) {
    if (!extra.archive) throw new Error(`${entry.name}: no archive fixture`);
    routes[`/datasets/${hfDataset}/resolve/main/${archive.file}`] = serveFile(extra.archive);
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
  hubUrl: string,
  fixture: string,
): Record<string, HubRoute> {
  const parts = statSync(fixture).isDirectory()
    ? readdirSync(fixture)
        .sort()
        .reverse()
        .map((name) => ({ config: configOfFile(name), path: join(fixture, name) }))
    : [{ config: "fixture", path: fixture }];
  const routes: Record<string, HubRoute> = {};
  const listing: Record<string, Record<string, string[]>> = {};
  for (const { config, path } of parts) {
    const shard = `/shards/${hfDataset}/${config}/${hfSplit}/0000.parquet`;
    listing[config] = { [hfSplit]: [`${hubUrl}${shard}`] };
    routes[shard] = serveFile(path);
  }
  routes[`/api/datasets/${hfDataset}/parquet`] = async () => ({ body: JSON.stringify(listing) });
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
  const routes: Record<string, HubRoute> = {};
  const hub = await fakeHub(routes);
  Object.assign(routes, catalogRoutes(getBenchmark(name), split, hub.url, fixture, extra));
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
