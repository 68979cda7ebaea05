import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { openZip } from "./zip.js";

const fixture = fileURLToPath(new URL("./fixtures/data/aa_lcr/documents.zip", import.meta.url));

test("openZip lists members in NFC and inflates their text; a missing member is undefined", async () => {
  const zip = await openZip(fixture);
  assert.equal(zip.names.length, 5);
  assert.ok(
    zip.names.includes("lcr/Legal/set-002/ortaklık_şartları.txt"),
    "stored decomposed, listed composed",
  );
  assert.match(zip.text("lcr/Legal/set-002/contract_a.txt")!, /^Supply contract\./);
  const decomposed = "lcr/Legal/set-002/ortaklık_şartları.txt".normalize("NFD");
  assert.match(zip.text(decomposed)!, /^Partnership terms/);
  assert.equal(zip.text("lcr/Legal/set-002/none.txt"), undefined);
});

test("openZip refuses what it cannot read, naming the file", async () => {
  const dir = await mkdtemp(join(tmpdir(), "rllm-zip-"));
  try {
    const notZip = join(dir, "a.zip");
    await writeFile(notZip, "plain text, no archive");
    await assert.rejects(
      openZip(notZip),
      /a\.zip: not a readable zip file \(no end of central directory record\)/,
    );
    // The fixture with its first member's method changed to 12 (bzip2) in both headers.
    const bytes = Buffer.from(await readFile(fixture));
    bytes.writeUInt16LE(12, 8);
    const central = bytes.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
    bytes.writeUInt16LE(12, central + 10);
    const bzip = join(dir, "b.zip");
    await writeFile(bzip, bytes);
    const zip = await openZip(bzip);
    assert.throws(
      () => zip.text("lcr/Company_Reports/set-001/report_2022.txt"),
      /uses compression method 12; only stored and deflate are read/,
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
