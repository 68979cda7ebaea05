/**
 * The tensors of a worker call, as python/PROTOCOL.md carries them: a safetensors file in the
 * worker's exchange directory, named by a `"tensors"` field of the params or the result. Token
 * batches are flat: `tokens` is every row concatenated and `lengths` (int32, one per row) splits
 * them; per-token arrays (`logprobs`, `loss_mask`, ...) are flat the same way.
 *
 *   const { tokens, lengths } = flatRows(rows);                      // Int32Array, Int32Array
 *   const { result, tensors } = await callWithTensors(worker, "compute_logprobs", {}, {
 *     tokens: int32(tokens), lengths: int32(lengths),
 *   }, { timeoutMs });
 *   const lp = splitRows(expectTensor(tensors, "logprobs", "F32", "compute_logprobs"), lengths);
 *
 * Decided here, once: the request's file and the reply's are deleted when the call ends, however
 * it ends; a reply file outside the exchange directory, or a tensor missing or of another dtype
 * than the method's contract, is an error naming the method and the tensor.
 */
import { randomBytes } from "node:crypto";
import { rm } from "node:fs/promises";
import { join, relative, resolve, sep } from "node:path";
import {
  type Dtype,
  readSafetensorsFile,
  type Tensor,
  writeSafetensorsFile,
} from "../checkpoint/safetensors.js";
import type { CallOptions, WorkerProcess } from "./worker.js";

export type Tensors = Record<string, Tensor>;

/** A 1-d int32 tensor. */
export function int32(values: ArrayLike<number>): Tensor {
  const data = Int32Array.from(values);
  return { dtype: "I32", shape: [data.length], data };
}

/** A 1-d float32 tensor. */
export function float32(values: ArrayLike<number>): Tensor {
  const data = Float32Array.from(values);
  return { dtype: "F32", shape: [data.length], data };
}

/** A 1-d int64 tensor (seeds: integers up to 2^53). */
export function int64(values: ArrayLike<number>): Tensor {
  const data = BigInt64Array.from(Array.from(values, (v) => BigInt(v)));
  return { dtype: "I64", shape: [data.length], data };
}

/** Rows concatenated, and their lengths. */
export function flatRows(rows: readonly (readonly number[])[]): {
  values: Float64Array;
  lengths: Int32Array;
} {
  const lengths = Int32Array.from(rows, (r) => r.length);
  const values = new Float64Array(lengths.reduce((a, n) => a + n, 0));
  let at = 0;
  for (const r of rows) {
    values.set(r, at);
    at += r.length;
  }
  return { values, lengths };
}

/** Flat values split into rows of `lengths` (which must add up to the values' count). */
export function splitRows(values: ArrayLike<number>, lengths: ArrayLike<number>): number[][] {
  let total = 0;
  for (let i = 0; i < lengths.length; i++) total += lengths[i]!;
  if (total !== values.length)
    throw new RangeError(
      `the row lengths add up to ${total} but there are ${values.length} values`,
    );
  const rows: number[][] = [];
  let at = 0;
  for (let i = 0; i < lengths.length; i++) {
    const n = lengths[i]!;
    rows.push(Array.from({ length: n }, (_, k) => values[at + k]!));
    at += n;
  }
  return rows;
}

/** Tensor `name` of `tensors` as `dtype`, or an error naming the method, the tensor and its dtype. */
export function expectTensor(
  tensors: Tensors,
  name: string,
  dtype: "F32",
  method: string,
): Float32Array;
export function expectTensor(
  tensors: Tensors,
  name: string,
  dtype: "I32",
  method: string,
): Int32Array;
export function expectTensor(tensors: Tensors, name: string, dtype: Dtype, method: string) {
  const t = tensors[name];
  if (!t)
    throw new Error(
      `the worker's ${method} reply lacks tensor "${name}" (it has ${Object.keys(tensors).join(", ") || "none"})`,
    );
  if (t.dtype !== dtype)
    throw new Error(
      `the worker's ${method} reply has "${name}" as ${t.dtype}; the protocol says ${dtype}`,
    );
  return t.data;
}

/** Writes `tensors` to a fresh file in the exchange dir; returns its path. */
export async function writeExchangeFile(
  worker: Pick<WorkerProcess, "exchange">,
  tag: string,
  tensors: Tensors,
): Promise<string> {
  const path = join(worker.exchange, `${tag}-${randomBytes(6).toString("hex")}.safetensors`);
  await writeSafetensorsFile(path, tensors);
  return path;
}

/** Reads the reply file `path`, which must lie in the exchange dir. */
export async function readExchangeFile(
  worker: Pick<WorkerProcess, "exchange">,
  path: unknown,
  method: string,
): Promise<Tensors> {
  const inside = typeof path === "string" && isInside(worker.exchange, path);
  if (!inside)
    throw new Error(
      `the worker's ${method} reply names tensors at ${JSON.stringify(path)}, not a file in its exchange directory ${worker.exchange}`,
    );
  return (await readSafetensorsFile(path as string)).tensors;
}

function isInside(dir: string, path: string): boolean {
  const rel = relative(resolve(dir), resolve(path));
  return rel !== "" && !rel.startsWith("..") && !rel.startsWith(sep);
}

/**
 * `method` with `tensors` written to a request file (`params.tensors`), and the reply's tensors
 * when its result names a file (`result.tensors`); both files are gone when it resolves or rejects.
 */
export async function callWithTensors(
  worker: Pick<WorkerProcess, "exchange" | "call">,
  method: string,
  params: Record<string, unknown>,
  tensors: Tensors | null,
  options: CallOptions,
): Promise<{ result: Record<string, unknown>; tensors: Tensors | null }> {
  const request = tensors ? await writeExchangeFile(worker, method, tensors) : undefined;
  let reply: string | undefined;
  try {
    const result = await worker.call(
      method,
      request ? { ...params, tensors: request } : params,
      options,
    );
    if (result.tensors === undefined || result.tensors === null) return { result, tensors: null };
    if (typeof result.tensors === "string" && isInside(worker.exchange, result.tensors))
      reply = result.tensors; // deleted below even when it cannot be read
    return { result, tensors: await readExchangeFile(worker, result.tensors, method) };
  } finally {
    await Promise.all([
      request && rm(request, { force: true }),
      reply && rm(reply, { force: true }),
    ]);
  }
}
