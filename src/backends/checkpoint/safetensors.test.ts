import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import {
  float32ToBf16,
  parseSafetensors,
  readSafetensorsFile,
  serializeSafetensors,
  type Tensor,
  writeSafetensorsFile,
} from "./safetensors.js";

/** Build a file by hand from the spec: u64 LE header length, header JSON, data. */
function handMade(headerJson: string, data: number[]): Uint8Array {
  const h = Buffer.from(headerJson, "utf8");
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(BigInt(h.length));
  return new Uint8Array(Buffer.concat([len, h, Buffer.from(data)]));
}

test("golden bytes: one F32 tensor [1, -2] is written exactly as the spec lays it out", () => {
  const bytes = serializeSafetensors({
    a: { dtype: "F32", shape: [2], data: new Float32Array([1, -2]) },
  });
  const header = '{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}';
  assert.equal(header.length, 54);
  const expected = [
    // u64 little-endian header length: 54 bytes of JSON + 2 spaces of padding to a multiple of 8
    0x38,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    ...Buffer.from(`${header}  `, "ascii"),
    // 1.0f32 and -2.0f32, little-endian
    0x00,
    0x00,
    0x80,
    0x3f,
    0x00,
    0x00,
    0x00,
    0xc0,
  ];
  assert.deepEqual([...bytes], expected);
  assert.equal((bytes.length - 8) % 8, 0);
  const back = parseSafetensors(new Uint8Array(expected));
  assert.deepEqual(back.tensors.a, { dtype: "F32", shape: [2], data: new Float32Array([1, -2]) });
  assert.deepEqual(back.metadata, {});
});

test("round trip of F32, I32, I64, U8, F64 and metadata, through a file", async () => {
  const tensors: Record<string, Tensor> = {
    "wte.weight": {
      dtype: "F32",
      shape: [2, 3],
      data: new Float32Array([0.5, -1, 3.25, 1e-8, 7, Number.NaN]),
    },
    step: { dtype: "I64", shape: [], data: new BigInt64Array([-(2n ** 62n)]) },
    ids: { dtype: "I32", shape: [3], data: new Int32Array([1, -2, 2 ** 31 - 1]) },
    mask: { dtype: "U8", shape: [1, 3], data: new Uint8Array([0, 1, 255]) },
    f64: { dtype: "F64", shape: [1], data: new Float64Array([Math.PI]) },
    empty: { dtype: "F32", shape: [0, 4], data: new Float32Array(0) },
  };
  const metadata = { format: "pt", note: "héllo 🎉" };
  const dir = await mkdtemp(join(tmpdir(), "rllm-st-"));
  try {
    const path = join(dir, "m.safetensors");
    await writeSafetensorsFile(path, tensors, metadata);
    const back = await readSafetensorsFile(path);
    assert.deepEqual(back.metadata, metadata);
    assert.deepEqual(Object.keys(back.tensors).sort(), Object.keys(tensors).sort());
    for (const [name, t] of Object.entries(tensors)) {
      assert.deepEqual(back.tensors[name], t, name);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("reads a hand-made file with metadata, BF16, F16 and I64 (widened to f32 where float)", () => {
  const header =
    '{"__metadata__":{"format":"pt"},"b":{"dtype":"BF16","shape":[2],"data_offsets":[0,4]},' +
    '"h":{"dtype":"F16","shape":[3],"data_offsets":[4,10]},"i":{"dtype":"I64","shape":[1],"data_offsets":[10,18]}}';
  const data = [
    0x80,
    0x3f,
    0xc0,
    0xbf, // bf16 1.0, -1.5
    0x00,
    0x3c,
    0x00,
    0xc0,
    0x01,
    0x00, // f16 1.0, -2.0, smallest subnormal 2^-24
    0x05,
    0,
    0,
    0,
    0,
    0,
    0,
    0, // i64 5
  ];
  const f = parseSafetensors(handMade(header, data));
  assert.deepEqual(f.metadata, { format: "pt" });
  assert.deepEqual(f.tensors.b, { dtype: "BF16", shape: [2], data: new Float32Array([1, -1.5]) });
  assert.deepEqual(f.tensors.h, {
    dtype: "F16",
    shape: [3],
    data: new Float32Array([1, -2, 2 ** -24]),
  });
  assert.deepEqual(f.tensors.i, { dtype: "I64", shape: [1], data: new BigInt64Array([5n]) });
});

test("BF16 write rounds f32 to nearest even and reads back", () => {
  const src = new Float32Array([1, 1.00390625 /* halfway: rounds to even 1.0 */, 1.01171875, -3.5]);
  assert.deepEqual([...float32ToBf16(src)], [0x3f80, 0x3f80, 0x3f82, 0xc060]);
  const back = parseSafetensors(
    serializeSafetensors({ w: { dtype: "BF16", shape: [4], data: src } }),
  );
  assert.deepEqual([...(back.tensors.w!.data as Float32Array)], [1, 1, 1.015625, -3.5]);
});

test("validation: each corrupt file is a clear error naming the problem", () => {
  const ok = '{"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}';
  const eight = [0, 0, 0x80, 0x3f, 0, 0, 0, 0x40];
  const cases: [string, Uint8Array, RegExp][] = [
    ["short file", new Uint8Array([1, 2, 3]), /shorter than the 8-byte header length/],
    ["header past end", handMade(ok, eight).slice(0, 30), /runs past the end of the file/],
    [
      "truncated data",
      handMade(ok, eight.slice(0, 6)),
      /tensor "w" data_offsets \[0, 8\] run past the 6-byte data buffer/,
    ],
    ["not JSON", handMade("{nope", []), /not valid JSON/],
    [
      "unknown dtype",
      handMade('{"w":{"dtype":"Q4","shape":[2],"data_offsets":[0,8]}}', eight),
      /tensor "w" has unknown dtype "Q4"/,
    ],
    [
      "size mismatch",
      handMade('{"w":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}}', eight),
      /tensor "w" is F32 \[3\] = 12 bytes but data_offsets span 8/,
    ],
    [
      "bad shape",
      handMade('{"w":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}}', eight),
      /tensor "w" has an invalid shape/,
    ],
    [
      "reversed offsets",
      handMade('{"w":{"dtype":"U8","shape":[0],"data_offsets":[8,0]}}', eight),
      /tensor "w" has invalid data_offsets/,
    ],
    [
      "overlap",
      handMade(
        '{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}',
        eight,
      ),
      /tensor "b" overlaps tensor "a"/,
    ],
    [
      "gap",
      handMade('{"w":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}', eight),
      /gap in the data buffer before tensor "w"/,
    ],
    [
      "trailing",
      handMade('{"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}', eight),
      /4 trailing bytes after the last tensor/,
    ],
    ["metadata", handMade('{"__metadata__":{"k":1}}', []), /__metadata__ "k" is not a string/],
  ];
  const huge = new Uint8Array(16);
  new DataView(huge.buffer).setBigUint64(0, 2n ** 40n, true);
  cases.push(["huge header", huge, /exceeds the 100000000-byte limit/]);
  for (const [what, bytes, re] of cases) {
    assert.throws(() => parseSafetensors(bytes), re, what);
  }
});

test("writer refuses inconsistent tensors", () => {
  assert.throws(
    () => serializeSafetensors({ w: { dtype: "F32", shape: [3], data: new Float32Array(2) } }),
    /tensor "w" has shape \[3\] \(3 elements\) but 2 values/,
  );
  assert.throws(
    () => serializeSafetensors({ w: { dtype: "I32", shape: [2], data: new Float32Array(2) } }),
    /tensor "w" is I32 but its data is a Float32Array/,
  );
});

test("reads tensors at unaligned offsets and from a subarray view", () => {
  const bytes = serializeSafetensors({
    a: { dtype: "U8", shape: [1], data: new Uint8Array([9]) },
    b: { dtype: "F32", shape: [1], data: new Float32Array([2.5]) },
  });
  const shifted = new Uint8Array(bytes.length + 3);
  shifted.set(bytes, 3);
  const f = parseSafetensors(shifted.subarray(3));
  assert.deepEqual(f.tensors.b!.data, new Float32Array([2.5]));
});
