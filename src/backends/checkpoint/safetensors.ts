/**
 * Reader and writer for the safetensors format (huggingface/safetensors), so our checkpoints open
 * in PyTorch/transformers and theirs open here.
 *
 * Layout: an 8-byte little-endian u64 N; N bytes of UTF-8 JSON
 * `{"__metadata__": {str: str}, name: {"dtype", "shape", "data_offsets": [begin, end]}, ...}`
 * with offsets relative to the first byte after the header; then the tensor bytes, little-endian,
 * row-major. The reference writer pads the header with spaces to a multiple of 8 bytes so every
 * tensor starts aligned, and its reader requires the tensors to tile the data buffer exactly (no
 * gaps, no overlaps): we do both, since a file that fails either is corrupt or hostile.
 */

import { readFile, writeFile } from "node:fs/promises";
import { endianness } from "node:os";

export type Dtype =
  | "BOOL"
  | "U8"
  | "I8"
  | "U16"
  | "I16"
  | "F16"
  | "BF16"
  | "U32"
  | "I32"
  | "F32"
  | "U64"
  | "I64"
  | "F64";

/** Bytes per element; the reference also has F8 types, which nothing here needs. */
export const DTYPE_SIZE: Record<Dtype, number> = {
  BOOL: 1,
  U8: 1,
  I8: 1,
  U16: 2,
  I16: 2,
  F16: 2,
  BF16: 2,
  U32: 4,
  I32: 4,
  F32: 4,
  U64: 8,
  I64: 8,
  F64: 8,
};

export type TensorData =
  | Float32Array
  | Float64Array
  | Int32Array
  | Uint32Array
  | Int16Array
  | Uint16Array
  | Int8Array
  | Uint8Array
  | BigInt64Array
  | BigUint64Array;

/**
 * A tensor as read or to be written. On read, F16 and BF16 come back widened to a Float32Array
 * (with `dtype` still naming the stored type); BOOL comes back as a Uint8Array of 0/1.
 */
export interface Tensor {
  dtype: Dtype;
  shape: number[];
  data: TensorData;
}

export interface SafetensorsFile {
  tensors: Record<string, Tensor>;
  metadata: Record<string, string>;
}

/** 100 MB, the reference reader's limit: a larger header is a corrupt length, not a model. */
const MAX_HEADER_BYTES = 100_000_000;

function isLittleEndianHost(): void {
  if (endianness() !== "LE") {
    throw new Error("safetensors: this reader/writer assumes a little-endian host");
  }
}

function elementCount(shape: readonly number[], what: string): number {
  let n = 1;
  for (const d of shape) {
    if (!Number.isSafeInteger(d) || d < 0) {
      throw new Error(`safetensors: ${what} has an invalid shape ${JSON.stringify(shape)}`);
    }
    n *= d;
  }
  if (!Number.isSafeInteger(n)) throw new Error(`safetensors: ${what} is too large`);
  return n;
}

/** Which typed arrays may be written under which dtype (F16/BF16 only from their raw u16 bits or f32). */
function checkWritable(name: string, t: Tensor): void {
  const ok: Record<Dtype, (d: TensorData) => boolean> = {
    BOOL: (d) => d instanceof Uint8Array,
    U8: (d) => d instanceof Uint8Array,
    I8: (d) => d instanceof Int8Array,
    U16: (d) => d instanceof Uint16Array,
    I16: (d) => d instanceof Int16Array,
    F16: (d) => d instanceof Uint16Array,
    BF16: (d) => d instanceof Uint16Array || d instanceof Float32Array,
    U32: (d) => d instanceof Uint32Array,
    I32: (d) => d instanceof Int32Array,
    F32: (d) => d instanceof Float32Array,
    U64: (d) => d instanceof BigUint64Array,
    I64: (d) => d instanceof BigInt64Array,
    F64: (d) => d instanceof Float64Array,
  };
  const check = ok[t.dtype];
  if (!check) throw new Error(`safetensors: tensor "${name}" has unknown dtype ${t.dtype}`);
  if (!check(t.data)) {
    throw new Error(
      `safetensors: tensor "${name}" is ${t.dtype} but its data is a ${t.data.constructor.name}`,
    );
  }
  const n = elementCount(t.shape, `tensor "${name}"`);
  if (n !== t.data.length) {
    throw new Error(
      `safetensors: tensor "${name}" has shape ${JSON.stringify(t.shape)} (${n} elements) but ${t.data.length} values`,
    );
  }
}

/** f32 → bf16 bits, rounding to nearest even (what torch does); NaN stays a quiet NaN. */
export function float32ToBf16(src: Float32Array): Uint16Array {
  const u32 = new Uint32Array(src.buffer, src.byteOffset, src.length);
  const out = new Uint16Array(src.length);
  for (let i = 0; i < src.length; i++) {
    const x = u32[i]!;
    if ((x & 0x7fffffff) > 0x7f800000) out[i] = (x >>> 16) | 0x40;
    else out[i] = (x + 0x7fff + ((x >>> 16) & 1)) >>> 16;
  }
  return out;
}

function bf16ToFloat32(bits: Uint16Array): Float32Array {
  const u32 = new Uint32Array(bits.length);
  for (let i = 0; i < bits.length; i++) u32[i] = bits[i]! << 16;
  return new Float32Array(u32.buffer);
}

function f16ToFloat32(bits: Uint16Array): Float32Array {
  const out = new Float32Array(bits.length);
  for (let i = 0; i < bits.length; i++) {
    const h = bits[i]!;
    const sign = h & 0x8000 ? -1 : 1;
    const exp = (h >>> 10) & 0x1f;
    const frac = h & 0x3ff;
    if (exp === 0) out[i] = sign * 2 ** -14 * (frac / 1024);
    else if (exp === 31) out[i] = frac ? Number.NaN : sign * Number.POSITIVE_INFINITY;
    else out[i] = sign * 2 ** (exp - 15) * (1 + frac / 1024);
  }
  return out;
}

function bytesOf(t: Tensor): Uint8Array {
  const data =
    t.dtype === "BF16" && t.data instanceof Float32Array ? float32ToBf16(t.data) : t.data;
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}

/**
 * Serialize tensors (in the order given) and optional string metadata to safetensors bytes.
 * A `Float32Array` under dtype BF16 is rounded to bf16 on the way out.
 */
export function serializeSafetensors(
  tensors: Record<string, Tensor>,
  metadata?: Record<string, string>,
): Uint8Array {
  isLittleEndianHost();
  const header: Record<string, unknown> = {};
  if (metadata && Object.keys(metadata).length > 0) {
    for (const [k, v] of Object.entries(metadata)) {
      if (typeof v !== "string") throw new Error(`safetensors: metadata "${k}" must be a string`);
    }
    header.__metadata__ = metadata;
  }
  const chunks: Uint8Array[] = [];
  let offset = 0;
  for (const [name, t] of Object.entries(tensors)) {
    if (name === "__metadata__") throw new Error('safetensors: "__metadata__" is reserved');
    checkWritable(name, t);
    const bytes = bytesOf(t);
    header[name] = {
      dtype: t.dtype,
      shape: t.shape,
      data_offsets: [offset, offset + bytes.length],
    };
    chunks.push(bytes);
    offset += bytes.length;
  }
  let json = Buffer.from(JSON.stringify(header), "utf8");
  const pad = (8 - (json.length % 8)) % 8;
  if (pad > 0) json = Buffer.concat([json, Buffer.alloc(pad, 0x20)]);
  const out = new Uint8Array(8 + json.length + offset);
  new DataView(out.buffer).setBigUint64(0, BigInt(json.length), true);
  out.set(json, 8);
  let at = 8 + json.length;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

interface HeaderEntry {
  name: string;
  dtype: Dtype;
  shape: number[];
  begin: number;
  end: number;
}

function fail(msg: string): never {
  throw new Error(`safetensors: ${msg}`);
}

function decode(entry: HeaderEntry, raw: Uint8Array): TensorData {
  // Copy into a fresh, aligned buffer: file offsets need not be element-aligned. (Not
  // raw.slice(): on a Buffer that is a view, not a copy.)
  const buf = new Uint8Array(raw).buffer;
  switch (entry.dtype) {
    case "BOOL":
    case "U8":
      return new Uint8Array(buf);
    case "I8":
      return new Int8Array(buf);
    case "U16":
      return new Uint16Array(buf);
    case "I16":
      return new Int16Array(buf);
    case "F16":
      return f16ToFloat32(new Uint16Array(buf));
    case "BF16":
      return bf16ToFloat32(new Uint16Array(buf));
    case "U32":
      return new Uint32Array(buf);
    case "I32":
      return new Int32Array(buf);
    case "F32":
      return new Float32Array(buf);
    case "U64":
      return new BigUint64Array(buf);
    case "I64":
      return new BigInt64Array(buf);
    case "F64":
      return new Float64Array(buf);
  }
}

/** Parse safetensors bytes, validating every number in the header before it is used. */
export function parseSafetensors(bytes: Uint8Array): SafetensorsFile {
  isLittleEndianHost();
  if (bytes.length < 8)
    fail(`file is ${bytes.length} bytes, shorter than the 8-byte header length`);
  const n64 = new DataView(bytes.buffer, bytes.byteOffset, 8).getBigUint64(0, true);
  if (n64 > BigInt(MAX_HEADER_BYTES))
    fail(`header length ${n64} exceeds the ${MAX_HEADER_BYTES}-byte limit`);
  const n = Number(n64);
  if (8 + n > bytes.length) {
    fail(`header length ${n} runs past the end of the file (${bytes.length} bytes): truncated?`);
  }
  let header: unknown;
  try {
    header = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset + 8, n).toString("utf8"));
  } catch (e) {
    fail(`header is not valid JSON (${(e as Error).message})`);
  }
  if (!header || typeof header !== "object" || Array.isArray(header))
    fail("header is not a JSON object");
  const dataLen = bytes.length - 8 - n;
  const metadata: Record<string, string> = {};
  const entries: HeaderEntry[] = [];
  for (const [name, v] of Object.entries(header as Record<string, unknown>)) {
    if (name === "__metadata__") {
      if (!v || typeof v !== "object" || Array.isArray(v)) fail("__metadata__ is not an object");
      for (const [k, s] of Object.entries(v as Record<string, unknown>)) {
        if (typeof s !== "string") fail(`__metadata__ "${k}" is not a string`);
        metadata[k] = s;
      }
      continue;
    }
    const info = v as { dtype?: unknown; shape?: unknown; data_offsets?: unknown } | null;
    if (!info || typeof info !== "object") fail(`tensor "${name}" has no dtype/shape/data_offsets`);
    const { dtype, shape, data_offsets: offs } = info;
    if (typeof dtype !== "string" || !(dtype in DTYPE_SIZE)) {
      fail(`tensor "${name}" has unknown dtype ${JSON.stringify(dtype)}`);
    }
    if (!Array.isArray(shape) || !shape.every((d) => Number.isSafeInteger(d) && d >= 0)) {
      fail(`tensor "${name}" has an invalid shape ${JSON.stringify(shape)}`);
    }
    if (
      !Array.isArray(offs) ||
      offs.length !== 2 ||
      !offs.every((o) => Number.isSafeInteger(o) && o >= 0) ||
      offs[0] > offs[1]
    ) {
      fail(`tensor "${name}" has invalid data_offsets ${JSON.stringify(offs)}`);
    }
    const [begin, end] = offs as [number, number];
    if (end > dataLen) {
      fail(
        `tensor "${name}" data_offsets [${begin}, ${end}] run past the ${dataLen}-byte data buffer: truncated?`,
      );
    }
    const d = dtype as Dtype;
    const want = elementCount(shape as number[], `tensor "${name}"`) * DTYPE_SIZE[d];
    if (want !== end - begin) {
      fail(
        `tensor "${name}" is ${d} ${JSON.stringify(shape)} = ${want} bytes but data_offsets span ${end - begin}`,
      );
    }
    entries.push({ name, dtype: d, shape: shape as number[], begin, end });
  }
  // The tensors must tile the data buffer: sorted by begin, each starts where the last ended.
  const sorted = [...entries].sort((a, b) => a.begin - b.begin || a.end - b.end);
  let cursor = 0;
  let prev = "";
  for (const e of sorted) {
    if (e.begin < cursor) fail(`tensor "${e.name}" overlaps tensor "${prev}"`);
    if (e.begin > cursor)
      fail(`gap in the data buffer before tensor "${e.name}" (bytes ${cursor}..${e.begin})`);
    cursor = e.end;
    prev = e.name;
  }
  if (cursor !== dataLen) fail(`${dataLen - cursor} trailing bytes after the last tensor`);
  const tensors: Record<string, Tensor> = {};
  const base = 8 + n;
  for (const e of entries) {
    const raw = bytes.subarray(base + e.begin, base + e.end);
    tensors[e.name] = { dtype: e.dtype, shape: e.shape, data: decode(e, raw) };
  }
  return { tensors, metadata };
}

export async function writeSafetensorsFile(
  path: string,
  tensors: Record<string, Tensor>,
  metadata?: Record<string, string>,
): Promise<void> {
  await writeFile(path, serializeSafetensors(tensors, metadata));
}

export async function readSafetensorsFile(path: string): Promise<SafetensorsFile> {
  const bytes = await readFile(path);
  try {
    return parseSafetensors(bytes);
  } catch (e) {
    throw new Error(`${path}: ${(e as Error).message}`);
  }
}
