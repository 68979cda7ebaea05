/**
 * Reading a data file into rows: JSON Lines (optionally gzipped), JSON (an array, {data: [...]} or
 * one object per line, as BFCL publishes) and Parquet (hyparquet), or every such file in a folder.
 * Parquet values are made plain JSON (toPlain below).
 */
import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { asyncBufferFromFile, parquetReadObjects } from "hyparquet";
import type { Row } from "./fields.js";
import { DATA_EXTENSIONS } from "./hub.js";

function isRow(value: unknown): value is Row {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** Whether rllm reads a file of this name (hub.ts DATA_EXTENSIONS). */
export function isSupported(path: string): boolean {
  return DATA_EXTENSIONS.some((ext) => path.endsWith(ext));
}

function parseJsonLines(text: string, path: string): Row[] {
  const rows: Row[] = [];
  const lines = text.split("\n");
  for (const [i, raw] of lines.entries()) {
    const line = raw.trim();
    if (line === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new Error(`${path}: line ${i + 1} is not valid JSON (${reason})`);
    }
    if (!isRow(value)) {
      throw new Error(`${path}: line ${i + 1} is not a JSON object (each line must hold one row)`);
    }
    rows.push(value);
  }
  return rows;
}

/**
 * A `.json` file: one JSON document (an array of rows or {data: [...]}), or — as BFCL publishes its
 * `.json` files — one JSON object per line, recognised by a text that is not one document but
 * whose first line is a whole object. Anything else reports the document's parse error.
 */
function parseJson(text: string, path: string): Row[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const body = text.trimStart();
    const newline = body.indexOf("\n");
    if (newline > 0 && isJsonObject(body.slice(0, newline))) return parseJsonLines(text, path);
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`${path}: not valid JSON (${reason})`);
  }
  // Accept a bare array or the {data: [...]} wrapper many dataset dumps use.
  const list = Array.isArray(value)
    ? value
    : isRow(value) && Array.isArray(value.data)
      ? value.data
      : undefined;
  if (!list) {
    throw new Error(`${path}: expected a JSON array of rows or an object {"data": [...]}`);
  }
  return list.map((row, i) => {
    if (!isRow(row)) throw new Error(`${path}: row ${i} is not a JSON object`);
    return row;
  });
}

function isJsonObject(text: string): boolean {
  try {
    return isRow(JSON.parse(text));
  } catch {
    return false;
  }
}

/**
 * Parquet values that do not survive JSON: INT64 arrives as bigint (kept as a number when it fits
 * exactly, else a string), timestamps as Date, raw bytes as Uint8Array. Tasks must round-trip JSON.
 */
function toPlain(value: unknown): unknown {
  if (typeof value === "bigint") {
    return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER)
      ? Number(value)
      : value.toString();
  }
  if (value instanceof Date) return value.toISOString();
  if (value instanceof Uint8Array) return Array.from(value);
  if (Array.isArray(value)) return value.map(toPlain);
  if (isRow(value)) {
    const out: Row = {};
    for (const [key, item] of Object.entries(value)) out[key] = toPlain(item);
    return out;
  }
  return value;
}

async function readParquet(path: string): Promise<Row[]> {
  try {
    const file = await asyncBufferFromFile(path);
    const rows = await parquetReadObjects({ file });
    return rows.map((row) => toPlain(row) as Row);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    // hyparquet decodes snappy itself; other codecs (zstd, gzip, brotli) need hyparquet-compressors.
    const hint = /compression|codec|unsupported/i.test(reason)
      ? "; rllm reads uncompressed and snappy Parquet, so re-save it with snappy or as JSONL"
      : "";
    throw new Error(`${path}: cannot read Parquet (${reason})${hint}`);
  }
}

async function loadFile(path: string): Promise<Row[]> {
  if (path.endsWith(".parquet")) return readParquet(path);
  const bytes = await readFile(path);
  let text: string;
  if (path.endsWith(".gz")) {
    try {
      text = gunzipSync(bytes).toString("utf8");
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new Error(`${path}: not a valid gzip file (${reason})`);
    }
  } else {
    text = bytes.toString("utf8");
  }
  if (path.endsWith(".jsonl") || path.endsWith(".jsonl.gz")) return parseJsonLines(text, path);
  if (path.endsWith(".json")) return parseJson(text, path);
  throw new Error(`${path}: unsupported file type; rllm reads ${DATA_EXTENSIONS.join(", ")} files`);
}

/**
 * Reads the rows of a `.jsonl`, `.jsonl.gz`, `.json` (an array or {data: [...]}) or `.parquet` file,
 * or of every such file directly inside a folder, in name order. An empty source is an error: a
 * benchmark with no rows is always a mistake upstream.
 */
export async function loadRows(path: string): Promise<Row[]> {
  let stats: Awaited<ReturnType<typeof stat>>;
  try {
    stats = await stat(path);
  } catch {
    throw new Error(`${path}: no such file or folder`);
  }
  let rows: Row[];
  if (stats.isDirectory()) {
    const names = (await readdir(path)).filter(isSupported).sort();
    if (names.length === 0) {
      throw new Error(`${path}: folder holds no ${DATA_EXTENSIONS.join(", ")} files`);
    }
    rows = [];
    for (const name of names) rows.push(...(await loadRows(join(path, name))));
  } else {
    rows = await loadFile(path);
  }
  if (rows.length === 0) throw new Error(`${path}: no rows (the file is empty)`);
  return rows;
}
